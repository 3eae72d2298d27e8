/**
 * The gateway daemon: one per profile (lock file), durable `gateway_jobs` rows. Each scan queues a job for every
 * local in-flight task; due jobs run concurrently: subscriptions stay open until the task settles, polls run every
 * interval. A broken stream or failed poll leaves the job `retrying` with bounded backoff and jitter on the row;
 * a restart reclaims whatever a killed gateway left running. Operator jobs (`missive job start`) run on the same
 * bounded pool (core/jobs/run.ts): claimed for `claimTtlMs` at a time and renewed while they run. SIGTERM stops cleanly.
 */
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import { nowIso } from '../store/db.js';
import { appendEvent } from '../store/repos/events.js';
import { claimJob, dueJobs, finishJob, isOperatorKind, jobCounts, queueJob, reclaimOrphans, retryJob, tasksNeedingJobs, unfinishedJobs, type JobRow } from '../store/repos/gateway-jobs.js';
import { runOperatorJob } from '../jobs/run.js';
import { backoffMs } from '../jobs/backoff.js';
import { jobKindFor, pollTask, subscribeTask, type FollowOutcome } from './follow.js';
import { acquireLock, isAlive, readLock } from './lock.js';

export interface GatewayOptions {
  once?: boolean;
  intervalMs?: number;
  maxAttempts?: number;
  concurrency?: number;
  /** How long an operator job's claim lasts without renewal (default 30 s): a dead gateway's jobs are free this late. */
  claimTtlMs?: number;
  signal?: AbortSignal;
  onRecord?: (kind: string, data: Record<string, unknown>) => void;
}

export const lockPath = (core: Core) => join(dirname(core.paths.database), 'gateway.lock');

export async function runGateway(core: Core, options: GatewayOptions = {}) {
  const lock = acquireLock(lockPath(core));
  const owner = `gateway:${process.pid}:${randomUUID().slice(0, 8)}`;
  const interval = Math.max(50, options.intervalMs ?? 2000);
  const limit = pLimit(Math.max(1, options.concurrency ?? 16));
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort);
  const db = core.store().db;
  const record = (kind: string, data: Record<string, unknown>) => options.onRecord?.(kind, data);
  const active = new Map<string, Promise<void>>();
  const totals = { scans: 0, jobs_started: 0, settled: 0, retried: 0, failed: 0, jobs_succeeded: 0, jobs_failed: 0 };

  const reclaimed = reclaimOrphans(db);
  appendEvent(db, { type: 'missive.gateway.started', source: 'gateway', payload: { pid: process.pid, owner, reclaimed_jobs: reclaimed, once: options.once === true } });
  record('gateway_started', { pid: process.pid, lock: lockPath(core), reclaimed_jobs: reclaimed });

  const scan = async () => {
    for (const t of tasksNeedingJobs(db)) {
      try {
        const kind = await jobKindFor(core, t.agent_alias);
        queueJob(db, { kind, taskId: t.task_id, agentAlias: t.agent_alias, contextId: t.context_id, maxAttempts: options.maxAttempts ?? 50 });
      } catch (error) {
        record('gateway_error', { task_id: t.task_id, error: toMissiveError(error).toReport() });
      }
    }
  };

  const runOperator = async (job: JobRow) => {
    const end = await runOperatorJob(core, job, { owner, signal: stop.signal, pollMs: interval, claimTtlMs: Math.max(60, options.claimTtlMs ?? 30_000), record });
    if (end === 'not_claimed') return;
    totals.jobs_started++;
    if (end === 'succeeded') totals.jobs_succeeded++;
    else if (end === 'failed') totals.jobs_failed++;
    else if (end === 'retrying') totals.retried++;
  };

  const runJob = async (job: JobRow) => {
    if (isOperatorKind(job.kind)) return runOperator(job);
    if (!claimJob(db, job.job_id, owner)) return;
    totals.jobs_started++;
    record('job_started', { job_id: job.job_id, kind: job.kind, task_id: job.task_id, attempt: job.retry_count + 1 });
    let outcome: FollowOutcome | null = null;
    let error: string | null = null;
    try {
      outcome = job.kind === 'task_subscription' ? await subscribeTask(core, job.agent_alias!, job.task_id, stop.signal) : await pollTask(core, job.agent_alias!, job.task_id);
    } catch (e) {
      error = stop.signal.aborted ? 'gateway stopped' : toMissiveError(e).message;
    }
    if (outcome?.settled) {
      finishJob(db, job.job_id, 'succeeded', outcome);
      totals.settled++;
      appendEvent(db, { type: 'missive.gateway.job.succeeded', source: 'gateway', agentAlias: job.agent_alias, taskId: job.task_id, payload: { job_id: job.job_id, state: outcome.state, events: outcome.events } });
      record('job_settled', { job_id: job.job_id, task_id: job.task_id, state: outcome.state });
      return;
    }
    if (stop.signal.aborted) {
      // Stopping is not a failure: the next gateway resumes the job at once.
      retryJob(db, job.job_id, { error: 'gateway stopped', backoffMs: 0, nextRunAt: nowIso(), countAttempt: false });
      return;
    }
    const polling = job.kind === 'task_poll' && !error;
    const attempts = job.retry_count + (polling ? 0 : 1);
    if (!polling && attempts >= job.max_attempts) {
      finishJob(db, job.job_id, 'failed', outcome, error);
      totals.failed++;
      appendEvent(db, { type: 'missive.gateway.job.failed', source: 'gateway', agentAlias: job.agent_alias, taskId: job.task_id, payload: { job_id: job.job_id, attempts, error } });
      record('job_failed', { job_id: job.job_id, task_id: job.task_id, error });
      return;
    }
    const delay = polling ? interval : backoffMs(attempts);
    retryJob(db, job.job_id, { error: error ?? (polling ? null : 'the subscription closed before the task settled'), backoffMs: delay, nextRunAt: new Date(Date.now() + delay).toISOString(), countAttempt: !polling });
    if (!polling) {
      totals.retried++;
      appendEvent(db, { type: 'missive.gateway.job.retrying', source: 'gateway', agentAlias: job.agent_alias, taskId: job.task_id, payload: { job_id: job.job_id, attempt: attempts, backoff_ms: delay, error } });
      record('job_retrying', { job_id: job.job_id, task_id: job.task_id, attempt: attempts, backoff_ms: delay, error });
    }
  };

  const startDue = () => {
    for (const job of dueJobs(db, nowIso())) {
      if (active.has(job.job_id)) continue;
      const work = limit(() => runJob(job)).finally(() => active.delete(job.job_id));
      active.set(job.job_id, work);
    }
  };

  try {
    while (!stop.signal.aborted) {
      totals.scans++;
      await scan();
      startDue();
      if (options.once) {
        await Promise.all(active.values());
        break;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          stop.signal.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, interval);
        stop.signal.addEventListener('abort', wake);
      });
    }
  } finally {
    stop.abort();
    await Promise.allSettled(active.values());
    options.signal?.removeEventListener('abort', onAbort);
    appendEvent(db, { type: 'missive.gateway.stopped', source: 'gateway', payload: { ...totals } });
    lock.release();
  }
  return { ...totals, jobs: jobCounts(db), unfinished: unfinishedJobs(db).length };
}

export function gatewayStatus(core: Core) {
  const holder = readLock(lockPath(core));
  const db = core.store().db;
  return {
    running: holder !== null && isAlive(holder.pid),
    lock: holder ? { ...holder, alive: isAlive(holder.pid), path: lockPath(core) } : null,
    jobs: jobCounts(db),
    unfinished: unfinishedJobs(db),
  };
}

