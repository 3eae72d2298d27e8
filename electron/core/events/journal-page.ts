/**
 * `events.query`, the desktop's read of the journal: one bounded page per call, so that no call holds the main
 * process's loop (its window, tray and webhook) for long, however large the journal or the limit asked for. A page
 * holds at most EVENTS_PAGE_ROWS events (what the registry then scrubs, validates and the IPC clones costs time per
 * row), and on SQLite it also stops scanning after a few milliseconds (store/sqlite/journal-reads.ts); `next` says
 * where the following call goes on. bench/journal-ipc.ts measures it against 1,000,000 events.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { EventRow } from '../store/rows/events.js';
import { withCallbackAgents } from '../tasks/callback-agents.js';
import type { JournalFilters, JournalWindow } from '../store/storage.js';

/** The most events one `events.query` answer holds (measured by bench/journal-ipc.ts: well inside 50 ms of the loop). */
export const EVENTS_PAGE_ROWS = 250;

/** Any of the journal's filters (the Events view sends some; MCP's search_journal also an outcome, a type prefix, an agent, a time). */
export interface JournalPageInput extends JournalFilters {
  /** How many matching events the caller wants in all; one answer holds at most EVENTS_PAGE_ROWS of them. */
  limit?: number;
  /** Walk back from below this sequence (default: the newest events). */
  beforeSequence?: number;
  /** Or read forward from above this one. */
  afterSequence?: number;
}

/** The newest matches (or the next after `afterSequence`), oldest first, and where to go on when there may be more. */
export async function queryJournalPage(core: Core, input: JournalPageInput): Promise<{ events: EventRow[]; next?: JournalWindow['next'] }> {
  const { limit = 1000, beforeSequence, afterSequence, ...filters } = input;
  if (beforeSequence !== undefined && afterSequence !== undefined) {
    throw usageError('invalid_input', 'events.query: give beforeSequence or afterSequence, not both', 'Pass back the `next` of the previous answer as it is.');
  }
  const from = afterSequence !== undefined ? { afterSequence } : { beforeSequence };
  const page = await (await core.storage()).journalReads.page(filters, from, Math.max(1, Math.min(limit, EVENTS_PAGE_ROWS)));
  // Callbacks that beat their send are shown under their task's agent (tasks/callback-agents.ts).
  const events = await withCallbackAgents(await core.storage(), page.events);
  return page.next ? { events, next: page.next } : { events };
}
