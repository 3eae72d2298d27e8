/** The live tail of the Events view: polls the journal every `intervalMs` and pushes new rows, at most 1000 a batch. */
import type { Db } from '../store/db.js';
import { listEvents, type EventRow } from '../store/repos/events.js';

export const TAIL_BATCH = 1000;

/** Starts following from the journal's current end; returns the function that stops it. */
export function tailEvents(db: Db, intervalMs: number, push: (events: EventRow[]) => void): () => void {
  let cursor = (db.prepare(`SELECT coalesce(max(sequence), 0) AS s FROM events`).get() as { s: number }).s;
  const timer = setInterval(() => {
    const events = listEvents(db, { afterSequence: cursor, limit: TAIL_BATCH });
    if (events.length === 0) return;
    cursor = events.at(-1)!.sequence;
    push(events);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
