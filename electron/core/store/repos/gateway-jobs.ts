/** Durable gateway jobs: one per (kind, task), with lock, retry count, backoff and next run time on the row. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db.js';
import { nowIso } from '../db.js';

export type JobKind = 'task_subscription' | 'task_poll';
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'retrying';

export interface JobRow {
  job_id: string;
  kind: JobKind;
  state: JobState;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string;
  retry_count: number;
  max_attempts: number;
  backoff_ms: number | null;
  last_error: string | null;
  next_run_at: string | null;
  locked_by: string | null;
  completed_at: string | null;
  updated_at: string;
}

const COLUMNS = `job_id, kind, state, agent_alias, context_id, task_id, retry_count, max_attempts, backoff_ms, last_error, next_run_at, locked_by, completed_at, updated_at`;

/** In-flight local tasks without an unfinished job (a finished one is re-queued when its task is in flight again). */
export const tasksNeedingJobs = (db: Db) =>
  db
    .prepare(
      `SELECT t.task_id, t.agent_alias, t.context_id FROM tasks t
       WHERE t.state IN ('submitted','working','unknown')
         AND NOT EXISTS (SELECT 1 FROM gateway_jobs j WHERE j.task_id = t.task_id AND j.state IN ('queued','running','retrying','failed'))
       ORDER BY t.updated_at, t.task_id`,
    )
    .all() as Array<{ task_id: string; agent_alias: string; context_id: string | null }>;

export function queueJob(db: Db, j: { kind: JobKind; taskId: string; agentAlias: string; contextId: string | null; maxAttempts: number }): void {
  db.prepare(
    `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, context_id, task_id, request_json, max_attempts, next_run_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)
     ON CONFLICT(kind, task_id) DO UPDATE SET state = 'queued', retry_count = 0, last_error = NULL, next_run_at = excluded.next_run_at,
       completed_at = NULL, updated_at = excluded.next_run_at WHERE gateway_jobs.state = 'succeeded'`,
  ).run(randomUUID(), j.kind, j.agentAlias, j.contextId, j.taskId, JSON.stringify({ task_id: j.taskId }), j.maxAttempts, nowIso());
}

export const dueJobs = (db: Db, now: string) =>
  db.prepare(`SELECT ${COLUMNS} FROM gateway_jobs WHERE state IN ('queued','retrying') AND (next_run_at IS NULL OR next_run_at <= ?) ORDER BY next_run_at, job_id`).all(now) as JobRow[];

export function claimJob(db: Db, jobId: string, owner: string): boolean {
  return db.prepare(`UPDATE gateway_jobs SET state = 'running', locked_by = ?, updated_at = ? WHERE job_id = ? AND state IN ('queued','retrying')`).run(owner, nowIso(), jobId).changes === 1;
}

export function finishJob(db: Db, jobId: string, state: 'succeeded' | 'failed' | 'cancelled', result: unknown, error: string | null = null): void {
  db.prepare(`UPDATE gateway_jobs SET state = ?, result_json = ?, last_error = coalesce(?, last_error), locked_by = NULL, completed_at = ?, updated_at = ? WHERE job_id = ?`).run(
    state,
    JSON.stringify(result),
    error,
    nowIso(),
    nowIso(),
    jobId,
  );
}

export function retryJob(db: Db, jobId: string, r: { error: string | null; backoffMs: number; nextRunAt: string; countAttempt: boolean }): void {
  db.prepare(
    `UPDATE gateway_jobs SET state = 'retrying', retry_count = retry_count + ?, backoff_ms = ?, last_error = ?, next_run_at = ?, locked_by = NULL, updated_at = ? WHERE job_id = ?`,
  ).run(r.countAttempt ? 1 : 0, r.backoffMs, r.error, r.nextRunAt, nowIso(), jobId);
}

/** Jobs a dead gateway left `running` go back to the queue (the caller holds the profile's gateway lock). */
export const reclaimOrphans = (db: Db): number =>
  db.prepare(`UPDATE gateway_jobs SET state = 'retrying', locked_by = NULL, next_run_at = ?, updated_at = ? WHERE state = 'running'`).run(nowIso(), nowIso()).changes;

export const jobCounts = (db: Db) =>
  Object.fromEntries((db.prepare(`SELECT state, count(*) AS n FROM gateway_jobs GROUP BY state`).all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n])) as Partial<Record<JobState, number>>;

export const unfinishedJobs = (db: Db) => db.prepare(`SELECT ${COLUMNS} FROM gateway_jobs WHERE state IN ('queued','running','retrying') ORDER BY next_run_at, job_id`).all() as JobRow[];

