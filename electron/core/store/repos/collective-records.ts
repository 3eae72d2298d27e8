/** Reads of the rows collectives leave behind, for `events replay` and `diff`: a message row by id, a context's local rows, its journal in order. */
import type { Db } from '../db.js';
import { listEvents, readableEvent, type EventRow } from './events.js';
import { storedJson, storedRow } from '../stored-json.js';

export interface MessageRecord {
  message_id: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  direction: string;
  content: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** A message row as the store returns it (MESSAGE_RECORD_COLUMNS). */
export interface RawMessageRecord extends Omit<MessageRecord, 'content' | 'metadata'> {
  content_json: string;
  metadata_json: string;
}

/** A message row decoded (SQLite's and PostgreSQL's: postgres/repos/conversation.ts). */
export const messageRecordOf = ({ content_json, metadata_json, ...rest }: RawMessageRecord): MessageRecord => {
  const at = storedRow('messages', { message_id: rest.message_id });
  return { ...rest, content: storedJson(content_json, at, 'content_json', 'object'), metadata: storedJson(metadata_json, at, 'metadata_json', 'object') };
};

export const MESSAGE_RECORD_COLUMNS = 'message_id, agent_alias, context_id, task_id, direction, content_json, metadata_json';

/** One message row by its local id, or null. */
export function getMessageRecord(db: Db, messageId: string): MessageRecord | null {
  const row = db.prepare(`SELECT ${MESSAGE_RECORD_COLUMNS} FROM messages WHERE message_id = ?`).get(messageId) as RawMessageRecord | undefined;
  return row ? messageRecordOf(row) : null;
}

/** The `local` rows of a context (reduce results), oldest first. */
export const localMessagesOfContext = (db: Db, contextId: string): MessageRecord[] =>
  (db.prepare(`SELECT ${MESSAGE_RECORD_COLUMNS} FROM messages WHERE context_id = ? AND direction = 'local' ORDER BY created_at, rowid`).all(contextId) as RawMessageRecord[]).map(messageRecordOf);

/** True when a response row (not a request) is linked to this task. */
export const taskHasResponse = (db: Db, taskId: string): boolean =>
  db.prepare(`SELECT 1 FROM messages WHERE task_id = ? AND direction = 'response' LIMIT 1`).get(taskId) !== undefined;

/** Every journal event of a context, oldest first, read in pages of `page` (the loop ends when a page comes back short). */
export function contextJournal(db: Db, contextId: string, page = 1000): EventRow[] {
  const rows: EventRow[] = [];
  let after = 0;
  for (;;) {
    // Replay needs every event's payload: one that cannot be read fails it, naming the event (storage::corrupt_row).
    const batch = listEvents(db, { contextId, afterSequence: after, limit: page }).map(readableEvent);
    rows.push(...batch);
    if (batch.length < page) return rows;
    after = batch.at(-1)!.sequence;
  }
}
