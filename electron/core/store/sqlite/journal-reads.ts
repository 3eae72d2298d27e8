/** The journal reader of the SQLite store: `journalEvents` (and its plans) as they are, answered at once. */
import type { Db } from '../db.js';
import { listEvents } from '../repos/events.js';
import { journalEvents } from '../repos/journal-query.js';
import type { JournalReader } from '../storage.js';
import { cursorSequence, sequenceCursor } from './journal-cursor.js';

export function sqliteJournalReads(db: Db): JournalReader {
  return {
    list: async (query) => journalEvents(db, query),
    end: async () => sequenceCursor(listEvents(db, { limit: 1 }).at(-1)?.sequence ?? 0),
    start: () => sequenceCursor(0),
    async after(query, cursor, limit) {
      const events = journalEvents(db, { ...query, afterSequence: cursorSequence(cursor), limit });
      return { events, cursor: events.length ? sequenceCursor(events.at(-1)!.sequence) : cursor, more: events.length === limit };
    },
  };
}
