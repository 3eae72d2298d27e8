/**
 * Following one operator job until it finishes (`missive job start … --attach`, `missive job wait`): the row is read
 * again every interval, each change of state, attempt or task is reported, and the final view is returned. Following
 * never changes the job: when the signal aborts or the deadline passes, the gateway keeps executing it.
 */
import { CATEGORY_EXIT_CODES, MissiveError, OUTCOME_EXIT_CODES, type ErrorCategory, type ErrorReport } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { JobState } from '../store/rows/gateway-jobs.js';
import { showJob, type JobView } from './queue.js';
import { pause } from './backoff.js';

export const FINISHED_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];
export const isFinished = (state: JobState) => FINISHED_STATES.includes(state);

export interface AttachOptions {
  /** Stops following (Ctrl-C): the result says `stopped: 'signal'`. */
  signal?: AbortSignal;
  /** Epoch ms after which following stops (`--timeout`): the result says `stopped: 'deadline'`. */
  deadline?: number;
  /** How often the row is read (default 200 ms, at least 20). */
  intervalMs?: number;
  /** Called with the first view and after each change of state, attempts, task or claim holder. */
  onChange?: (job: JobView, previous: JobView | null) => void;
}

export interface AttachResult {
  job: JobView;
  /** The job reached succeeded, failed or cancelled. */
  finished: boolean;
  /** Why following ended before the job did. */
  stopped: 'signal' | 'deadline' | null;
}

const changed = (a: JobView, b: JobView) => a.state !== b.state || a.attempts !== b.attempts || a.task_id !== b.task_id || a.locked_by !== b.locked_by;

/** Follows job `id` (a full id or an unambiguous prefix) until it finishes, the signal aborts or the deadline passes. */
export async function attachJob(core: Core, id: string, options: AttachOptions = {}): Promise<AttachResult> {
  const interval = Math.max(20, options.intervalMs ?? 200);
  let job = await showJob(core, id);
  options.onChange?.(job, null);
  for (;;) {
    if (isFinished(job.state)) return { job, finished: true, stopped: null };
    if (options.signal?.aborted) return { job, finished: false, stopped: 'signal' };
    const now = Date.now();
    if (options.deadline !== undefined && now >= options.deadline) return { job, finished: false, stopped: 'deadline' };
    await pause(options.deadline === undefined ? interval : Math.min(interval, options.deadline - now), options.signal);
    const next = await showJob(core, job.job_id);
    if (changed(job, next)) options.onChange?.(next, job);
    job = next;
  }
}

/** The error report an execution stored with its result when it failed with an error (run.ts: `result.error`). */
function storedError(job: JobView): ErrorReport | null {
  const error = job.result?.error as Partial<ErrorReport> | undefined;
  return error && typeof error.code === 'string' && typeof error.message === 'string' && typeof error.category === 'string' ? (error as ErrorReport) : null;
}

/**
 * The exit code of a finished job: its recorded `exit_code` (0, a task outcome 80–85, or its error's), else the
 * recorded error's, else 81 for a cancelled job, 70 for a failed one and 0 for a succeeded one.
 */
export function jobExitCode(job: JobView): number {
  if (job.exit_code !== null) return job.exit_code;
  const error = storedError(job);
  if (error) return error.exit_code;
  if (job.state === 'cancelled') return OUTCOME_EXIT_CODES.cancelled;
  return job.state === 'failed' ? 70 : 0;
}

/**
 * The error a non-zero job exit is reported with on stderr, or null for exit 0: the execution's own error (same code,
 * category, message and help) when it failed with one, else the job's outcome.
 */
export function jobError(job: JobView): MissiveError | null {
  const exitCode = jobExitCode(job);
  if (exitCode === 0) return null;
  const see = `See \`missive job show ${job.job_id}\`${job.task_id ? ` and \`missive task get ${job.task_id}\`` : ''}.`;
  const stored = storedError(job);
  if (stored) {
    const message = stored.message.startsWith(`${stored.category} error: `) ? stored.message.slice(stored.category.length + 8) : stored.message;
    const category = (stored.category in CATEGORY_EXIT_CODES ? stored.category : 'orchestration') as ErrorCategory;
    return new MissiveError(category, stored.code.split('::').at(-1)!, `job ${job.job_id} failed after ${job.attempts} attempt(s): ${message}`, {
      help: stored.help ?? see,
      exitCode,
    });
  }
  if (job.state === 'cancelled')
    return new MissiveError('orchestration', 'job_cancelled', `job ${job.job_id} was cancelled${job.last_error ? ` (${job.last_error})` : ''}`, {
      help: see,
      exitCode,
    });
  if (job.task_id)
    return new MissiveError('orchestration', 'job_outcome', `job ${job.job_id}: task ${job.task_id} ended ${job.outcome ?? job.state}`, {
      help: see,
      exitCode,
    });
  return new MissiveError('orchestration', 'job_failed', `job ${job.job_id} ${job.state}: ${job.last_error ?? job.outcome ?? 'no error recorded'}`, {
    help: see,
    exitCode,
  });
}

/** The error of a follow that ended before the job did (the job keeps running in the gateway). */
export function attachStoppedError(result: AttachResult): MissiveError {
  const { job } = result;
  return new MissiveError('orchestration', 'job_attach_timeout', `job ${job.job_id} is still ${job.state}; it keeps running in the gateway`, {
    help: `Follow it again with \`missive job wait ${job.job_id}\`, or see \`missive job show ${job.job_id}\`.`,
    exitCode: OUTCOME_EXIT_CODES.timeout,
  });
}
