/**
 * Messages, tasks and artifacts: the statements both engines run alike, written once (sql.ts), with the parameters
 * of each write. What differs stays in each engine's repos: a task's status update (SQLite sets the status inside the
 * stored JSON with json_set; PostgreSQL reads the JSON under a row lock and writes it back), the comparison of stored
 * parts (SQLite's json_group_array), and PostgreSQL's lock on a task's message numbering.
 */
import { differ, fragment, sql } from '../sql.js';
import { TERMINAL_STATES, type ArtifactHead, type ArtifactWrite, type NewMessage, type TaskUpsert } from '../rows/conversation.js';
import { FOR_UPDATE, RECEIVED_CHUNKS, SAME, TEXT_PARAM } from './common.js';

export const TASK_COLUMNS = `task_id, agent_alias, context_id, state, remote_state, protocol_version, last_message_id, updated_at`;
const STORED_MESSAGE_COLUMNS = 'message_id, direction, role, content_json, created_at';

/** The artifact row a write reads first (task, artifact); PostgreSQL locks it until the transaction ends. */
const HEAD = fragment`SELECT version, kind, content_json, name, mime_type, last_chunk FROM artifacts WHERE task_id = ? AND artifact_id = ?${FOR_UPDATE}`;

export const CONVERSATION = {
  /**
   * Inserts a message; a task's messages are numbered in the insert itself (one statement, read from
   * idx_messages_task): the task id is given three times (see `insertMessageParams`).
   */
  insertMessage: sql`INSERT INTO messages (message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json)
     VALUES (?, ?, ?, ?, ?, ?,
             CASE WHEN ${TEXT_PARAM} IS NULL THEN 0 ELSE (SELECT coalesce(max(ordinal), -1) + 1 FROM messages WHERE task_id = ?) END,
             ?, ?, ?)`,
  linkToContext: sql`UPDATE messages SET context_id = coalesce(context_id, ?) WHERE message_id = ?`,
  linkToTask: sql`UPDATE messages SET task_id = ?, context_id = coalesce(context_id, ?) WHERE message_id = ?`,
  requestOf: sql`SELECT task_id, context_id FROM messages WHERE message_id = ? AND direction = 'request'`,
  getTask: sql`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ?`,
  /** Inserts or updates a task; `updated_at` moves only when something changed (a GetTask of a finished task is no update). */
  upsertTask: sql`INSERT INTO tasks (task_id, agent_alias, context_id, state, remote_state, protocol_version, remote_task_json, last_message_id, metadata_json, completed_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (task_id) DO UPDATE SET state = excluded.state, remote_state = excluded.remote_state,
       context_id = coalesce(excluded.context_id, tasks.context_id), protocol_version = coalesce(excluded.protocol_version, tasks.protocol_version),
       remote_task_json = excluded.remote_task_json, last_message_id = coalesce(excluded.last_message_id, tasks.last_message_id),
       completed_at = coalesce(tasks.completed_at, excluded.completed_at),
       updated_at = CASE WHEN tasks.state ${SAME} excluded.state AND tasks.remote_task_json ${SAME} excluded.remote_task_json THEN tasks.updated_at ELSE excluded.updated_at END`,
  /** A task row for a task known only by id (task, agent, context); an existing row is kept. */
  ensurePlaceholderTask: sql`INSERT INTO tasks (task_id, agent_alias, context_id, state, source) VALUES (?, ?, ?, 'unknown', 'placeholder') ON CONFLICT (task_id) DO NOTHING`,
  taskJson: sql`SELECT remote_task_json FROM tasks WHERE task_id = ?`,
  /** Local tasks are listed by `listTasksStatement`; a member's latest task in a context (agent, context). */
  latestTaskOf: sql`SELECT ${TASK_COLUMNS} FROM tasks WHERE agent_alias = ? AND context_id = ? ORDER BY updated_at DESC, task_id ASC LIMIT 1`,
  artifactHead: sql`${HEAD}`,
  /** A new artifact's row; PostgreSQL inserts nothing when another host created it since the read (the write goes on from its row). */
  insertArtifact: sql`INSERT INTO artifacts (artifact_id, task_id, context_id, name, mime_type, kind, content_json, metadata_json, last_chunk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)${differ(
    '',
    ' ON CONFLICT (task_id, artifact_id) DO NOTHING',
  )}`,
  addChunk: sql`INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json) VALUES (?, ?, ?, ?)`,
  /**
   * Adds the parts of `pieces` received chunks as the artifact's next stored chunk, its index computed in the insert
   * (task, artifact, parts, pieces, task, artifact).
   */
  appendChunk: sql`INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json, pieces)
     SELECT ?, ?, coalesce(max(chunk_index), -1) + 1, ?, CAST(? AS INTEGER) FROM artifact_chunks WHERE task_id = ? AND artifact_id = ?`,
  saveHead: sql`UPDATE artifacts SET content_json = ?, name = ?, mime_type = ?, kind = ?, version = ?, last_chunk = ?, updated_at = ? WHERE task_id = ? AND artifact_id = ?`,
  setLastChunk: sql`UPDATE artifacts SET last_chunk = ? WHERE task_id = ? AND artifact_id = ?`,
  deleteChunks: sql`DELETE FROM artifact_chunks WHERE task_id = ? AND artifact_id = ?`,
  replaceArtifact: sql`UPDATE artifacts SET content_json = ?, name = ?, mime_type = ?, kind = ?, version = version + 1, last_chunk = coalesce(?, last_chunk), updated_at = ? WHERE task_id = ? AND artifact_id = ?`,
  listArtifactsOfTask: sql`SELECT a.artifact_id, a.name, a.kind, a.mime_type, a.version, a.last_chunk, a.updated_at,
              (SELECT ${RECEIVED_CHUNKS} FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id) AS chunks
       FROM artifacts a WHERE a.task_id = ? ORDER BY a.artifact_id`,
  getArtifact: sql`SELECT artifact_id, task_id, context_id, name, mime_type, kind, version, last_chunk, content_json, updated_at FROM artifacts WHERE task_id = ? AND artifact_id = ?`,
  /** An artifact's chunks in order, each decoded by the reader (rows/history.ts `chunkParts`). */
  chunksOf: sql`SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks WHERE task_id = ? AND artifact_id = ? ORDER BY chunk_index`,
  /** The messages linked to a task other than requests, oldest first. */
  responsesOfTask: sql`SELECT ${STORED_MESSAGE_COLUMNS} FROM messages WHERE task_id = ? AND direction <> 'request' ORDER BY created_at, rowid`,
  /** Response messages of a context that belong to no task (agent, context), oldest first. */
  directResponsesOf: sql`SELECT ${STORED_MESSAGE_COLUMNS} FROM messages
     WHERE agent_alias = ? AND context_id = ? AND task_id IS NULL AND direction <> 'request' ORDER BY created_at, rowid`,
};

