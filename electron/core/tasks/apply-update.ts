/**
 * Applies one A2A StreamResponse (from a stream, a task subscription or a push callback) to the journal: one event
 * holding the update, the task row's state, and the artifact rows (appended chunks merged, version bumped).
 */
import { rowId } from '../store/row-id.js';
import type { ArtifactWrite, TaskStateName, TaskStatusWrite } from '../store/rows/conversation.js';
import type { TickValues } from '../store/storage.js';
import { call, journalUpdate, type Steps } from '../store/steps.js';
import { VARIANT_EVENT, type StreamRecord } from '../a2a/stream-response.js';
import { scrubSecrets } from '../security/redact.js';
import { localTaskState, SETTLED_STATES } from './task-state.js';
import { textOfParts } from '../a2a/part-text.js';
import { artifactText } from '../../../shared/artifact-text.js';
import { artifactKind, canonicalTask, persistTaskSteps } from './persist.js';

export interface UpdateSource {
  /** Journal prefix: `a2a.stream`, `a2a.subscription` or `a2a.push`. */
  eventPrefix: string;
  alias: string;
  protocolVersion: string | null;
  metadata: Record<string, unknown>;
  fallbackContextId?: string | null;
  secrets?: readonly string[];
  /** Extra payload fields for the journal (the stream's sequence, the request id, …). */
  payload?: Record<string, unknown>;
  /** A stable key to drop duplicates (gateway resume). */
  dedupeKey?: string;
  /** Who journals the update (`webhook` for a callback, `gateway` for a subscription); else the caller's default source. */
  source?: string;
  /**
   * The contexts and placeholder tasks this sequence of updates already made sure of: a stream passes one set for all
   * its events, so each is written once, not once per event. (A failed write ends the sequence, set and all.)
   */
  ensured?: Set<string>;
}

/** The keys of a task's and a context's rows in `ensured`. */
const taskKey = (taskId: string) => `task ${taskId}`;
const contextKey = (contextId: string) => `context ${contextId}`;

/** The `ensured` entries saying a task's row, and its context's, exist (a caller that just read the task row knows). */
export function knownTaskRows(task: { task_id: string; context_id: string | null }): Set<string> {
  return new Set(task.context_id ? [taskKey(task.task_id), contextKey(task.context_id)] : [taskKey(task.task_id)]);
}

/** Runs `ensure` unless the sequence already did for `key`. */
function* once(source: UpdateSource, key: string, ensure: () => Steps<void>): Steps<void> {
  if (source.ensured?.has(key)) return;
  yield* ensure();
  source.ensured?.add(key);
}

export interface AppliedUpdate {
  variant: StreamRecord['variant'];
  event_type: string;
  duplicate: boolean;
  message_id: string;
  task_id: string | null;
  context_id: string | null;
  state: TaskStateName | null;
  remote_state: string | null;
  artifact: { artifact_id: string; version: number; append: boolean; last_chunk: boolean } | null;
  text: string | null;
  final: boolean;
}

function* applyStatus(
  source: UpdateSource,
  tick: TickValues | undefined,
  update: StreamRecord['payload'],
  contextId: string | null,
  messageId: string,
): Steps<{ state: TaskStateName; remote: string | null }> {
  const taskId = String(update.taskId);
  const state = localTaskState(update.status?.state);
  const remoteState = (update.status?.state as string | undefined) ?? null;
  const write: TaskStatusWrite = {
    taskId,
    contextId,
    state,
    remoteState,
    protocolVersion: source.protocolVersion,
    status: update.status,
    lastMessageId: messageId,
  };
  // The status updates of one tick write the task row once, with the last of them, when the tick commits.
  if (tick && update.status !== undefined) tick.setStatus(write, (last) => saveStatus(source, last));
  else {
    tick?.settleTask(taskId);
    yield* saveStatus(source, write);
  }
  return { state, remote: remoteState };
}

function* saveStatus(source: UpdateSource, write: TaskStatusWrite): Steps<void> {
  // The row exists (a placeholder at least): the status is set inside the stored JSON, nothing is read back on SQLite.
  if (write.status !== undefined && (yield* call('updateTaskStatus', write))) return;
  const previous = (yield* call('getTaskJson', write.taskId)) ?? { id: write.taskId, ...(write.contextId ? { contextId: write.contextId } : {}) };
  const json = { ...previous, status: write.status };
  const { taskId, contextId, state, remoteState, protocolVersion, lastMessageId } = write;
  yield* call('upsertTask', {
    taskId,
    agentAlias: source.alias,
    contextId,
    state,
    remoteState,
    protocolVersion,
    remoteJson: json,
    lastMessageId,
    metadata: source.metadata,
  });
}

