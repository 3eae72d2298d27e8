/** What `events replay` reads back of the message rows, written once for both engines (sql.ts). */
import { sql } from '../sql.js';
import { MESSAGE_RECORD_COLUMNS } from '../rows/collective-records.js';

export const RECORDS = {
  /** One message row by its local id. */
  message: sql`SELECT ${MESSAGE_RECORD_COLUMNS} FROM messages WHERE message_id = ?`,
  /** The `local` rows of a context (reduce results), oldest first. */
  localOfContext: sql`SELECT ${MESSAGE_RECORD_COLUMNS} FROM messages WHERE context_id = ? AND direction = 'local' ORDER BY created_at, rowid`,
};
