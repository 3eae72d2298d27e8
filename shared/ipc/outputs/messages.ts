/** What `messages.send` and `messages.stream` answer. */
import { z } from 'zod';
import { count, loose, maybeText, selectedInterface, taskState, text } from './common.js';

/** The request part of a send or stream result. */
const sentRequest = loose({ message_id: text, context_id: maybeText, task_id: maybeText, parts: count, bytes: count });

/** `missive send` (core/messaging/send.ts `SendResult`); `response` is the agent's answer as the SDK decodes it. */
export const sendResult = loose({
  agent: text,
  selected_interface: selectedInterface,
  request: sentRequest,
  response_shape: z.enum(['message', 'task']),
  response: z.unknown(),
  task: loose({ task_id: text, context_id: maybeText, state: taskState, artifacts: z.array(loose({ artifact_id: text, version: count })) }).nullable(),
  local: loose({ request_message_id: text, response_message_id: text }),
});

/** `missive stream` (core/messaging/stream.ts `StreamResult`). */
export const streamResult = loose({
  agent: text,
  selected_interface: selectedInterface,
  request: sentRequest,
  events: count,
  counts: loose({ task: count, message: count, status_update: count, artifact_update: count }),
  task: loose({
    task_id: text,
    context_id: maybeText,
    state: taskState.nullable(),
    artifacts: z.array(loose({ artifact_id: text, version: count, last_chunk: z.boolean() })),
  }).nullable(),
  /** The text of the last message (or status message) the stream brought. */
  last_message_text: maybeText,
  context_id: maybeText,
});