/** The local tasks a query lists, most recently updated first (task id breaks ties), and its parameters. */
export function listTasksStatement(q: { agent?: string; contextId?: string; state?: string; limit: number; offset: number }) {
  const where: string[] = [];
  const params: unknown[] = [];
  const filter = (term: string, value: unknown) => {
    where.push(term);
    params.push(value);
  };
  if (q.agent) filter('agent_alias = ?', q.agent);
  if (q.contextId) filter('context_id = ?', q.contextId);
  if (q.state) filter('state = ?', q.state);
  const key = where.join(' AND ');
  return {
    statement: (LIST_TASKS[key] ??=
      sql`SELECT ${TASK_COLUMNS} FROM tasks ${where.length ? `WHERE ${key}` : ''} ORDER BY updated_at DESC, task_id LIMIT ? OFFSET ?`),
    params: [...params, q.limit, q.offset],
  };
}
/** The statement of each combination of filters, built once. */
const LIST_TASKS: Record<string, ReturnType<typeof sql>> = {};

export const insertMessageParams = (m: NewMessage): unknown[] => [
  m.messageId,
  m.agentAlias,
  m.contextId,
  m.taskId,
  m.direction,
  m.role,
  m.taskId,
  m.taskId,
  m.protocolMessageId,
  JSON.stringify(m.content),
  JSON.stringify(m.metadata ?? {}),
];

export const upsertTaskParams = (t: TaskUpsert, now: string): unknown[] => [
  t.taskId,
  t.agentAlias,
  t.contextId,
  t.state,
  t.remoteState,
  t.protocolVersion,
  JSON.stringify(t.remoteJson),
  t.lastMessageId,
  JSON.stringify(t.metadata ?? {}),
  TERMINAL_STATES.includes(t.state) ? now : null,
  now,
];

export const insertArtifactParams = (a: ArtifactWrite, headerJson: string, lastChunk: number | null): unknown[] => [
  a.artifactId,
  a.taskId,
  a.contextId,
  a.name,
  a.mimeType,
  a.kind,
  headerJson,
  JSON.stringify(a.metadata ?? {}),
  lastChunk ?? 0,
];

/** The parameters of CONVERSATION.appendChunk: the parts of `pieces` received chunks as the artifact's next chunk row. */
export const appendChunkParams = (taskId: string, artifactId: string, partsJson: string, pieces: number): unknown[] => [
  taskId,
  artifactId,
  partsJson,
  pieces,
  taskId,
  artifactId,
];

export const saveHeadParams = (taskId: string, artifactId: string, head: ArtifactHead, now: string): unknown[] => [
  head.contentJson,
  head.name,
  head.mimeType,
  head.kind,
  head.version,
  head.lastChunk,
  now,
  taskId,
  artifactId,
];

export const replaceArtifactParams = (a: ArtifactWrite, headerJson: string, lastChunk: number | null, now: string): unknown[] => [
  headerJson,
  a.name,
  a.mimeType,
  a.kind,
  lastChunk,
  now,
  a.taskId,
  a.artifactId,
];

/** An artifact's head as read by CONVERSATION.artifactHead. */
export const headOf = (
  row: { version: number; kind: ArtifactHead['kind']; content_json: string; name: string | null; mime_type: string | null; last_chunk: number } | undefined,
): ArtifactHead | undefined =>
  row && { version: row.version, kind: row.kind, contentJson: row.content_json, name: row.name, mimeType: row.mime_type, lastChunk: row.last_chunk };
