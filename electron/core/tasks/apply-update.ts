/**
 * Applies one A2A StreamResponse (from a stream, a task subscription or a push callback) to the journal: a message
 * row, an event, the task row's state, and the artifact rows (appended chunks merged, version bumped).
 */
import { rowId } from '../store/row-id.js';
import type { Db } from '../store/db.js';
import { alreadyRedacted, appendEvent, hasEventKey } from '../store/repos/events.js';
import { ensureContext, ensurePlaceholderTask, getTaskJson, insertMessage, updateTaskStatus, writeArtifact, upsertTask, type TaskStateName } from '../store/repos/conversation.js';
import { VARIANT_EVENT, type StreamRecord } from '../a2a/stream-response.js';
import { redactValue, scrubSecrets } from '../security/redact.js';
import { localTaskState, SETTLED_STATES } from './task-state.js';
import { textOfParts } from '../a2a/part-text.js';
import { artifactKind, canonicalTask, persistTask } from './persist.js';

export interface UpdateSource {
  /** Journal prefix: `a2a.stream`, `a2a.subscription` or `a2a.push`. */
  eventPrefix: string;
  direction: 'stream_event' | 'push';
  alias: string;
  protocolVersion: string | null;
  metadata: Record<string, unknown>;
  fallbackContextId?: string | null;
  secrets?: readonly string[];
  /** Extra payload fields for the journal (the stream's sequence, the request id, …). */
  payload?: Record<string, unknown>;
  /** A stable key to drop duplicates (gateway resume). */
  dedupeKey?: string;
  /**
   * The contexts and placeholder tasks this sequence of updates already made sure of: a stream passes one set for all
   * its events, so each is written once, not once per event. (A failed write ends the sequence, set and all.)
   */
  ensured?: Set<string>;
}

/** Runs `ensure` unless the sequence already did for `key`. */
function once(source: UpdateSource, key: string, ensure: () => void): void {
  if (source.ensured?.has(key)) return;
  ensure();
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

function applyStatus(db: Db, source: UpdateSource, update: Record<string, any>, contextId: string | null, messageId: string) {
  const taskId = String(update.taskId);
  const state = localTaskState(update.status?.state);
  const remoteState = (update.status?.state as string | undefined) ?? null;
  // The row exists (a placeholder at least): SQLite sets the status inside the stored JSON, nothing is read back.
  if (update.status !== undefined && updateTaskStatus(db, { taskId, contextId, state, remoteState, protocolVersion: source.protocolVersion, status: update.status, lastMessageId: messageId })) {
    return { state, remote: remoteState };
  }
  const previous = getTaskJson(db, taskId) ?? { id: taskId, ...(contextId ? { contextId } : {}) };
  const json = { ...previous, status: update.status };
  upsertTask(db, { taskId, agentAlias: source.alias, contextId, state, remoteState, protocolVersion: source.protocolVersion, remoteJson: json, lastMessageId: messageId, metadata: source.metadata });
  return { state, remote: remoteState };
}

function applyArtifact(db: Db, source: UpdateSource, update: Record<string, any>, contextId: string | null) {
  const taskId = String(update.taskId);
  const incoming = update.artifact as Record<string, any>;
  const artifactId = String(incoming.artifactId);
  const append = update.append === true;
  const lastChunk = update.lastChunk === true;
  const parts = (incoming.parts as Array<Record<string, unknown>>) ?? [];
  const version = writeArtifact(db, {
    artifactId,
    taskId,
    contextId,
    name: (incoming.name as string | undefined) ?? null,
    mimeType: (parts[0]?.mediaType as string | undefined) ?? null,
    kind: artifactKind(parts),
    content: incoming,
    lastChunk,
    mode: append ? 'append' : 'replace',
  });
  return { artifact_id: artifactId, version, append, last_chunk: lastChunk };
}

/** Applies the update inside the caller's transaction. */
export function applyUpdate(db: Db, source: UpdateSource, record: StreamRecord): AppliedUpdate {
  const p = scrubSecrets(record.payload, source.secrets ?? []);
  const messageId = rowId();
  const taskId: string | null = record.variant === 'task' ? String(p.id) : ((p.taskId as string | undefined) ?? null);
  const contextId: string | null = (p.contextId as string | undefined) || source.fallbackContextId || null;
  const eventType = `${source.eventPrefix}.${VARIANT_EVENT[record.variant]}`;
  const base = { variant: record.variant, event_type: eventType, message_id: messageId, task_id: taskId, context_id: contextId };
  if (source.dedupeKey && hasEventKey(db, source.dedupeKey)) return { ...base, duplicate: true, state: null, remote_state: null, artifact: null, text: null, final: false };

  if (contextId) once(source, `context ${contextId}`, () => ensureContext(db, contextId, source.alias));
  // A task never seen whole (a subscription or push came first) still gets its row, so updates have an owner.
  if (taskId && record.variant !== 'task') once(source, `task ${taskId}`, () => ensurePlaceholderTask(db, taskId, source.alias, contextId));
  let state: TaskStateName | null = null;
  let remote: string | null = null;
  let artifact: AppliedUpdate['artifact'] = null;
  if (record.variant === 'task') {
    const persisted = persistTask(db, source.alias, canonicalTask(p), { protocolVersion: source.protocolVersion, metadata: source.metadata, fallbackContextId: contextId, secrets: source.secrets });
    state = persisted.state;
    remote = persisted.remote_state;
  } else if (record.variant === 'statusUpdate') {
    ({ state, remote } = applyStatus(db, source, p, contextId, messageId));
  } else if (record.variant === 'artifactUpdate') {
    artifact = applyArtifact(db, source, p, contextId);
  }
  // Redacted once: the message row and the journal event store the same redacted update.
  const content = redactValue({ [record.variant]: p }, source.secrets ?? []);
  insertMessage(db, {
    messageId,
    agentAlias: source.alias,
    contextId,
    taskId,
    direction: source.direction,
    role: record.variant === 'message' ? 'agent' : 'system',
    protocolMessageId: record.variant === 'message' ? (p.messageId as string) : null,
    content,
    metadata: source.metadata,
  });
  const payload = alreadyRedacted({ ...redactValue({ ...source.payload, message_row: messageId }, source.secrets ?? []), ...content });
  appendEvent(db, { type: eventType, agentAlias: source.alias, contextId, taskId, dedupeKey: source.dedupeKey ?? null, payload }, source.secrets);
  const text =
    record.variant === 'message' ? textOfParts(p.parts) : record.variant === 'artifactUpdate' ? textOfParts(p.artifact?.parts) : textOfParts(p.status?.message?.parts);
  const terminal = state !== null && SETTLED_STATES.includes(state);
  return { ...base, duplicate: false, state, remote_state: remote, artifact, text, final: record.variant === 'message' || terminal };
}
