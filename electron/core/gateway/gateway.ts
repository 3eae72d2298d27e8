/**
 * The gateway daemon: one per profile (a lease row, lease.ts), durable `gateway_jobs` rows. Each scan queues a job for every
 * local in-flight task; due jobs run concurrently: subscriptions stay open until the task settles, polls run every
 * interval. A broken stream or failed poll leaves the job `retrying` with bounded backoff and jitter on the row;
 * a restart reclaims whatever a killed gateway left running. Operator jobs (`missive job start`) run on the same
 * bounded pool (core/jobs/run.ts): claimed for `claimTtlMs` at a time and renewed while they run; the profile's lease
 * lasts as long and is renewed as often. Each job runs under its own abort signal, aborted when the gateway stops (one
 * listener per job on the gateway's signal would pass Node's limit of 10 at 11 jobs). SIGTERM stops cleanly.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { MissiveError, toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import { nowIso } from '../store/db.js';
import { appendEvent } from '../store/repos/events.js';
import { claimJob, dueJobs, finishJob, isOperatorKind, jobCounts, queueJob, reclaimOrphans, retryJob, tasksNeedingJobs, unfinishedJobs, type JobRow } from '../store/repos/gateway-jobs.js';
import { runOperatorJob } from '../jobs/run.js';
import { backoffMs } from '../jobs/backoff.js';
import { jobKindFor, pollTask, subscribeTask, type FollowOutcome } from './follow.js';
import { acquireLease, leaseStatus } from './lease.js';

export interface GatewayOptions {
  once?: boolean;
  intervalMs?: number;
  maxAttempts?: number;
  concurrency?: number;
  /**
   * How long an operator job's claim and the profile's lease last without renewal (default 30 s, renewed every third
   * of it): a dead gateway's jobs, and its profile, are free this late.
   */
  claimTtlMs?: number;
  signal?: AbortSignal;
  onRecord?: (kind: string, data: Record<string, unknown>) => void;
}

export async function runGateway(core: Core, options: GatewayOptions = {}) {
  const owner = `gateway:${process.pid}:${randomUUID().slice(0, 8)}`;
  const ttl = Math.max(60, options.claimTtlMs ?? 30_000);
  const lease = acquireLease(core, { holder: owner, ttlMs: ttl });
  const interval = Math.max(50, options.intervalMs ?? 2000);
  const limit = pLimit(Math.max(1, options.concurrency ?? 16));
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort);
  const db = core.store().db;
  const record = (kind: string, data: Record<string, unknown>) => options.onRecord?.(kind, data);
  const active = new Map<string, Promise<void>>();
  const totals = { scans: 0, jobs_started: 0, settled: 0, retried: 0, failed: 0, jobs_succeeded: 0, jobs_failed: 0 };

  // Every running job's own signal: the gateway's stop aborts them all with one listener.
  const jobSignals = new Set<AbortController>();
  stop.signal.addEventListener('abort', () => jobSignals.forEach((c) => c.abort()), { once: true });
  const withJobSignal = async <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    if (stop.signal.aborted) controller.abort();
    jobSignals.add(controller);
    try {
      return await fn(controller.signal);
    } finally {
      jobSignals.delete(controller);
    }
  };

  const taken = lease.takenFrom ? { holder: lease.takenFrom.holder, pid: lease.takenFrom.pid, host: lease.takenFrom.host, expires_at: lease.takenFrom.expires_at } : null;
  let reclaimed: number;
  try {
    reclaimed = reclaimOrphans(db);
    appendEvent(db, { type: 'missive.gateway.started', source: 'gateway', payload: { pid: process.pid, owner, host: lease.row.host, reclaimed_jobs: reclaimed, once: options.once === true, lease_taken_from: taken } });
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort);
    lease.release();
    throw error;
  }
  record('gateway_started', { pid: process.pid, holder: owner, host: lease.row.host, lease_expires_at: lease.row.expires_at, reclaimed_jobs: reclaimed, lease_taken_from: taken });

  // Renewed every third of its life; a lease another gateway took over (this one hung past its expiry) stops this one.
  let leaseLost = false;
  const renewal = setInterval(() => {
    if (leaseLost) return;
    try {
      if (lease.renew()) return;
      leaseLost = true;
      record('gateway_lease_lost', { holder: owner });
      stop.abort();
    } catch (error) {
      // A busy store: the next renewal tries again while the lease still runs.
      record('gateway_error', { error: toMissiveError(error).toReport() });
    }
  }, Math.max(20, Math.floor(ttl / 3)));

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
    const end = await withJobSignal((signal) => runOperatorJob(core, job, { owner, signal, pollMs: interval, claimTtlMs: ttl, record }));
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
      outcome = job.kind === 'task_subscription' ? await withJobSignal((signal) => subscribeTask(core, job.agent_alias!, job.task_id, signal)) : await pollTask(core, job.agent_alias!, job.task_id);
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
    clearInterval(renewal);
    options.signal?.removeEventListener('abort', onAbort);
    appendEvent(db, { type: 'missive.gateway.stopped', source: 'gateway', payload: { ...totals, lease_lost: leaseLost } });
    if (!leaseLost) lease.release();
  }
  if (leaseLost) {
    throw new MissiveError('orchestration', 'gateway_lease_lost', 'another gateway took over this profile: this one stopped (it did not renew its lease in time)', {
      help: 'See `missive gateway status`. A gateway whose event loop stalls longer than --claim-ttl loses the profile.',
    });
  }
  return { ...totals, jobs: jobCounts(db), unfinished: unfinishedJobs(db).length };
}

/** Whether a gateway holds this profile (its lease), and the jobs. */
export function gatewayStatus(core: Core) {
  const db = core.store().db;
  return { ...leaseStatus(core), jobs: jobCounts(db), unfinished: unfinishedJobs(db) };
}

