/** Bounded exponential backoff with jitter: base·2^attempt capped, then a random point in its upper half. */
export function backoffMs(attempt: number, options: { baseMs?: number; capMs?: number; random?: () => number } = {}): number {
  const base = options.baseMs ?? 500;
  const cap = options.capMs ?? 30_000;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (options.random ?? Math.random)() * (ceiling / 2));
}

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
