/** Reads of the rows collectives leave behind, for `events replay` and `diff`: a message row by id, a context's local rows, its journal in order. */
import type { Db } from '../db.js';
import { listEvents } from './events.js';
import { readableEvent, type EventRow } from '../rows/events.js';
import { messageRecordOf, type MessageRecord, type RawMessageRecord } from '../rows/collective-records.js';
import { RECORDS } from '../statements/collective-records.js';
import type { WithDb } from '../repository-forms.js';
import type { ConversationRepository } from '../storage.js';

/** One message row by its local id, or null. */
export function getMessageRecord(db: Db, messageId: string): MessageRecord | null {
  const row = db.prepare(RECORDS.message.sqlite).get(messageId) as RawMessageRecord | undefined;
  return row ? messageRecordOf(row) : null;
}

/** The `local` rows of a context (reduce results), oldest first. */
export const localMessagesOfContext = (db: Db, contextId: string): MessageRecord[] =>
  (db.prepare(RECORDS.localOfContext.sqlite).all(contextId) as RawMessageRecord[]).map(messageRecordOf);

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

/** The conversation repository's reads of what collectives leave (storage.ts's ConversationRepository), on SQLite. */
export type RecordReads = 'contextJournal' | 'getMessageRecord' | 'localMessagesOfContext';
export const sqliteRecords: WithDb<Pick<ConversationRepository, RecordReads>, Db> = { contextJournal, getMessageRecord, localMessagesOfContext };
