/** Contexts, messages, tasks and artifacts: what A2A exchanges leave in the journal. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';
import { interleave, taskFreeUpdatesOf, updatesOfTask, type UpdateMessageRow } from './update-rows.js';
import { chunkParts } from './history.js';
import { storedEnum, storedJson, storedRow } from '../stored-json.js';

/** The states a task row holds (the `tasks.state` CHECK of both engines). */
export const STORED_TASK_STATES = ['submitted', 'working', 'input_required', 'auth_required', 'completed', 'failed', 'cancelled', 'rejected', 'unknown'] as const;
export type TaskStateName = (typeof STORED_TASK_STATES)[number];

export function ensureContext(db: Db, contextId: string, agentAlias: string | null, metadata: Record<string, unknown> = {}): void {
  db.prepare(`INSERT INTO contexts (context_id, agent_alias, metadata_json) VALUES (?, ?, ?) ON CONFLICT(context_id) DO NOTHING`).run(
    contextId,
    agentAlias,
    JSON.stringify(metadata),
  );
}

export interface NewMessage {
  messageId: string;
  agentAlias: string | null;
  contextId: string | null;
  taskId: string | null;
  direction: 'request' | 'response' | 'stream_event' | 'push' | 'local';
  role: 'user' | 'agent' | 'system' | 'tool' | 'unknown';
  protocolMessageId: string | null;
  content: unknown;
  metadata?: Record<string, unknown>;
}

/** Inserts a message; a task's messages are numbered in the insert itself (one statement, read from idx_messages_task). */
export function insertMessage(db: Db, m: NewMessage): void {
  db.prepare(
    `INSERT INTO messages (message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json)
     VALUES (@messageId, @agentAlias, @contextId, @taskId, @direction, @role,
             CASE WHEN @taskId IS NULL THEN 0 ELSE (SELECT coalesce(max(ordinal), -1) + 1 FROM messages WHERE task_id = @taskId) END,
             @protocolMessageId, @content, @metadata)`,
  ).run({
    messageId: m.messageId,
    agentAlias: m.agentAlias,
    contextId: m.contextId,
    taskId: m.taskId,
    direction: m.direction,
    role: m.role,
    protocolMessageId: m.protocolMessageId,
    content: JSON.stringify(m.content),
    metadata: JSON.stringify(m.metadata ?? {}),
  });
}

/** Puts a request message in the context its answer named, when the request went out without one. */
export function linkMessageToContext(db: Db, messageId: string, contextId: string): void {
  db.prepare(`UPDATE messages SET context_id = coalesce(context_id, ?) WHERE message_id = ?`).run(contextId, messageId);
}

/** Links a request message to the task its response created. */
export function linkMessageToTask(db: Db, messageId: string, taskId: string, contextId: string | null): void {
  db.prepare(`UPDATE messages SET task_id = ?, context_id = coalesce(context_id, ?) WHERE message_id = ?`).run(taskId, contextId, messageId);
}

/** The request row sent under `messageId` (a job's dispatch mark): the task and context its answer gave it. */
export const requestOf = (db: Db, messageId: string) =>
  db.prepare(`SELECT task_id, context_id FROM messages WHERE message_id = ? AND direction = 'request'`).get(messageId) as
    | { task_id: string | null; context_id: string | null }
    | undefined;

export interface TaskUpsert {
  taskId: string;
  agentAlias: string;
  contextId: string | null;
  state: TaskStateName;
  remoteState: string | null;
  protocolVersion: string | null;
  remoteJson: unknown;
  lastMessageId: string | null;
  metadata?: Record<string, unknown>;
}

/** States a task never leaves. */
export const TERMINAL_STATES: readonly TaskStateName[] = ['completed', 'failed', 'cancelled', 'rejected'];

/** Inserts or updates a task; `updated_at` moves only when something changed (a GetTask of a finished task is no update). */
export function upsertTask(db: Db, t: TaskUpsert): void {
  const now = nowIso();
  db.prepare(
    `INSERT INTO tasks (task_id, agent_alias, context_id, state, remote_state, protocol_version, remote_task_json, last_message_id, metadata_json, completed_at, updated_at)
     VALUES (@taskId, @agentAlias, @contextId, @state, @remoteState, @protocolVersion, @remoteJson, @lastMessageId, @metadata, @completedAt, @now)
     ON CONFLICT(task_id) DO UPDATE SET state = excluded.state, remote_state = excluded.remote_state,
       context_id = coalesce(excluded.context_id, tasks.context_id), protocol_version = coalesce(excluded.protocol_version, tasks.protocol_version),
       remote_task_json = excluded.remote_task_json, last_message_id = coalesce(excluded.last_message_id, tasks.last_message_id),
       completed_at = coalesce(tasks.completed_at, excluded.completed_at),
       updated_at = CASE WHEN tasks.state IS excluded.state AND tasks.remote_task_json IS excluded.remote_task_json THEN tasks.updated_at ELSE excluded.updated_at END`,
  ).run({
    ...t,
    remoteJson: JSON.stringify(t.remoteJson),
    metadata: JSON.stringify(t.metadata ?? {}),
    completedAt: TERMINAL_STATES.includes(t.state) ? now : null,
    now,
  });
}

