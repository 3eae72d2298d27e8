/** Local contexts' statements and a context's export, written once for both engines (sql.ts). */
import { sql } from '../sql.js';
import { COUNT } from './common.js';
import { updateTypesWhere } from './update-rows.js';
import { CONTEXT_RUN_COUNT, contextRunRows, NOT_NARROW } from './update-runs.js';

/**
 * The columns of each table an export reads, in SQLite's `SELECT *` order: named, since PostgreSQL's tables have
 * columns SQLite's leave out (`rowid`, the journal's `xact_id`).
 */
const MESSAGE_ROW = 'message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json, created_at';
const TASK_ROW =
  'task_id, agent_alias, context_id, state, remote_state, source, protocol_version, remote_task_json, last_message_id, metadata_json, completed_at, created_at, updated_at';
const ARTIFACT_ROW =
  'artifact_id, task_id, context_id, name, mime_type, kind, version, content_json, metadata_json, last_chunk, bytes_path, created_at, updated_at';
const EVENT_ROW = 'sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, redacted';

export const CONTEXTS = {
  get: sql`SELECT * FROM contexts WHERE context_id = ?`,
  getByName: sql`SELECT * FROM contexts WHERE name = ?`,
  /** Inserts the context row if it is new (id, agent, metadata JSON); an existing one is kept. */
  ensure: sql`INSERT INTO contexts (context_id, agent_alias, metadata_json) VALUES (?, ?, ?) ON CONFLICT (context_id) DO NOTHING`,
  insert: sql`INSERT INTO contexts (context_id, name, parent_context_id, metadata_json) VALUES (?, ?, ?, ?)`,
  rename: sql`UPDATE contexts SET name = ?, updated_at = ? WHERE context_id = ?`,
  close: sql`UPDATE contexts SET state = 'closed', closed_at = coalesce(closed_at, ?), updated_at = ? WHERE context_id = ?`,
  /**
   * The contexts, newest first, with their counts. `messages` counts what a thread shows: requests, answers and local
   * rows, and every update (its journal event; an update journaled by an earlier version also has a message row, not
   * counted twice). A context's narrow rows (schema v14) are counted by its runs.
   */
  list: sql`SELECT c.*,
           (SELECT ${COUNT} FROM messages m WHERE m.context_id = c.context_id AND m.direction NOT IN ('stream_event', 'push'))
             + (SELECT ${COUNT} FROM events u WHERE u.context_id = c.context_id AND u.${NOT_NARROW} AND ${updateTypesWhere('u')})
             + ${CONTEXT_RUN_COUNT} AS messages,
           (SELECT ${COUNT} FROM tasks t WHERE t.context_id = c.context_id) AS tasks,
           (SELECT ${COUNT} FROM events e WHERE e.context_id = c.context_id AND e.${NOT_NARROW}) + ${CONTEXT_RUN_COUNT} AS events
         FROM contexts c ORDER BY c.updated_at DESC, c.context_id LIMIT ?`,
  /** An export's rows of each table (the context's id the one parameter; twice for the events). */
  exportMessages: sql`SELECT ${MESSAGE_ROW} FROM messages WHERE context_id = ? ORDER BY created_at, rowid`,
  exportTasks: sql`SELECT ${TASK_ROW} FROM tasks WHERE context_id = ? ORDER BY created_at, task_id`,
  exportArtifacts: sql`SELECT ${ARTIFACT_ROW} FROM artifacts WHERE task_id IN (SELECT task_id FROM tasks WHERE context_id = ?) ORDER BY task_id, artifact_id`,
  exportEvents: sql`SELECT ${EVENT_ROW} FROM events WHERE context_id = ? AND ${NOT_NARROW} UNION ${contextRunRows(EVENT_ROW)} ORDER BY sequence`,
};
