/**
 * Waits for a set of operator jobs the gateways run (a fan-out through the queue): polls which of them ended, hands
 * each to `onEnded` once, as it ends, and stops at the deadline. The polls start fast and back off to `maxPollMs`
 * while nothing ends (any ending makes them fast again), so a thousand jobs cost one query per poll, not one each.
 */
import type { StoredJob } from '../store/rows/gateway-jobs.js';
import type { JobRepository } from '../store/storage.js';

export interface AwaitJobsOptions {
  /** Epoch ms after which the jobs still running are returned unfinished. */
  deadline: number;
  onEnded: (job: StoredJob) => Promise<void> | void;
  maxPollMs?: number;
}

const FIRST_POLL_MS = 20;

/** Resolves with the ids of the jobs that had not ended by the deadline (none when all ended). */
export async function awaitJobs(jobs: JobRepository, ids: readonly string[], options: AwaitJobsOptions): Promise<string[]> {
  const pending = new Set(ids);
  const maxPoll = options.maxPollMs ?? 500;
  let pause = FIRST_POLL_MS;
  while (pending.size > 0) {
    const ended = await jobs.endedAmong([...pending]);
    for (const job of ended) {
      pending.delete(job.job_id);
      await options.onEnded(job);
    }
    const left = options.deadline - Date.now();
    if (pending.size === 0 || left <= 0) break;
    pause = ended.length > 0 ? FIRST_POLL_MS : Math.min(pause * 2, maxPoll);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
  return [...pending];
}