export interface TaskStatusWrite {
  taskId: string;
  /** Used when the task row is new or has no remote JSON yet: the JSON starts as `{id, contextId}`. */
  contextId: string | null;
  state: TaskStateName;
  remoteState: string | null;
  protocolVersion: string | null;
  /** The A2A TaskStatus; replaces `status` in the stored task JSON (where it was, or last). */
  status: unknown;
  lastMessageId: string | null;
}

/**
 * A status update of a task whose row exists: `status` is set inside the stored JSON by SQLite, so the task JSON is
 * neither read back nor rewritten by this process (the same result as reading, spreading and upserting it). Returns
 * false when there is no row (the caller upserts instead). Stored JSON that SQLite cannot read (changed outside
 * missive) is started again as a task without JSON is, `{id, contextId}` with the status: the update repairs it.
 */
export function updateTaskStatus(db: Db, t: TaskStatusWrite): boolean {
  const now = nowIso();
  const info = db
    .prepare(
      `UPDATE tasks SET state = @state, remote_state = @remoteState, context_id = coalesce(@contextId, tasks.context_id),
         protocol_version = coalesce(@protocolVersion, tasks.protocol_version), remote_task_json = next.json,
         last_message_id = coalesce(@lastMessageId, tasks.last_message_id), completed_at = coalesce(tasks.completed_at, @completedAt),
         updated_at = CASE WHEN tasks.state IS @state AND tasks.remote_task_json IS next.json THEN tasks.updated_at ELSE @now END
       FROM (SELECT json_set(CASE WHEN json_valid(remote_task_json) THEN remote_task_json
                                  WHEN @contextId IS NULL THEN json_object('id', task_id) ELSE json_object('id', task_id, 'contextId', @contextId) END,
                             '$.status', json(@status)) AS json
             FROM tasks WHERE task_id = @taskId) AS next
       WHERE tasks.task_id = @taskId`,
    )
    .run({ ...t, status: JSON.stringify(t.status), completedAt: TERMINAL_STATES.includes(t.state) ? now : null, now });
  return info.changes > 0;
}

export interface ArtifactWrite {
  artifactId: string;
  taskId: string;
  contextId: string | null;
  name: string | null;
  mimeType: string | null;
  kind: ArtifactKind;
  /** The A2A Artifact JSON; its `parts` become one chunk. */
  content: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Set from an artifactUpdate's lastChunk; left as stored when undefined. */
  lastChunk?: boolean;
  /** `append` adds the parts as a new chunk (artifactUpdate with append); `replace` makes them the only chunk. */
  mode?: 'replace' | 'append';
}

export type ArtifactKind = 'text' | 'json' | 'file' | 'bytes' | 'mixed' | 'unknown';

/** An artifact's JSON split into its header (all but `parts`) and its parts (an array, empty when it has none). */
export const splitArtifact = (content: Record<string, unknown>) => {
  const { parts, ...header } = content;
  return { header, parts: Array.isArray(parts) ? parts : [] };
};

/**
 * The stored parts of an artifact, concatenated in chunk order, as JSON text (assembled by SQLite), for a write to
 * compare with: a chunk SQLite cannot read (changed outside missive) counts as no parts, so the write replaces it.
 */
const partsText = (db: Db, taskId: string, artifactId: string): string =>
  (
    db
      .prepare(
        `SELECT coalesce(json_group_array(json(value)), '[]') AS parts FROM (
           SELECT j.value AS value FROM artifact_chunks c, json_each(CASE WHEN json_valid(c.parts_json) THEN c.parts_json ELSE '[]' END) j
           WHERE c.task_id = ? AND c.artifact_id = ? ORDER BY c.chunk_index, j.key)`,
      )
      .get(taskId, artifactId) as { parts: string }
  ).parts;

