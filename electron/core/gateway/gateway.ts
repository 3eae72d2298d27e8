/**
 * The gateway daemon. On SQLite one runs per profile (a lease row, lease.ts); on PostgreSQL any number share the
 * profile's queue, on any hosts (Storage.membership). Jobs are durable `gateway_jobs` rows. Each scan queues a follow job
 * for every in-flight task; the gateway then claims as many due jobs as it has free slots (JobRepository.claimDue: on
 * PostgreSQL `FOR UPDATE SKIP LOCKED`, so two gateways never claim one job), each for `claimTtlMs` and renewed every
 * third of it while it runs (a dead gateway's jobs are due again once their claims expire). An idle gateway wakes
 * when a job is queued on any host (PostgreSQL's LISTEN/NOTIFY), when one of its jobs ends, and at every interval.
 * Subscriptions stay open until the task settles, polls run every interval. A broken stream or failed poll leaves the
 * job `retrying` with bounded backoff and jitter on the row. Operator jobs (`missive job start`) run on the same slots
 * (core/jobs/run.ts). Each job runs under its own abort signal, aborted when the gateway stops (one listener per job
 * on the gateway's signal would pass Node's limit of 10 at 11 jobs). SIGTERM stops cleanly.
 */
import { enterActor } from '../store/actor.js';
import { joinAsGateway } from './identity.js';
import { MissiveError, toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { isWireLimit } from '../a2a/wire-limits.js';
import { isOperatorKind, type JobRow } from '../store/rows/gateway-jobs.js';
import type { Storage } from '../store/storage.js';
import { runOperatorJob } from '../jobs/run.js';
import { backoffMs, pause, storeRetryCapMs } from '../jobs/backoff.js';
import { renewClaimWhileRunning } from '../jobs/claim-renewal.js';
import { watchStoreOutage } from '../store/outage.js';
import { jobKindFor, pollTask, subscribeTask, type FollowOutcome } from './follow.js';
import { gatewaysView } from './lease.js';
import { gatewayCore } from './auth-policy.js';
import { DEFAULT_GATEWAY_CONCURRENCY } from '../config/limits.js';

export interface GatewayOptions {
  once?: boolean;
  intervalMs?: number;
  maxAttempts?: number;
  concurrency?: number;
  /** This gateway's id (`gateway run --id`, checked by identity.ts `parseGatewayId`); default `<host>/<user>/gw<N>`. */
  id?: string;
  /**
   * How long a job's claim and the gateway's lease (or pool row) last without renewal (default 30 s, renewed every
   * third of it): a dead gateway's jobs, and its profile, are free this late.
   */
  claimTtlMs?: number;
  signal?: AbortSignal;
  /**
   * Each thing worth telling the operator, with the gateway's id (`gateway`). While the store is away, its failures
   * are one `store_away` record (then `store_back`), not one `gateway_error` per scan, job and renewal.
   */
  onRecord?: (kind: string, data: Record<string, unknown>, meta: { gateway: string }) => void;
}

const until = (ms: number) => new Date(Date.now() + ms).toISOString();

export async function runGateway(operatorCore: Core, options: GatewayOptions = {}) {
  // Every job and follow runs with the auth refs the gateway's operator allows ([gateway] job_auth_refs), no others.
  const core = gatewayCore(operatorCore);
  const storage = await core.storage();
  const { jobs } = storage;
  const ttl = Math.max(60, options.claimTtlMs ?? 30_000);
  // Its stable id (identity.ts): what its claims (locked_by) and, from here on, every event it journals name it by.
  const joined = await joinAsGateway(storage, core.config.profile, ttl, options.id);
  const { membership } = joined;
  const owner = enterActor({ id: joined.id });
  const interval = Math.max(50, options.intervalMs ?? 2000);
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_GATEWAY_CONCURRENCY);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort);
  const emit = (kind: string, data: Record<string, unknown>) => options.onRecord?.(kind, data, { gateway: owner });
  // The store going away is told once, and its coming back once (store/outage.ts); meanwhile the gateway tries it
  // again with bounded backoff and jitter instead of scanning (jobs/backoff.ts).
  const retryCapMs = storeRetryCapMs(interval);
  let releasedJobs = 0;
  const outage = watchStoreOutage({
    retryDelayMs: (failures) => backoffMs(failures, { baseMs: interval, capMs: retryCapMs }),
    away: (o) => emit('store_away', { ...o, retry_max_ms: retryCapMs }),
    back: (o) => emit('store_back', { ...o, released_jobs: releasedJobs, running_jobs: active.size }),
  });
  /** A store failure while it is away is counted, not recorded: one `store_away` line per outage, not one per scan. */
  const record = (kind: string, data: Record<string, unknown>) => {
    if (kind === 'gateway_error' && outage.failed(data.error)) return;
    emit(kind, data);
  };
  const event = (type: string, payload: Record<string, unknown>, about: { agentAlias?: string | null; taskId?: string | null } = {}) =>
    storage.journal.append({ type, source: 'gateway', agentAlias: about.agentAlias ?? null, taskId: about.taskId ?? null, payload });
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

  // Woken early (a job queued on any host, one of ours ended) rather than at the next interval; a wake that comes while
  // the gateway is busy claiming is kept for when it would sleep.
  let wake: (() => void) | undefined;
  let woken = false;
  const wakeUp = () => {
    woken = true;
    wake?.();
  };
  let stopListening: (() => Promise<void>) | undefined;
  const taken = membership.takenFrom
    ? { holder: membership.takenFrom.holder, pid: membership.takenFrom.pid, host: membership.takenFrom.host, expires_at: membership.takenFrom.expires_at }
    : null;
  // SQLite: the profile's lease is this gateway's alone, so whatever was still running was left by a dead one and is
  // due again. PostgreSQL: other gateways run those jobs; a dead one's are due again once their claims expire.
  const reclaimed = membership.reclaimed;
  try {
    stopListening = await storage.onJobQueued(wakeUp);
    await event('missive.gateway.started', {
      pid: process.pid,
      owner,
      host: membership.row.host,
      reclaimed_jobs: reclaimed,
      once: options.once === true,
      lease_taken_from: taken,
      store: storage.kind,
    });
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort);
    await stopListening?.().catch(() => undefined);
    await membership.release().catch(() => undefined);
    throw error;
  }
  record('gateway_started', {
    pid: process.pid,
    holder: owner,
    host: membership.row.host,
    lease_expires_at: membership.row.expires_at,
    reclaimed_jobs: reclaimed,
    lease_taken_from: taken,
    store: storage.kind,
  });

  // Renewed every third of its life; a lease another gateway took over (this one hung past its expiry) stops this one.
  let leaseLost = false;
  const renewal = setInterval(
    () => {
      // While the store is away the retries renew it (resumeAfterOutage).
      if (leaseLost || outage.away) return;
      membership.renew().then(
        (held) => {
          if (held || leaseLost) return;
          leaseLost = true;
          record('gateway_lease_lost', { holder: owner });
          stop.abort();
        },
        // A busy store: the next renewal tries again while the lease still runs.
        (error: unknown) => record('gateway_error', { error: toMissiveError(error).toReport() }),
      );
    },
    Math.max(20, Math.floor(ttl / 3)),
  );

  const scan = async () => {
    for (const t of await jobs.tasksNeedingJobs()) {
      try {
        const kind = await jobKindFor(core, t.agent_alias);
        await jobs.queueFollow({ kind, taskId: t.task_id, agentAlias: t.agent_alias, contextId: t.context_id, maxAttempts: options.maxAttempts ?? 50 });
      } catch (error) {
        record('gateway_error', { task_id: t.task_id, error: toMissiveError(error).toReport() });
      }
    }
  };

  const runOperator = async (job: JobRow) => {
    const end = await withJobSignal((signal) => runOperatorJob(core, job, { owner, signal, pollMs: interval, claimTtlMs: ttl, record }));
    if (end === 'gone') return;
    totals.jobs_started++;
    if (end === 'succeeded') totals.jobs_succeeded++;
    else if (end === 'failed') totals.jobs_failed++;
    else if (end === 'retrying') totals.retried++;
  };

  const runJob = async (job: JobRow) => {
    if (isOperatorKind(job.kind)) return runOperator(job);
    return runFollow(core, storage, job, { owner, ttl, interval, stop: stop.signal, withJobSignal, record, totals });
  };

  /** Claims as many jobs due by `dueBy` (default now) as there are free slots and starts them; how many. */
  const startDue = async (dueBy?: string) => {
    const free = concurrency - active.size;
    if (free <= 0 || stop.signal.aborted) return 0;
    const claimed = await jobs.claimDue(owner, until(ttl), free, dueBy);
    for (const job of claimed) {
      const work = runJob(job)
        .catch((error: unknown) => record('gateway_error', { job_id: job.job_id, error: toMissiveError(error).toReport() }))
        .finally(() => {
          active.delete(job.job_id);
          wakeUp();
        });
      active.set(job.job_id, work);
    }
    return claimed.length;
  };

  /**
   * Tries the store again after it went away: the pool row (or lease) renewed, or added again; the claims of the jobs
   * this gateway still runs renewed; the jobs it holds a claim on but no longer runs (their store writes failed in the
   * outage) made due now rather than when their claims expire; LISTEN again. True once all of that went through.
   */
  const resumeAfterOutage = async (): Promise<boolean> => {
    try {
      if (!(await membership.renew())) {
        leaseLost = true;
        emit('gateway_lease_lost', { holder: owner });
        stop.abort();
        return false;
      }
      const running = [...active.keys()];
      for (const jobId of running) await jobs.renewClaim(jobId, owner, until(ttl));
      releasedJobs = await jobs.releaseClaims(owner, running);
      await stopListening?.().catch(() => undefined);
      stopListening = undefined;
      stopListening = await storage.onJobQueued(wakeUp);
      outage.succeeded();
      return true;
    } catch (error) {
      record('gateway_error', { error: toMissiveError(error).toReport() });
      return false;
    }
  };

  try {
    if (options.once) {
      // Every job due now, once: a job retried meanwhile (a poll of a task still working) is due later, not again now.
      totals.scans++;
      await scan();
      const dueBy = new Date().toISOString();
      while (!stop.signal.aborted && ((await startDue(dueBy)) > 0 || active.size > 0)) await Promise.race(active.values());
    }
    let scanned = 0;
    while (!options.once && !stop.signal.aborted) {
      // The store went away: no scans, only tries of the store, further and further apart (bounded); once it is back,
      // the work it held resumes and the gateway scans at once.
      if (outage.away) {
        await pause(outage.nextRetryMs(), stop.signal);
        if (!stop.signal.aborted && (await resumeAfterOutage())) scanned = 0;
        woken = false;
        continue;
      }
      // A scan every interval; between scans, a woken gateway only claims. A store that fails (a shared database
      // restarting) opens an outage (above); any other failure is reported and tried again at the next turn.
      try {
        if (Date.now() - scanned >= interval) {
          totals.scans++;
          scanned = Date.now();
          await scan();
        }
        await startDue();
      } catch (error) {
        record('gateway_error', { error: toMissiveError(error).toReport() });
        woken = false;
      }
      if (woken) {
        woken = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          stop.signal.removeEventListener('abort', done);
          wake = undefined;
          woken = false;
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, interval - (Date.now() - scanned)));
        stop.signal.addEventListener('abort', done);
        wake = done;
      });
    }
  } finally {
    stop.abort();
    await Promise.allSettled(active.values());
    clearInterval(renewal);
    options.signal?.removeEventListener('abort', onAbort);
    await stopListening?.().catch(() => undefined);
    await event('missive.gateway.stopped', { ...totals, lease_lost: leaseLost }).catch(() => undefined);
    if (!leaseLost) await membership.release().catch(() => undefined);
  }
  if (leaseLost) {
    throw new MissiveError(
      'orchestration',
      'gateway_lease_lost',
      'another gateway took over this profile: this one stopped (it did not renew its lease in time)',
      {
        help: 'See `missive gateway status`. A gateway whose event loop stalls longer than --claim-ttl loses the profile.',
      },
    );
  }
  return { ...totals, jobs: await jobs.counts(), unfinished: (await jobs.unfinished()).length };
}

