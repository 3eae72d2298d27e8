/**
 * The journal reader of the SQLite store: `journalEvents` (and its plans) as they are, answered at once, and `page`:
 * the bounded read of a caller whose loop must not be held (the desktop's `events.query`, bench/journal-ipc.ts).
 */
import type { Db } from '../db.js';
import { listEvents, type EventRow } from '../repos/events.js';
import { journalEvents } from '../repos/journal-query.js';
import type { JournalFilters, JournalPageStart, JournalReader, JournalWindow } from '../storage.js';
import { cursorSequence, sequenceCursor } from './journal-cursor.js';

/**
 * How long one page may spend in SQLite and decoding rows before it stops scanning and answers with what it found:
 * the rest of the 50 ms a call may hold the desktop's loop is the caller's (scrubbing, validating, the IPC's clone).
 */
export const PAGE_SCAN_BUDGET_MS = 15;
/**
 * A page scans at least this many sequences before the budget may stop it, so a small journal (a test's, a new
 * user's) is always read in one call whatever the machine's load.
 */
export const PAGE_MIN_SCAN = 4096;
/** Each statement of a page scans one window of sequences: it starts here, doubles while a statement is quick, halves when slow. */
const FIRST_WINDOW = 1024;
const MIN_WINDOW = 64;
const MAX_WINDOW = 1 << 20;
const QUICK_MS = 2;
const SLOW_MS = 6;

/** `journalEvents` over one window of sequences at a time until `limit` rows, the journal's end or the budget (see `JournalReader.page`). */
export function journalPage(db: Db, query: JournalFilters, from: JournalPageStart, limit: number): JournalWindow {
  const started = performance.now();
  const { top } = db.prepare(`SELECT coalesce(max(sequence), 0) AS top FROM events`).get() as { top: number };
  const forward = from.afterSequence !== undefined;
  // The sequences still to scan: (after, below), narrowed from one end as windows are read.
  let after = forward ? from.afterSequence! : 0;
  let below = forward ? top + 1 : Math.min(from.beforeSequence ?? top + 1, top + 1);
  const chunks: EventRow[][] = [];
  let found = 0;
  let scanned = 0;
  let window = FIRST_WINDOW;
  while (below - after > 1) {
    const t0 = performance.now();
    const span = Math.min(window, below - after - 1);
    const want = limit - found;
    const rows = forward
      ? journalEvents(db, { ...query, afterSequence: after, beforeSequence: after + span + 1, limit: want })
      : journalEvents(db, { ...query, beforeSequence: below, fromSequence: below - span, limit: want });
    const ms = performance.now() - t0;
    chunks.push(rows);
    found += rows.length;
    if (found >= limit) {
      // Full: the next page starts past the last row this one holds.
      const last = forward ? rows.at(-1)!.sequence : rows[0]!.sequence;
      return { events: ordered(chunks, forward), next: forward ? { afterSequence: last } : { beforeSequence: last } };
    }
    if (forward) after += span;
    else below -= span;
    scanned += span;
    window = ms < QUICK_MS ? Math.min(window * 2, MAX_WINDOW) : ms > SLOW_MS ? Math.max(Math.floor(window / 2), MIN_WINDOW) : window;
    if (below - after > 1 && scanned >= PAGE_MIN_SCAN && performance.now() - started >= PAGE_SCAN_BUDGET_MS) {
      return { events: ordered(chunks, forward), next: forward ? { afterSequence: after } : { beforeSequence: below } };
    }
  }
  return { events: ordered(chunks, forward) };
}

/** The windows' rows oldest first: read forward they already are; read back, each window is older than the one before. */
const ordered = (chunks: EventRow[][], forward: boolean): EventRow[] => (forward ? chunks : chunks.reverse()).flat();

export function sqliteJournalReads(db: Db): JournalReader {
  return {
    list: async (query) => journalEvents(db, query),
    end: async () => sequenceCursor(listEvents(db, { limit: 1 }).at(-1)?.sequence ?? 0),
    start: () => sequenceCursor(0),
    async after(query, cursor, limit) {
      const events = journalEvents(db, { ...query, afterSequence: cursorSequence(cursor), limit });
      return { events, cursor: events.length ? sequenceCursor(events.at(-1)!.sequence) : cursor, more: events.length === limit };
    },
    page: async (query, from, limit) => journalPage(db, query, from, limit),
  };
}
