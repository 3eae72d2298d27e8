/**
 * The request history's reads of message rows and a thread's artifacts, written once for both engines (sql.ts). The
 * journal's reads (by idx_events_request_message, idx_events_calls) differ: SQLite names its index (INDEXED BY) and reads
 * the payload with json_extract, PostgreSQL repeats the index's expression; each engine's repos hold those.
 */
import { sql } from '../sql.js';
import { MESSAGE_COLUMNS } from '../rows/history.js';
import { RECEIVED_CHUNKS } from './common.js';

export const HISTORY = {
  /** One message row by its local id. */
  messageRow: sql`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE message_id = ?`,
  /** The first direct answer (a response row of no task) of an agent stored after a request row (row, agent). */
  firstDirectResponseAfter: sql`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE rowid > ? AND agent_alias = ? AND direction = 'response' AND task_id IS NULL ORDER BY rowid LIMIT 1`,
  /** The first requests sent in a context, oldest first (context, limit). */
  firstRequestsOfContext: sql`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE context_id = ? AND direction = 'request' ORDER BY created_at, rowid LIMIT ?`,
  /** A context's message rows in the order they were stored. */
  messagesOfContext: sql`SELECT ${MESSAGE_COLUMNS}, protocol_message_id FROM messages WHERE context_id = ? ORDER BY created_at, rowid`,
  /** The artifacts of a context (by their own context, or their task's: the context's id twice), oldest first. */
  artifactsOfContext: sql`SELECT a.task_id, t.agent_alias, a.artifact_id, a.name, a.mime_type, a.kind, a.version, a.last_chunk, a.created_at, a.updated_at,
                (SELECT ${RECEIVED_CHUNKS} FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id) AS chunks
         FROM artifacts a LEFT JOIN tasks t ON t.task_id = a.task_id
         WHERE a.context_id = ? OR a.task_id IN (SELECT task_id FROM tasks WHERE context_id = ?) ORDER BY a.created_at, a.rowid`,
};