interface FollowContext {
  owner: string;
  ttl: number;
  interval: number;
  stop: AbortSignal;
  withJobSignal: <T>(fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  record: (kind: string, data: Record<string, unknown>) => void;
  totals: { jobs_started: number; settled: number; retried: number; failed: number };
}

/** Follows one claimed in-flight task (a subscription, or one poll) and records how it went. */
async function runFollow(core: Core, storage: Storage, job: JobRow, c: FollowContext): Promise<void> {
  const { jobs } = storage;
  const event = (type: string, payload: Record<string, unknown>) =>
    storage.journal.append({ type, source: 'gateway', agentAlias: job.agent_alias, taskId: job.task_id, payload });
  c.totals.jobs_started++;
  c.record('job_started', { job_id: job.job_id, kind: job.kind, task_id: job.task_id, attempt: job.retry_count + 1 });
  let outcome: FollowOutcome | null = null;
  let error: string | null = null;
  /** A subscription stopped at its bounds: following it again would take as much again (a2a/wire-limits.ts). */
  let final = false;
  const run = new AbortController();
  const renewal = renewClaimWhileRunning(
    jobs,
    { jobId: job.job_id, owner: c.owner, ttlMs: c.ttl },
    { lost: () => run.abort(), error: (e) => c.record('gateway_error', { job_id: job.job_id, error: e.toReport() }) },
  );
  try {
    outcome =
      job.kind === 'task_subscription'
        ? await c.withJobSignal((signal) => subscribeTask(core, job.agent_alias!, job.task_id, AbortSignal.any([signal, run.signal])))
        : await pollTask(core, job.agent_alias!, job.task_id);
  } catch (e) {
    error = c.stop.aborted ? 'gateway stopped' : toMissiveError(e).message;
    final = !c.stop.aborted && isWireLimit(toMissiveError(e));
  } finally {
    renewal.stop();
  }
  if (outcome?.settled) {
    if (!(await jobs.finish(job.job_id, 'succeeded', outcome, null, c.owner))) return;
    c.totals.settled++;
    await event('missive.gateway.job.succeeded', { job_id: job.job_id, state: outcome.state, events: outcome.events });
    c.record('job_settled', { job_id: job.job_id, task_id: job.task_id, state: outcome.state });
    return;
  }
  if (c.stop.aborted) {
    // Stopping is not a failure: the next gateway resumes the job at once.
    await jobs.retry(job.job_id, { error: 'gateway stopped', backoffMs: 0, nextRunAt: until(0), countAttempt: false }, c.owner);
    return;
  }
  const polling = job.kind === 'task_poll' && !error;
  const attempts = job.retry_count + (polling ? 0 : 1);
  if (!polling && (final || attempts >= job.max_attempts)) {
    if (!(await jobs.finish(job.job_id, 'failed', outcome, error, c.owner))) return;
    c.totals.failed++;
    await event('missive.gateway.job.failed', { job_id: job.job_id, attempts, error });
    c.record('job_failed', { job_id: job.job_id, task_id: job.task_id, error });
    return;
  }
  const delay = polling ? c.interval : backoffMs(attempts);
  if (
    !(await jobs.retry(
      job.job_id,
      {
        error: error ?? (polling ? null : 'the subscription closed before the task settled'),
        backoffMs: delay,
        nextRunAt: until(delay),
        countAttempt: !polling,
      },
      c.owner,
    ))
  )
    return;
  if (!polling) {
    c.totals.retried++;
    await event('missive.gateway.job.retrying', { job_id: job.job_id, attempt: attempts, backoff_ms: delay, error });
    c.record('job_retrying', { job_id: job.job_id, task_id: job.task_id, attempt: attempts, backoff_ms: delay, error });
  }
}

/** Whether a gateway runs for this profile (SQLite: the lease's holder; PostgreSQL: any gateway of the pool). */
const runningGateways = async (core: Core, storage: Storage) => gatewaysView(core.config.profile, await storage.gateways(core.config.profile));

export const gatewayRuns = async (core: Core): Promise<boolean> => (await runningGateways(core, await core.storage())).running;

/** Whether gateways run for this profile, which (PostgreSQL: the pool's), and the jobs. */
export async function gatewayStatus(core: Core) {
  const storage = await core.storage();
  return { ...(await runningGateways(core, storage)), jobs: await storage.jobs.counts(), unfinished: await storage.jobs.unfinished() };
}
