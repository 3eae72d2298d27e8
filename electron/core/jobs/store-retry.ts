/**
 * A write that must not be lost to a store outage: what the agent already answered (a send's reply, the end of a job).
 * While the store is away it is tried again after a bounded, growing delay with jitter (backoff.ts), until it goes
 * through, fails for another reason, or the gateway stops. Meanwhile the job stays the gateway's own (it still runs,
 * so the gateway renews its claim once the store is back): the answer is written once, and nothing is sent again.
 */
import { toMissiveError, type MissiveError } from '../../../shared/errors.js';
import { isStoreOutage } from '../store/outage.js';
import { backoffMs, pause, storeRetryCapMs } from './backoff.js';

export interface StoreRetryOptions {
  /** The gateway stopping: the write is given up (thrown), the job left to its claim. */
  signal: AbortSignal;
  /** The first delay; it doubles up to 8 times this (at most 30 s). */
  baseMs: number;
  /** Each failed try (the gateway counts them into its one "store is away" line). */
  onFailure?: (error: MissiveError) => void;
}

export async function retryWhileStoreAway<T>(write: () => Promise<T>, options: StoreRetryOptions): Promise<T> {
  const capMs = storeRetryCapMs(options.baseMs);
  for (let failures = 0; ; failures++) {
    try {
      return await write();
    } catch (thrown) {
      const error = toMissiveError(thrown);
      if (!isStoreOutage(error) || options.signal.aborted) throw thrown;
      options.onFailure?.(error);
      await pause(backoffMs(failures, { baseMs: options.baseMs, capMs }), options.signal);
      if (options.signal.aborted) throw thrown;
    }
  }
}