/** What the artifact row holds besides its parts (the chunks): read once per tick by a stream, saved once per tick. */
export interface ArtifactHead {
  version: number;
  kind: ArtifactKind;
  /** The artifact JSON without its parts. */
  contentJson: string;
  name: string | null;
  mimeType: string | null;
  lastChunk: number;
}

export function artifactHead(db: Db, taskId: string, artifactId: string): ArtifactHead | undefined {
  const row = db.prepare(`SELECT version, kind, content_json, name, mime_type, last_chunk FROM artifacts WHERE task_id = ? AND artifact_id = ?`).get(taskId, artifactId) as
    | { version: number; kind: ArtifactKind; content_json: string; name: string | null; mime_type: string | null; last_chunk: number }
    | undefined;
  return row && { version: row.version, kind: row.kind, contentJson: row.content_json, name: row.name, mimeType: row.mime_type, lastChunk: row.last_chunk };
}

/**
 * The head after appending `a`'s parts as a chunk: the version bumped, the header merged (a chunk with the stored
 * header, as a model streaming tokens sends, keeps the stored JSON), the kind `mixed` once parts of another kind come.
 */
export function appendedHead(head: ArtifactHead, a: ArtifactWrite): ArtifactHead {
  const { header, parts } = splitArtifact(a.content);
  const headerJson = JSON.stringify(header);
  const stored = () => storedJson(head.contentJson, storedRow('artifacts', { task_id: a.taskId, artifact_id: a.artifactId }), 'content_json', 'object');
  return {
    version: head.version + 1,
    kind: head.kind === a.kind || parts.length === 0 ? head.kind : 'mixed',
    contentJson: headerJson === head.contentJson ? head.contentJson : JSON.stringify({ ...stored(), ...header }),
    name: a.name ?? head.name,
    mimeType: head.mimeType ?? a.mimeType,
    lastChunk: a.lastChunk === undefined ? head.lastChunk : a.lastChunk ? 1 : 0,
  };
}

/** Adds the parts as the artifact's next chunk; its index is computed in the insert (from the chunks' primary key). */
export function appendArtifactChunk(db: Db, taskId: string, artifactId: string, parts: unknown[]): void {
  db.prepare(
    `INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json)
     SELECT @taskId, @artifactId, coalesce(max(chunk_index), -1) + 1, @parts FROM artifact_chunks WHERE task_id = @taskId AND artifact_id = @artifactId`,
  ).run({ taskId, artifactId, parts: JSON.stringify(parts) });
}

export function saveArtifactHead(db: Db, taskId: string, artifactId: string, head: ArtifactHead): void {
  db.prepare(`UPDATE artifacts SET content_json = ?, name = ?, mime_type = ?, kind = ?, version = ?, last_chunk = ?, updated_at = ? WHERE task_id = ? AND artifact_id = ?`).run(
    head.contentJson,
    head.name,
    head.mimeType,
    head.kind,
    head.version,
    head.lastChunk,
    nowIso(),
    taskId,
    artifactId,
  );
}

/** The parts of an artifact write (its content's `parts`). */
export const partsOf = (a: ArtifactWrite): unknown[] => splitArtifact(a.content).parts;

/**
 * Stores an artifact: a new row, a new chunk (append), or new content (replace). Each change bumps the version;
 * content equal to what is stored keeps it. Returns the stored version.
 */