function* applyArtifact(
  tick: TickValues | undefined,
  update: StreamRecord['payload'],
  contextId: string | null,
): Steps<NonNullable<AppliedUpdate['artifact']>> {
  const taskId = String(update.taskId);
  const incoming = update.artifact as StreamRecord['payload'];
  const artifactId = String(incoming.artifactId);
  const append = update.append === true;
  const lastChunk = update.lastChunk === true;
  const parts = (incoming.parts as Array<Record<string, unknown>>) ?? [];
  const write: ArtifactWrite = {
    artifactId,
    taskId,
    contextId,
    name: (incoming.name as string | undefined) ?? null,
    mimeType: (parts[0]?.mediaType as string | undefined) ?? null,
    kind: artifactKind(parts),
    content: incoming,
    lastChunk,
    mode: append ? 'append' : 'replace',
  };
  const result = (version: number) => ({ artifact_id: artifactId, version, append, last_chunk: lastChunk });
  // A chunk appended in a tick: the chunk row now, the artifact row (version, header) once, when the tick commits.
  if (tick && append) {
    const version = yield* tick.appendChunk(write);
    if (version !== null) return result(version);
  } else tick?.settleArtifact(taskId, artifactId);
  return result(yield* call('writeArtifact', write));
}

/**
 * One update as steps (store/steps.ts), on either store. The update is stored once, as its journal event (`events`:
 * payload and metadata); the message-shaped views of it (threads, answers, member outputs) read those events
 * (store/repos/update-rows.ts). Its id is the event's, and the task's `last_message_id` names it. `tick`: the values
 * of the update sink's open tick (SQLite's, Storage.updates), where the rows a tick's updates share are written once.
 */
export const applyUpdateSteps = (source: UpdateSource, record: StreamRecord, tick?: TickValues): Steps<AppliedUpdate> => updateSteps(source, record, tick);

function* updateSteps(source: UpdateSource, record: StreamRecord, tick: TickValues | undefined): Steps<AppliedUpdate> {
  const secrets = source.secrets ?? [];
  const p = scrubSecrets(record.payload, secrets);
  const messageId = rowId();
  const taskId: string | null = record.variant === 'task' ? String(p.id) : ((p.taskId as string | undefined) ?? null);
  const contextId: string | null = (p.contextId as string | undefined) || source.fallbackContextId || null;
  const eventType = `${source.eventPrefix}.${VARIANT_EVENT[record.variant]}`;
  if (source.dedupeKey && (yield* call('hasEventKey', source.dedupeKey))) {
    return {
      variant: record.variant,
      event_type: eventType,
      message_id: messageId,
      task_id: taskId,
      context_id: contextId,
      duplicate: true,
      state: null,
      remote_state: null,
      artifact: null,
      text: null,
      final: false,
    };
  }

  if (contextId) yield* once(source, contextKey(contextId), () => call('ensureContext', contextId, source.alias));
  // A task never seen whole (a subscription or push came first) still gets its row, so updates have an owner.
  if (taskId && record.variant !== 'task') yield* once(source, taskKey(taskId), () => call('ensurePlaceholderTask', taskId, source.alias, contextId));
  let state: TaskStateName | null = null;
  let remote: string | null = null;
  let artifact: AppliedUpdate['artifact'] = null;
  let text: string | null;
  if (record.variant === 'task') {
    // The task is rewritten from its JSON: what the tick holds for its row and its artifacts is saved first.
    tick?.settleTask(String(taskId));
    for (const a of Array.isArray(p.artifacts) ? (p.artifacts as Array<{ artifactId?: unknown }>) : [])
      tick?.settleArtifact(String(taskId), String(a.artifactId));
    const persisted = yield* persistTaskSteps(source.alias, canonicalTask(p), {
      protocolVersion: source.protocolVersion,
      metadata: source.metadata,
      fallbackContextId: contextId,
      secrets: source.secrets,
    });
    state = persisted.state;
    remote = persisted.remote_state;
    text = textOfParts(p.status?.message?.parts);
  } else if (record.variant === 'statusUpdate') {
    ({ state, remote } = yield* applyStatus(source, tick, p, contextId, messageId));
    text = textOfParts(p.status?.message?.parts);
  } else if (record.variant === 'artifactUpdate') {
    artifact = yield* applyArtifact(tick, p, contextId);
    text = artifactText(p.artifact?.parts);
  } else {
    text = textOfParts(p.parts);
  }
  // The journal's own fields first, then the update under its variant's key (`{sequence, …, artifactUpdate: {…}}`).
  const payload: Record<string, unknown> = { ...source.payload };
  payload[record.variant] = p;
  const event = {
    eventId: messageId,
    type: eventType,
    source: source.source,
    agentAlias: source.alias,
    contextId,
    taskId,
    dedupeKey: source.dedupeKey ?? null,
    payload,
    metadata: source.metadata,
  };
  yield* journalUpdate(event, tick, secrets);
  const terminal = state !== null && SETTLED_STATES.includes(state);
  return {
    variant: record.variant,
    event_type: eventType,
    message_id: messageId,
    task_id: taskId,
    context_id: contextId,
    duplicate: false,
    state,
    remote_state: remote,
    artifact,
    text,
    final: record.variant === 'message' || terminal,
  };
}
