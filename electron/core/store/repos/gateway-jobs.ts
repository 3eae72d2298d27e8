/**
 * Durable gateway jobs. Follow jobs (`task_subscription`, `task_poll`): one per (kind, task). Operator jobs (`send`,
 * `stream`, `wait`, `reduce`, `bcast`, from `missive job start`): a request, a public summary, the target task once
 * known, attempts, whether its request left (`dispatched`, with the message id it left under). Every row carries its
 * claim (`locked_by` + `locked_until`), retry count, backoff and next run time.
 *
 * node:crypto (a follow job's id) is loaded when first used: the storage interface over SQLite loads this module for
 * every command, and `agent list` needs no crypto (test/integration/cli-start.test.ts).
 */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { jobRowOf, type FollowKind, type JobRow, type JobState, type NewOperatorJob, type StoredJob } from '../rows/gateway-jobs.js';
import {
  finishParams,
  idPrefix,
  insertOperatorParams,
  insertOperators,
  OPERATOR_INSERT_BATCH,
  JOBS,
  OPERATOR_COLUMNS,
  OPERATOR_IN,
  queueFollowParams,
  retryParams,
} from '../statements/gateway-jobs.js';
import type { WithDb } from '../repository-forms.js';
import type { JobRepository } from '../storage.js';

/** A running claim whose expiry passed: its gateway died or stalled, another may take the job. */
const EXPIRED = `(state = 'running' AND locked_until IS NOT NULL AND locked_until <= ?)`;

/** In-flight local tasks without an unfinished job (statements/gateway-jobs.ts). */
export const tasksNeedingJobs = (db: Db) =>
  db.prepare(JOBS.tasksNeedingJobs.sqlite).all() as Array<{ task_id: string; agent_alias: string; context_id: string | null }>;

export function queueJob(db: Db, j: { kind: FollowKind; taskId: string; agentAlias: string; contextId: string | null; maxAttempts: number }): void {
  db.prepare(JOBS.queueFollow.sqlite).run(...queueFollowParams(process.getBuiltinModule('node:crypto').randomUUID(), j, nowIso()));
}

/**
 * Takes a due job for `owner` until `lockedUntil`; false when another gateway has it. An operator job's attempt is
 * its failed attempts plus one: an execution that was interrupted (the gateway stopped or was killed, its claim
 * expired) resumes under the number it had, so `attempts` never passes `max_attempts`.
 */
export function claimJob(db: Db, jobId: string, owner: string, lockedUntil: string | null = null): boolean {
  const now = nowIso();
  return (
    db
      .prepare(
        `UPDATE gateway_jobs SET state = 'running', locked_by = ?, locked_until = ?, attempts = CASE WHEN kind IN ${OPERATOR_IN} THEN retry_count + 1 ELSE attempts + 1 END, updated_at = ?
         WHERE job_id = ? AND (state IN ('queued','retrying') OR ${EXPIRED})`,
      )
      .run(owner, lockedUntil, now, jobId, now).changes === 1
  );
}

/**
 * Claims up to `limit` due jobs (oldest due first: queued and retrying ones due by `dueBy`, default now, and running ones whose claim expired) for `owner` until `lockedUntil`, each as claimJob claims it, in one
 * IMMEDIATE transaction: no other connection writes between the read and the claims, so two gateways claiming at once
 * never get the same job. The claimed rows as they are now (state running, attempts counted), oldest due first.
 */
export function claimDueJobs(db: Db, owner: string, lockedUntil: string, limit: number, dueBy?: string): StoredJob[] {
  return db
    .transaction(() => {
      const now = nowIso();
      const due = db
        .prepare(
          `SELECT job_id FROM gateway_jobs WHERE (state IN ('queued','retrying') AND (next_run_at IS NULL OR next_run_at <= ?)) OR ${EXPIRED} ORDER BY next_run_at, job_id LIMIT ?`,
        )
        .all(dueBy ?? now, now, limit) as Array<{ job_id: string }>;
      const read = db.prepare(`SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id = ?`);
      return due.filter((j) => claimJob(db, j.job_id, owner, lockedUntil)).map((j) => read.get(j.job_id) as StoredJob);
    })
    .immediate();
}

/** Extends `owner`'s claim; false when the job is no longer its own running job (cancelled, or taken over). */
export const renewClaim = (db: Db, jobId: string, owner: string, lockedUntil: string): boolean =>
  db.prepare(JOBS.renewClaim.sqlite).run(lockedUntil, nowIso(), jobId, owner).changes === 1;

export function finishJob(
  db: Db,
  jobId: string,
  state: 'succeeded' | 'failed' | 'cancelled',
  result: unknown,
  error: string | null = null,
  owner: string | null = null,
): boolean {
  return db.prepare(JOBS.finish.sqlite).run(...finishParams(jobId, state, result, error, owner, nowIso())).changes === 1;
}

export function retryJob(
  db: Db,
  jobId: string,
  r: { error: string | null; backoffMs: number; nextRunAt: string; countAttempt: boolean },
  owner: string | null = null,
): boolean {
  return db.prepare(JOBS.retry.sqlite).run(...retryParams(jobId, r, owner, nowIso())).changes === 1;
}

