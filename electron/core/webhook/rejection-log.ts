/**
 * How the webhook receiver journals the callbacks it refuses (400, 401, 408, 413) without letting a flood of them
 * fill the journal or the process. Per source (the sender's address) and window (a minute): the first rejection of
 * each status is journaled on its own, as `a2a.push.rejected`; the others are counted, and each source's counts are
 * journaled as one `a2a.push.rejected_summary` when the window closes and when the receiver stops. What is held is
 * bounded: at most `maxSources` sources are told apart in a window (the rest share one "other sources" tally), at most
 * `maxPending` single rows are being written at once (a rejection beyond that is only counted). Every write is
 * awaited and its failure handled: a single row that could not be written is counted instead, and a summary that
 * could not be written goes back into the tallies for the next window. Nothing here ever rejects.
 */
import type { NewEvent } from '../store/rows/events.js';

export const REJECTED_EVENT = 'a2a.push.rejected';
export const REJECTED_SUMMARY_EVENT = 'a2a.push.rejected_summary';
export const DEFAULT_REJECTION_WINDOW_MS = 60_000;
export const DEFAULT_MAX_SOURCES = 1024;
export const DEFAULT_MAX_PENDING_WRITES = 16;
/** A summary's reason (the first of its status in the window) is cut to this many characters. */
const MAX_REASON = 200;

export interface Rejection {
  /** The sender's address; null when unknown. */
  source: string | null;
  status: number;
  reason: string;
  /** The single row's payload (redacted on append, like every event). */
  payload: Record<string, unknown>;
}

export interface RejectionLogOptions {
  /** Appends one event; may fail (the store is down): the log handles it. */
  append(event: NewEvent): Promise<void>;
  windowMs?: number;
  maxSources?: number;
  maxPending?: number;
  /** Told when counted rejections could not be journaled at all (the store was still failing when the receiver stopped). */
  onLost?(message: string): void;
}

export interface RejectionLog {
  /** Journals or counts a rejection; resolves once its row, if it gets one, is written (or counted instead). */
  record(rejection: Rejection): Promise<void>;
  /** Writes the open window's summaries and stops the window timer (the receiver stops). */
  close(): Promise<void>;
}

interface StatusCount {
  count: number;
  reason: string;
}

interface Tally {
  /** The source's address; null for the "other sources" tally (and a sender whose address was unknown). */
  source: string | null;
  other: boolean;
  /** The statuses whose single row this window already has (or is writing). */
  journaled: Set<number>;
  counts: Map<number, StatusCount>;
  /** The start (ms) of the earliest window it counts rejections of (earlier than the open one's after a failed write). */
  windowStart: number;
}

const OTHER = '\u0000other';
const UNKNOWN = '\u0000unknown';

const cut = (reason: string) => (reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason);

export function createRejectionLog(options: RejectionLogOptions): RejectionLog {
  const windowMs = options.windowMs ?? DEFAULT_REJECTION_WINDOW_MS;
  const maxSources = options.maxSources ?? DEFAULT_MAX_SOURCES;
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_WRITES;
  let tallies = new Map<string, Tally>();
  let windowStart = Date.now();
  let pending = 0;
  /** The window being closed (its summaries written); the next close waits for it. */
  let closing: Promise<unknown> = Promise.resolve();
  let closed = false;

  /** The tally of `source` in the open window, made if the table has room, else the "other sources" one. */
  function tallyOf(source: string | null, other = false): Tally {
    const key = other ? OTHER : source === null ? UNKNOWN : source;
    const known = tallies.get(key);
    if (known) return known;
    // The table holds at most maxSources tallies, and the "other sources" one.
    if (!other && tallies.size >= maxSources) return tallyOf(null, true);
    const made: Tally = { source: other ? null : source, other, journaled: new Set(), counts: new Map(), windowStart };
    tallies.set(key, made);
    return made;
  }

  function count(tally: Tally, status: number, reason: string, n = 1): void {
    const known = tally.counts.get(status);
    if (known) known.count += n;
    else tally.counts.set(status, { count: n, reason: cut(reason) });
  }

  /** A summary that could not be written: its counts go back into the open window's tallies. */
  function putBack(tally: Tally): void {
    const into = tallyOf(tally.source, tally.other);
    into.windowStart = Math.min(into.windowStart, tally.windowStart);
    for (const [status, c] of tally.counts) count(into, status, c.reason, c.count);
  }

  const summary = (tally: Tally, end: number): NewEvent => {
    const rejections = [...tally.counts].sort(([a], [b]) => a - b).map(([status, c]) => ({ status, reason: c.reason, count: c.count }));
    return {
      type: REJECTED_SUMMARY_EVENT,
      source: 'webhook',
      payload: {
        source: tally.source,
        other_sources: tally.other,
        window_start: new Date(tally.windowStart).toISOString(),
        window_end: new Date(end).toISOString(),
        total: rejections.reduce((sum, r) => sum + r.count, 0),
        rejections,
      },
    };
  };

  /** Closes the open window: its summaries written one after the other. How many counted rejections are left unwritten. */
  async function closeWindow(): Promise<number> {
    const ending = [...tallies.values()].filter((t) => t.counts.size > 0);
    const end = Date.now();
    tallies = new Map();
    windowStart = end;
    for (const [i, tally] of ending.entries()) {
      try {
        await options.append(summary(tally, end));
      } catch {
        // The store is failing: what is left waits for the next window rather than be tried now, one by one.
        const rest = ending.slice(i);
        rest.forEach(putBack);
        return rest.reduce((sum, t) => sum + [...t.counts.values()].reduce((s, c) => s + c.count, 0), 0);
      }
    }
    return 0;
  }

  const timer = setInterval(() => {
    closing = closing.then(closeWindow).catch(() => 0);
  }, windowMs);
  // The receiver's server keeps the process alive, not this timer.
  timer.unref();

  return {
    async record(rejection) {
      const tally = tallyOf(rejection.source);
      if (closed || tally.journaled.has(rejection.status) || pending >= maxPending) return count(tally, rejection.status, rejection.reason);
      tally.journaled.add(rejection.status);
      pending++;
      try {
        await options.append({ type: REJECTED_EVENT, source: 'webhook', payload: rejection.payload });
      } catch {
        // Not journaled on its own: counted (in the window open now), so a summary still tells of it.
        count(tallyOf(rejection.source), rejection.status, rejection.reason);
      } finally {
        pending--;
      }
    },
    close() {
      if (!closed) {
        closed = true;
        clearInterval(timer);
        closing = closing
          .then(closeWindow)
          .then((lost) => {
            if (lost > 0) options.onLost?.(`${lost} rejected callback${lost === 1 ? '' : 's'} could not be journaled: the store refused their summary`);
          })
          .catch(() => undefined);
      }
      return closing.then(() => undefined);
    },
  };
}
