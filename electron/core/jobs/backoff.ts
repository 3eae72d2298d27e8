/** Bounded exponential backoff with jitter (written once in shared/backoff.ts: the renderer follows tasks with it too). */
export { backoffMs } from '../../../shared/backoff.js';

/** The longest wait between two tries of a store that went away: 8 times the first wait, at most 30 s. */
export const storeRetryCapMs = (baseMs: number) => Math.min(baseMs * 8, 30_000);

/** Waits `ms`, or less when the signal aborts (at once when it already has). Never rejects. */
export const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