export function writeArtifact(db: Db, a: ArtifactWrite): number {
  const existing = artifactHead(db, a.taskId, a.artifactId);
  const { header, parts } = splitArtifact(a.content);
  const lastChunk = a.lastChunk === undefined ? null : a.lastChunk ? 1 : 0;
  const addChunk = (index: number) =>
    db.prepare(`INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json) VALUES (?, ?, ?, ?)`).run(a.taskId, a.artifactId, index, JSON.stringify(parts));
  if (!existing) {
    db.prepare(
      `INSERT INTO artifacts (artifact_id, task_id, context_id, name, mime_type, kind, content_json, metadata_json, last_chunk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(a.artifactId, a.taskId, a.contextId, a.name, a.mimeType, a.kind, JSON.stringify(header), JSON.stringify(a.metadata ?? {}), lastChunk ?? 0);
    addChunk(0);
    return 1;
  }
  if (a.mode === 'append') {
    appendArtifactChunk(db, a.taskId, a.artifactId, parts);
    const head = appendedHead(existing, a);
    saveArtifactHead(db, a.taskId, a.artifactId, head);
    return head.version;
  }
  if (existing.contentJson === JSON.stringify(header) && partsText(db, a.taskId, a.artifactId) === JSON.stringify(parts)) {
    if (lastChunk !== null) db.prepare(`UPDATE artifacts SET last_chunk = ? WHERE task_id = ? AND artifact_id = ?`).run(lastChunk, a.taskId, a.artifactId);
    return existing.version;
  }
  db.prepare(`DELETE FROM artifact_chunks WHERE task_id = ? AND artifact_id = ?`).run(a.taskId, a.artifactId);
  addChunk(0);
  db.prepare(
    `UPDATE artifacts SET content_json = ?, name = ?, mime_type = ?, kind = ?, version = version + 1, last_chunk = coalesce(?, last_chunk), updated_at = ? WHERE task_id = ? AND artifact_id = ?`,
  ).run(JSON.stringify(header), a.name, a.mimeType, a.kind, lastChunk, nowIso(), a.taskId, a.artifactId);
  return existing.version + 1;
}

export interface StoredTask {
  task_id: string;
  agent_alias: string;
  context_id: string | null;
  state: TaskStateName;
  remote_state: string | null;
  protocol_version: string | null;
  last_message_id: string | null;
  updated_at: string;
}

/** A task row as read (SQLite's and PostgreSQL's): a state that is none of STORED_TASK_STATES is storage::corrupt_row. */
export const storedTaskOf = (row: StoredTask): StoredTask => ({ ...row, state: storedEnum(row.state, STORED_TASK_STATES, storedRow('tasks', { task_id: row.task_id }), 'state') });

export const getTask = (db: Db, taskId: string): StoredTask | undefined => {
  const row = db.prepare(`SELECT task_id, agent_alias, context_id, state, remote_state, protocol_version, last_message_id, updated_at FROM tasks WHERE task_id = ?`).get(taskId) as
    | StoredTask
    | undefined;
  return row && storedTaskOf(row);
};

export interface ArtifactSummary {
  artifact_id: string;
  name: string | null;
  kind: string;
  mime_type: string | null;
  version: number;
  last_chunk: number;
  chunks: number;
  updated_at: string;
}

export const listArtifactsOfTask = (db: Db, taskId: string) =>
  db
    .prepare(
      `SELECT a.artifact_id, a.name, a.kind, a.mime_type, a.version, a.last_chunk, a.updated_at,
              (SELECT count(*) FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id) AS chunks
       FROM artifacts a WHERE a.task_id = ? ORDER BY a.artifact_id`,
    )
    .all(taskId) as ArtifactSummary[];

export interface TaskQuery {
  agent?: string;
  contextId?: string;
  state?: TaskStateName;
  limit: number;
  offset: number;
}

/** Local tasks, most recently updated first (task id breaks ties). */
export function listTasks(db: Db, q: TaskQuery): StoredTask[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (q.agent) (where.push('agent_alias = ?'), args.push(q.agent));
  if (q.contextId) (where.push('context_id = ?'), args.push(q.contextId));
  if (q.state) (where.push('state = ?'), args.push(q.state));
  return (
    db
      .prepare(
        `SELECT task_id, agent_alias, context_id, state, remote_state, protocol_version, last_message_id, updated_at FROM tasks
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, task_id LIMIT ? OFFSET ?`,
      )
      .all(...args, q.limit, q.offset) as StoredTask[]
  ).map(storedTaskOf);
}

/** The last remote JSON stored for a task, or null when the task is unknown or has none. */
export function getTaskJson(db: Db, taskId: string): Record<string, unknown> | null {
  const row = db.prepare(`SELECT remote_task_json FROM tasks WHERE task_id = ?`).get(taskId) as { remote_task_json: string | null } | undefined;
  return taskJsonOf(taskId, row?.remote_task_json ?? null);
}

/** A task's stored remote JSON (SQLite's and PostgreSQL's): an object, null when it has none, or storage::corrupt_row. */
export const taskJsonOf = (taskId: string, json: string | null): Record<string, unknown> | null =>
  json === null ? null : storedJson(json, storedRow('tasks', { task_id: taskId }), 'remote_task_json', 'object');

export interface StoredArtifact {
  artifact_id: string;
  task_id: string;
  context_id: string | null;
  name: string | null;
  mime_type: string | null;
  kind: string;
  version: number;
  last_chunk: boolean;
  content: Record<string, unknown>;
  updated_at: string;
}

export function getArtifact(db: Db, taskId: string, artifactId: string): StoredArtifact | undefined {
  const row = db
    .prepare(`SELECT artifact_id, task_id, context_id, name, mime_type, kind, version, last_chunk, content_json, updated_at FROM artifacts WHERE task_id = ? AND artifact_id = ?`)
    .get(taskId, artifactId) as (Omit<StoredArtifact, 'content' | 'last_chunk'> & { content_json: string; last_chunk: number }) | undefined;
  if (!row) return undefined;
  const { content_json, last_chunk, ...rest } = row;
  // Each chunk decoded here (not assembled by SQLite, whose JSON functions fail unnamed on a chunk they cannot read).
  const chunks = db.prepare(`SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks WHERE task_id = ? AND artifact_id = ? ORDER BY chunk_index`).all(taskId, artifactId) as Array<{
    artifact_id: string;
    chunk_index: number;
    parts_json: string;
  }>;
  return storedArtifactOf(rest, last_chunk, content_json, chunks.flatMap((chunk) => chunkParts(taskId, chunk)));
}

/** An artifact row and its parts (its chunks' parts, each chunk decoded by history.ts's chunkParts) as read (SQLite's and PostgreSQL's). */
export function storedArtifactOf(rest: Omit<StoredArtifact, 'content' | 'last_chunk'>, lastChunk: number, contentJson: string, parts: unknown[]): StoredArtifact {
  const at = storedRow('artifacts', { task_id: rest.task_id, artifact_id: rest.artifact_id });
  return { ...rest, last_chunk: lastChunk === 1, content: { ...storedJson(contentJson, at, 'content_json', 'object'), parts } };
}

/** A member's latest task in a context: newest `updated_at`, then the smallest task id. */
export const latestTaskOf = (db: Db, agentAlias: string, contextId: string): StoredTask | undefined => {
  const row = db
    .prepare(
      `SELECT task_id, agent_alias, context_id, state, remote_state, protocol_version, last_message_id, updated_at FROM tasks
       WHERE agent_alias = ? AND context_id = ? ORDER BY updated_at DESC, task_id ASC LIMIT 1`,
    )
    .get(agentAlias, contextId) as StoredTask | undefined;
  return row && storedTaskOf(row);
};

export interface StoredMessage {
  message_id: string;
  direction: string;
  role: string;
  content: Record<string, unknown>;
  created_at: string;
}

/** A message row as stored (the columns responsesOfTask and directResponsesOf read). */
export type RawStoredMessage = Omit<StoredMessage, 'content'> & { content_json: string };
export const storedFromRaw = ({ content_json, ...rest }: RawStoredMessage): StoredMessage => ({
  ...rest,
  content: storedJson(content_json, storedRow('messages', { message_id: rest.message_id }), 'content_json', 'object'),
});
/** An update read from the journal (update-rows.ts) as a StoredMessage. */
export const storedFromUpdate = ({ message_id, direction, role, content, created_at }: UpdateMessageRow): StoredMessage => ({ message_id, direction, role, content, created_at });

/** The messages linked to a task other than requests (answers, and its updates from the journal), newest first. */
export const responsesOfTask = (db: Db, taskId: string): StoredMessage[] =>
  interleave(
    (db.prepare(`SELECT message_id, direction, role, content_json, created_at FROM messages WHERE task_id = ? AND direction != 'request' ORDER BY created_at, rowid`).all(taskId) as RawStoredMessage[]).map(storedFromRaw),
    updatesOfTask(db, taskId).map(storedFromUpdate),
  ).reverse();

/** Response messages of a context that belong to no task (direct Message answers, streamed or not), newest first, per agent. */
export const directResponsesOf = (db: Db, agentAlias: string, contextId: string): StoredMessage[] =>
  interleave(
    (
      db
        .prepare(
          `SELECT message_id, direction, role, content_json, created_at FROM messages
           WHERE agent_alias = ? AND context_id = ? AND task_id IS NULL AND direction != 'request' ORDER BY created_at, rowid`,
        )
        .all(agentAlias, contextId) as RawStoredMessage[]
    ).map(storedFromRaw),
    taskFreeUpdatesOf(db, agentAlias, contextId).map(storedFromUpdate),
  ).reverse();

/** A task row for a task we only know by id (a push config or callback came first); a later fetch fills it in. */
export function ensurePlaceholderTask(db: Db, taskId: string, agentAlias: string, contextId: string | null = null): void {
  db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id, state, source) VALUES (?, ?, ?, 'unknown', 'placeholder') ON CONFLICT(task_id) DO NOTHING`).run(taskId, agentAlias, contextId);
}
