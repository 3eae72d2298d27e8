/**
 * Streaming SendStreamingMessage: the same request as send, over SSE. Each event is applied to the journal as it
 * arrives, in its own savepoint, and committed in groups (what one tick of network data brings, and at the end), so a
 * broken stream keeps everything received and a killed process loses at most the last tick. Each event is handed to `onEvent`
 * for rendering. Nothing accumulates per event, so memory stays flat however long the stream runs.
 */
import { MissiveError, toMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { capabilityView } from '../a2a/capabilities.js';
import { a2aClient } from '../a2a/client.js';
import type { StreamRecord } from '../a2a/stream-response.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import { call, type Steps } from '../store/steps.js';
import type { AppliedUpdate } from '../tasks/apply-update.js';
import { updateWriter } from '../tasks/update-writer.js';
import { prepareSend, type SendInput } from './send.js';
import { storedTaskAnswer } from '../tasks/answer-text.js';

export interface StreamInput extends SendInput {
  /** Stream even when the Agent Card does not advertise capabilities.streaming. */
  force?: boolean;
  /** Each applied event, with the record it came from (the GUI shows its parts as they arrive). */
  onEvent?: (event: StreamEventView, record: StreamRecord) => void;
  /**
   * What the caller writes with each event, in its transaction (a job records its task with the first event naming
   * it). A write of its own from `onEvent` could not name the event's rows: on PostgreSQL they commit with their tick.
   */
  along?: (applied: AppliedUpdate) => Steps<void>;
  signal?: AbortSignal;
}

export interface StreamEventView extends AppliedUpdate {
  sequence: number;
}

export interface StreamResult {
  agent: string;
  selected_interface: SelectedInterface;
  request: { message_id: string; context_id: string | null; task_id: string | null; parts: number; bytes: number };
  events: number;
  counts: Record<'task' | 'message' | 'status_update' | 'artifact_update', number>;
  task: {
    task_id: string;
    context_id: string | null;
    state: TaskStateName | null;
    artifacts: Array<{ artifact_id: string; version: number; last_chunk: boolean }>;
  } | null;
  last_message_text: string | null;
  /** What the agent answered: the last message text, else its task's answer as journaled (artifacts included; answer-text.ts). */
  answer_text: string | null;
  context_id: string | null;
}

const COUNT_KEY = { task: 'task', message: 'message', statusUpdate: 'status_update', artifactUpdate: 'artifact_update' } as const;

/** The request joins the task and the context the agent's first answer names; then what the caller writes along. */
function* linkRequest(
  messageId: string,
  applied: AppliedUpdate,
  known: { taskId: string | null; contextId: string | null },
  along: StreamInput['along'],
): Steps<void> {
  if (applied.task_id && known.taskId === null) yield* call('linkMessageToTask', messageId, applied.task_id, applied.context_id);
  else if (applied.context_id && known.contextId === null) yield* call('linkMessageToContext', messageId, applied.context_id);
  if (along) yield* along(applied);
}

export async function streamMessage(core: Core, input: StreamInput): Promise<StreamResult> {
  const prepared = await prepareSend(core, input, 'stream', (card) => {
    if (!input.force && !capabilityView(card.card).streaming) {
      throw usageError(
        'streaming_not_supported',
        `agent "${card.agent.alias}" does not advertise capabilities.streaming in its Agent Card`,
        'Use `missive send`, or pass --force to try streaming anyway.',
      );
    }
  });
  const { alias, iface, outbound, messageId, request, requestBytes, parts, meta } = prepared;
  const storage = await core.storage();
  const writer = updateWriter(storage);
  const counts: StreamResult['counts'] = { task: 0, message: 0, status_update: 0, artifact_update: 0 };
  const artifacts = new Map<string, { artifact_id: string; version: number; last_chunk: boolean }>();
  let events = 0;
  let taskId: string | null = null;
  let contextId: string | null = prepared.contextId;
  let state: TaskStateName | null = null;
  let lastText: string | null = null;
  const ensured = new Set<string>();

  try {
    for await (const record of a2aClient(prepared.call).sendMessageStream(request, { signal: input.signal })) {
      const applied = await writer.apply(
        record,
        {
          eventPrefix: 'a2a.stream',
          alias,
          protocolVersion: iface.protocol_version,
          metadata: meta,
          fallbackContextId: contextId,
          secrets: outbound.secrets,
          payload: { sequence: record.sequence, request_message_id: messageId },
          ensured,
        },
        (applied) => linkRequest(messageId, applied, { taskId, contextId }, input.along),
      );
      events++;
      counts[COUNT_KEY[record.variant]]++;
      taskId ??= applied.task_id;
      contextId = applied.context_id ?? contextId;
      if (applied.state) state = applied.state;
      if (applied.text && record.variant !== 'artifactUpdate') lastText = applied.text;
      if (applied.artifact)
        artifacts.set(applied.artifact.artifact_id, {
          artifact_id: applied.artifact.artifact_id,
          version: applied.artifact.version,
          last_chunk: applied.artifact.last_chunk,
        });
      input.onEvent?.({ ...applied, sequence: record.sequence }, record);
    }
  } catch (error) {
    const err = toMissiveError(error);
    // A store closed under the stream (the app quitting) cannot journal the failure: its own error says so.
    if (!writer.open()) throw err;
    await writer.flush();
    await storage.journal.append(
      { type: 'a2a.stream.failed', agentAlias: alias, contextId, taskId, payload: { message_id: messageId, events_received: events, error: err.toReport() } },
      outbound.secrets,
    );
    throw err instanceof MissiveError ? err : error;
  } finally {
    await writer.flush();
  }

  const result: StreamResult = {
    agent: alias,
    selected_interface: iface,
    request: { message_id: messageId, context_id: prepared.contextId, task_id: input.taskId ?? null, parts, bytes: requestBytes },
    events,
    counts,
    task: taskId ? { task_id: taskId, context_id: contextId, state, artifacts: [...artifacts.values()] } : null,
    last_message_text: lastText,
    answer_text: lastText ?? (taskId ? await (await core.storage()).read(storedTaskAnswer(taskId)) : null),
    context_id: contextId,
  };
  await storage.journal.append(
    { type: 'a2a.stream.completed', agentAlias: alias, contextId, taskId, payload: { message_id: messageId, events, counts, state } },
    outbound.secrets,
  );
  return result;
}
