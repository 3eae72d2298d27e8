/**
 * A long-running process's view of its store going away and coming back (the gateway, the webhook receiver): the
 * first failure that means "the store cannot be reached" opens an outage and is reported once (`away`); the failures
 * that follow are counted, not reported; the process retries after a bounded, growing delay (`nextRetryMs`, backoff
 * with jitter, given by the caller: jobs/backoff.ts); the first success closes the outage and is reported once with
 * how long it lasted (`back`). Other failures (a constraint, a bug) are not an outage: the caller reports them as
 * before.
 */
import { isMissiveError } from '../../../shared/errors.js';

/** The error codes that mean the store cannot be used now (down, restarting, refusing connections), not a bad query. */
const OUTAGE_CODES = new Set(['missive::storage::store_unreachable', 'missive::storage::store_connect_failed']);

/** Whether `error` (a MissiveError, or its report `{code}`) says the store cannot be reached now. */
export function isStoreOutage(error: unknown): boolean {
  if (isMissiveError(error)) return OUTAGE_CODES.has(error.code);
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && OUTAGE_CODES.has(code);
}

export interface OutageAway {
  /** When the first failure came (ISO). */
  since: string;
  /** The first failure's code and message (a store error's message names no password). */
  code: string;
  message: string;
}

export interface OutageBack {
  since: string;
  /** How long the store was away, in ms. */
  away_ms: number;
  /** Failed retries (and other failures seen) meanwhile. */
  failures: number;
}

export interface OutageWatch {
  /** Whether an outage is open. */
  readonly away: boolean;
  /** A failure: opens an outage (reported once) when it is one and none is open. Returns whether it is an outage. */
  failed(error: unknown): boolean;
  /** A success: closes the open outage (reported once). */
  succeeded(): void;
  /** The delay before the next retry (grows with each failure of the outage, bounded by the caller's backoff). */
  nextRetryMs(): number;
}

export interface OutageWatchOptions {
  /** The retry delay after `failures` failed tries (0 for the first): bounded exponential with jitter. */
  retryDelayMs: (failures: number) => number;
  away: (outage: OutageAway) => void;
  back: (outage: OutageBack) => void;
  now?: () => number;
}

export function watchStoreOutage(options: OutageWatchOptions): OutageWatch {
  const now = options.now ?? Date.now;
  let open: { at: number; failures: number } | undefined;
  return {
    get away() {
      return open !== undefined;
    },
    failed(error) {
      if (!isStoreOutage(error)) return false;
      if (open) {
        open.failures++;
        return true;
      }
      open = { at: now(), failures: 0 };
      const report = error as { code: string; message?: unknown };
      options.away({
        since: new Date(open.at).toISOString(),
        code: report.code,
        message: typeof report.message === 'string' ? report.message : report.code,
      });
      return true;
    },
    succeeded() {
      if (!open) return;
      const ended = open;
      open = undefined;
      options.back({ since: new Date(ended.at).toISOString(), away_ms: now() - ended.at, failures: ended.failures });
    },
    nextRetryMs: () => options.retryDelayMs(open?.failures ?? 0),
  };
}
