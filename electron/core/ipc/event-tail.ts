/**
 * The live tail of the Events view: polls the journal every `intervalMs` and pushes new rows, at most `TAIL_BATCH` a
 * batch (a full batch is followed at once by the next, the loop free in between). It reads through the storage interface's journal reader, so it
 * follows a shared PostgreSQL journal as well as the SQLite file: a reader's cursor never skips an event committed
 * late nor repeats one (storage.ts, JournalReader.after).
 */
import type { EventRow } from '../store/rows/events.js';
import type { JournalCursor, JournalReader } from '../store/storage.js';

/** As many rows as one `events.query` page (events/journal-page.ts): a burst of appends holds the loop no longer than a page. */
export const TAIL_BATCH = 250;

/**
 * Starts following from the journal's end now; returns the function that stops it. A failing poll (the store out of
 * reach for a moment) is reported once per failure run and retried at the next interval.
 */
export function tailEvents(
  reader: JournalReader,
  intervalMs: number,
  push: (events: EventRow[]) => void,
  onError: (error: unknown) => void = () => {},
): () => void {
  let stopped = false;
  let failing = false;
  let cursor: JournalCursor | undefined;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    let more = false;
    try {
      cursor ??= await reader.end();
      const page = await reader.after({}, cursor, TAIL_BATCH);
      cursor = page.cursor;
      more = page.more;
      failing = false;
      if (!stopped && page.events.length > 0) push(page.events);
    } catch (error) {
      if (!failing) onError(error);
      failing = true;
    }
    if (!stopped) timer = setTimeout(() => void poll(), more ? 0 : intervalMs).unref();
  };
  // The end is taken now, so what is journaled from here on is followed.
  void reader
    .end()
    .then((end) => (cursor ??= end))
    .catch(() => undefined);
  timer = setTimeout(() => void poll(), intervalMs).unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
