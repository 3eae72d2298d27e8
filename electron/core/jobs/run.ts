/**
 * The gateway's side of one operator job it has claimed for a while (`locked_until`): renew the claim while it runs,
 * execute it (execute.ts), then record how it ended: `succeeded` (exit code 0), `failed` (a task outcome other than
 * completed, a permanent error, or the last attempt), or `retrying` with backoff on the row. A claim that cannot be
 * renewed (the operator cancelled the job) aborts the execution; a gateway that stops leaves the job to the next one.
 */
import { MissiveError, toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { backoffMs } from './backoff.js';
import { renewClaimWhileRunning } from './claim-renewal.js';
import { isStoreOutage } from '../store/outage.js';
import { retryWhileStoreAway } from './store-retry.js';
import { jobRowOf, type JobRow, type StoredJob } from '../store/rows/gateway-jobs.js';
import type { Storage } from '../store/storage.js';
import { DeferredResult, executeJob, isPermanent, notActedOn, wasDispatched, type JobResult } from './execute.js';
import { jobTrail } from './job-trail.js';
import { jobCall, journal } from '../store/steps.js';

export interface OperatorRunOptions {
  /** Who claimed it (the gateway's owner id). */
  owner: string;
  /** The gateway stopping: the job goes back to the queue, its attempt not counted. */
  signal: AbortSignal;
  /** GetTask interval while a job waits on its task. */
  pollMs: number;
  /** How long a claim lasts without renewal; renewed every third of it. A gateway that dies loses it this late. */
  claimTtlMs: number;
  record: (kind: string, data: Record<string, unknown>) => void;
}

export type OperatorRunEnd = 'succeeded' | 'failed' | 'retrying' | 'cancelled' | 'stopped' | 'gone';

const until = (ms: number) => new Date(Date.now() + ms).toISOString();

/** A failure as stored in `result_json`: what `job show` prints and `--attach` exits with. */
const failure = (error: MissiveError): JobResult => ({ outcome: 'error', exit_code: error.exitCode, error: error.toReport() });

/** A claimed row that holds what the run needs (JobRepository.claimDue returns them so): nothing more to read. */
const isStored = (row: JobRow): row is StoredJob => typeof (row as Partial<StoredJob>).request_json === 'string';

/**
 * Runs one operator job this gateway has claimed (JobRepository.claimDue). Throws only when the store fails; the
 * claim then expires and another gateway (or this one, later) takes the job up again.
 *
 * Each phase of the run is one write (Storage.write, one transaction): the attempt event waits for the job's first
 * write (job-trail.ts), and the job ends in one (its result, its last event, and for a send the answer's rows:
 * execute.ts's DeferredResult).
 */
export async function runOperatorJob(core: Core, claimed: JobRow, options: OperatorRunOptions): Promise<OperatorRunEnd> {
  const storage = await core.storage();
  const { jobs } = storage;
  const { owner } = options;
  const job = isStored(claimed) ? jobRowOf(claimed) : await jobs.getOperator(claimed.job_id);
  if (!job) return 'gone';
  const trail = jobTrail(job, [
    { type: 'attempt', payload: { attempt: job.attempts, max_attempts: job.max_attempts, resumed: job.target_task_id !== null || wasDispatched(job) } },
  ]);
  options.record('job_started', { job_id: job.job_id, kind: job.kind, attempt: job.attempts });

  const run = new AbortController();
  const stopRun = () => run.abort();
  options.signal.addEventListener('abort', stopRun, { once: true });
  let lost = false;
  const renewal = renewClaimWhileRunning(
    jobs,
    { jobId: job.job_id, owner, ttlMs: options.claimTtlMs },
    {
      lost: () => {
        lost = true;
        run.abort();
      },
      error: (error) => options.record('gateway_error', { job_id: job.job_id, error: error.toReport() }),
    },
  );
  try {
    const executed = await executeJob(core, job, { signal: run.signal, pollMs: options.pollMs, trail });
    // One write ends the job: what the execution left to write (a send's answer), its result, its last event.
    // The agent has answered: a store that went away meanwhile is waited for (the job stays this gateway's, its
    // claim renewed once the store is back), rather than the answer lost and the job failed as unconfirmed.
    const ended = await retryWhileStoreAway(
      () =>
        trail.write(
          storage,
          function* () {
            const result = executed instanceof DeferredResult ? yield* executed.commit() : executed;
            const state: 'succeeded' | 'failed' = result.exit_code === 0 ? 'succeeded' : 'failed';
            if (!(yield* jobCall('finish', job.job_id, state, result, state === 'failed' ? `ended ${result.outcome}` : null, owner))) return null;
            yield* journal(trail.event(state, { outcome: result.outcome, exit_code: result.exit_code, task_id: result.task_id ?? null }));
            return { state, result };
          },
          'group',
        ),
      {
        signal: options.signal,
        baseMs: options.pollMs,
        onFailure: (error) => options.record('gateway_error', { job_id: job.job_id, error: error.toReport() }),
      },
    );
    if (!ended) return 'cancelled';
    options.record(`job_${ended.state}`, { job_id: job.job_id, outcome: ended.result.outcome, exit_code: ended.result.exit_code });
    return ended.state;
  } catch (thrown) {
    const error = toMissiveError(thrown);
    if (lost) {
      await trail.flushNow(storage);
      return 'cancelled';
    }
    if (options.signal.aborted) {
      // Stopping is not a failure: the next gateway resumes the job at once, this attempt not counted.
      await trail.write(storage, function* () {
        yield* jobCall('retry', job.job_id, { error: 'gateway stopped', backoffMs: 0, nextRunAt: until(0), countAttempt: false }, owner);
      });
      return 'stopped';
    }
    // The store failed under the job (an outage): that says nothing of the agent, so the job is neither failed nor
    // retried. It stays claimed; the gateway makes it due again as soon as the store is back (runGateway), its claim
    // expiring otherwise.
    if (isStoreOutage(error)) throw error;
    // A request that may have reached the agent is never sent again (at most once): only a refused one is retried.
    const mayHaveArrived = !isPermanent(error) && (await wasDispatchedNow(storage, job.job_id)) && !notActedOn(error);
    if (isPermanent(error) || mayHaveArrived || job.attempts >= job.max_attempts) {
      const final = mayHaveArrived ? withUnconfirmedHelp(error) : error;
      const failed = await trail.write(storage, function* () {
        if (!(yield* jobCall('finish', job.job_id, 'failed', failure(final), final.message, owner))) return false;
        yield* journal(trail.event('failed', { attempt: job.attempts, error: final.toReport() }));
        return true;
      });
      if (!failed) return 'cancelled';
      options.record('job_failed', { job_id: job.job_id, error: final.toReport() });
      return 'failed';
    }
    const delay = backoffMs(job.attempts);
    // The mark cleared and the attempt counted together: a row not marked and never retried has sent nothing.
    const retrying = await trail.write(storage, function* () {
      yield* jobCall('clearDispatched', job.job_id);
      if (!(yield* jobCall('retry', job.job_id, { error: error.message, backoffMs: delay, nextRunAt: until(delay), countAttempt: true }, owner))) return false;
      yield* journal(trail.event('retrying', { attempt: job.attempts, backoff_ms: delay, error: error.toReport() }));
      return true;
    });
    if (!retrying) return 'cancelled';
    options.record('job_retrying', { job_id: job.job_id, attempt: job.attempts, backoff_ms: delay, error: error.message });
    return 'retrying';
  } finally {
    renewal.stop();
    options.signal.removeEventListener('abort', stopRun);
  }
}

/** Whether the row still says the request went out (execute.ts marks it before sending). */
async function wasDispatchedNow(storage: Storage, jobId: string): Promise<boolean> {
  const row = await storage.jobs.getOperator(jobId);
  return row !== undefined && wasDispatched(row);
}

/** An error after which the request may have reached the agent: not retried, and the help says why. */
function withUnconfirmedHelp(error: MissiveError): MissiveError {
  return new MissiveError(error.category, error.code.split('::').at(-1)!, error.message, {
    exitCode: error.exitCode,
    help: `${error.help ? `${error.help} ` : ''}The request may have reached the agent, so the job is not retried (at most once): check \`missive history\` or \`missive task list\`, then start it again if it did not arrive.`,
  });
}
