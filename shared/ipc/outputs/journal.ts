/** What the journal's channels answer: tasks, artifacts, events, contexts and a context's thread. */
import { z } from 'zod';
import { artifactFile, count, loose, maybeText, taskState, text } from './common.js';

/** A task as the journal holds it (core/store/repos/conversation.ts `StoredTask`). */
export const storedTask = loose({
  task_id: text,
  agent_alias: text,
  context_id: maybeText,
  state: taskState,
  /** The agent's own name of the state (e.g. TASK_STATE_WORKING). */
  remote_state: maybeText,
  protocol_version: maybeText,
  last_message_id: maybeText,
  updated_at: text,
});
export const taskPage = loose({
  source: z.enum(['local', 'remote']),
  agent: maybeText,
  tasks: z.array(storedTask),
  next_page_token: maybeText,
  total_size: count.nullable(),
});

/** A task with its artifacts (core/tasks/service.ts `TaskView`). */
export const taskView = loose({
  task: storedTask,
  artifacts: z.array(
    loose({ artifact_id: text, name: maybeText, kind: text, mime_type: maybeText, version: count, last_chunk: count, chunks: count, updated_at: text }),
  ),
  source: z.enum(['local', 'remote']),
});
/** core/tasks/service.ts `WaitResult`: how the wait ended, and the exit code `missive task wait` gives it. */
export const waitResult = taskView.extend({ outcome: z.union([taskState, z.literal('timeout')]), exit_code: count, attempts: count, elapsed_ms: count });

export const artifactExport = loose({ task_id: text, directory: text, files: z.array(artifactFile) });

/** One journal row (core/store/repos/events.ts `EventRow`); the payload and metadata are redacted. */
export const journalEvent = loose({
  sequence: count,
  eventId: text,
  timestamp: text,
  source: text,
  type: text,
  agentAlias: maybeText,
  contextId: maybeText,
  taskId: maybeText,
  payload: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
  /** Who wrote it (core/store/actor.ts): host, OS user, actor id; null for an event journaled before missive recorded it. */
  actor: z.object({ host: text, user: text, id: text }).nullable(),
});

/** A local context (core/store/repos/contexts.ts `ContextRow`); in lists with its counts (`ContextSummary`). */
export const contextRow = loose({
  context_id: text,
  agent_alias: maybeText,
  name: maybeText,
  parent_context_id: maybeText,
  state: z.enum(['open', 'closed', 'archived']),
  metadata: z.record(z.string(), z.unknown()),
  closed_at: maybeText,
  created_at: text,
  updated_at: text,
});
export const contextSummary = contextRow.extend({
  messages: count,
  tasks: count,
  events: count,
  /** The agent the context talks to (its own, else its first message's). */
  agent: maybeText,
  /** The first message's text, one line, shortened; null when none has text. */
  preview: maybeText,
  /** The local id of that first message (History opens it). */
  first_message_id: maybeText,
});

/** One item of a context's conversation, oldest first (core/contexts/thread.ts). */
const threadMessage = loose({
  kind: z.literal('message'),
  at: text,
  message_id: text,
  protocol_message_id: maybeText,
  /** request, response, stream_event, push, local… */
  direction: text,
  role: text,
  agent_alias: maybeText,
  task_id: maybeText,
  /** The A2A task state a status update announced with this message. */
  state: maybeText,
  text: maybeText,
  /** The A2A parts (file bytes replaced by `raw_bytes`, their size). */
  parts: z.array(z.record(z.string(), z.unknown())),
});
const threadArtifact = loose({
  kind: z.literal('artifact'),
  at: text,
  updated_at: text,
  agent_alias: maybeText,
  task_id: text,
  artifact_id: text,
  name: maybeText,
  version: count,
  mime_type: maybeText,
  content_kind: text,
  last_chunk: z.boolean(),
  text: maybeText,
  text_truncated: z.boolean(),
  /** What the artifact holds besides text, e.g. `file report.pdf (application/pdf)`. */
  summary: text,
});
export const threadItem = z.discriminatedUnion('kind', [threadMessage, threadArtifact]);