/** Records an operator job, queued to run at once. */
export function insertOperatorJob(db: Db, j: NewOperatorJob): void {
  db.prepare(JOBS.insertOperator.sqlite).run(...insertOperatorParams(j, nowIso()));
}

/** Records many operator jobs, queued to run at once, in multi-row INSERTs (the caller's transaction makes them one commit). */
export function insertOperatorJobs(db: Db, list: readonly NewOperatorJob[]): void {
  const now = nowIso();
  for (let i = 0; i < list.length; i += OPERATOR_INSERT_BATCH) {
    const batch = list.slice(i, i + OPERATOR_INSERT_BATCH);
    db.prepare(insertOperators(batch.length).sqlite).run(...batch.flatMap((j) => insertOperatorParams(j, now)));
  }
}

/** The operator jobs whose id is `id` or starts with it (a short id from `job list`). */
export const findOperatorJobs = (db: Db, id: string) => (db.prepare(JOBS.findOperator.sqlite).all(idPrefix(id)) as StoredJob[]).map(jobRowOf);

export const getOperatorJob = (db: Db, jobId: string): StoredJob | undefined => {
  const row = db.prepare(JOBS.getOperator.sqlite).get(jobId) as StoredJob | undefined;
  return row && jobRowOf(row);
};

/** Operator jobs, newest first, optionally in one state. */
export const listOperatorJobs = (db: Db, o: { state?: JobState; limit: number }) =>
  db
    .prepare(JOBS.listOperator.sqlite)
    .all(o.state ?? null, o.state ?? null, o.limit)
    .map((row) => jobRowOf(row as Omit<StoredJob, 'request_json'>));

/** The task a job works on, recorded before it waits so a restarted gateway resumes instead of sending again. */
export const setTargetTask = (db: Db, jobId: string, taskId: string, contextId: string | null): void =>
  void db.prepare(JOBS.setTargetTask.sqlite).run(taskId, contextId, nowIso(), jobId);

/** Marks the job's request as out (before it is sent), under `messageId` when it has one. */
export const markDispatched = (db: Db, jobId: string, messageId: string | null = null): void =>
  void db.prepare(JOBS.markDispatched.sqlite).run(messageId, nowIso(), jobId);

/** Clears the mark: the request provably did not reach the agent, the next attempt sends again (as a new message). */
export const clearDispatched = (db: Db, jobId: string): void => void db.prepare(JOBS.clearDispatched.sqlite).run(nowIso(), jobId);

/**
 * Cancels an unfinished job (`unclaimed`: only one no gateway holds now, queued or retrying); false when it had already finished
 * (or was claimed). A running job's gateway sees it and stops.
 */
export const cancelJobRow = (db: Db, jobId: string, options: { unclaimed?: boolean } = {}): boolean => {
  const now = nowIso();
  return db.prepare((options.unclaimed ? JOBS.cancelUnclaimed : JOBS.cancel).sqlite).run(now, now, jobId).changes === 1;
};

/** Those of `jobIds` that ended (succeeded, failed or cancelled), with their results. */
export const endedJobsAmong = (db: Db, jobIds: readonly string[]): StoredJob[] =>
  db
    .prepare(
      `SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id IN (SELECT value FROM json_each(?)) AND state IN ('succeeded','failed','cancelled')`,
    )
    .all(JSON.stringify(jobIds))
    .map((row) => jobRowOf(row as StoredJob));

/** Jobs a dead gateway left `running` go back to the queue (the caller holds the profile's gateway lock). */
export const reclaimOrphans = (db: Db): number =>
  db
    .prepare(`UPDATE gateway_jobs SET state = 'retrying', locked_by = NULL, locked_until = NULL, next_run_at = ?, updated_at = ? WHERE state = 'running'`)
    .run(nowIso(), nowIso()).changes;

/** Makes due now the running jobs `owner` holds but no longer runs (not among `running`); how many. */
export function releaseClaims(db: Db, owner: string, running: readonly string[]): number {
  const now = nowIso();
  return db
    .prepare(
      `UPDATE gateway_jobs SET locked_until = ?, updated_at = ? WHERE state = 'running' AND locked_by = ? AND job_id NOT IN (SELECT value FROM json_each(?))`,
    )
    .run(now, now, owner, JSON.stringify(running)).changes;
}

export const jobCounts = (db: Db) =>
  Object.fromEntries((db.prepare(JOBS.counts.sqlite).all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n])) as Partial<
    Record<JobState, number>
  >;

export const unfinishedJobs = (db: Db) => db.prepare(JOBS.unfinished.sqlite).all() as JobRow[];

/** The job repository on SQLite (storage.ts's JobRepository, the connection first). */
export const sqliteJobs: WithDb<JobRepository, Db> = {
  tasksNeedingJobs,
  queueFollow: queueJob,
  claimDue: claimDueJobs,
  renewClaim,
  releaseClaims,
  finish: finishJob,
  retry: retryJob,
  insertOperator: insertOperatorJob,
  insertOperators: insertOperatorJobs,
  findOperator: findOperatorJobs,
  getOperator: getOperatorJob,
  listOperator: listOperatorJobs,
  setTargetTask,
  markDispatched,
  clearDispatched,
  cancel: cancelJobRow,
  endedAmong: endedJobsAmong,
  counts: jobCounts,
  unfinished: unfinishedJobs,
};
