/**
 * Durable gateway jobs on PostgreSQL: what repos/gateway-jobs.ts does on SQLite, with its row types. Timestamps are
 * ISO text (nowIso), so comparing them as text ("C" collation) compares the times. Null run times sort first, as
 * SQLite sorts them. Many gateways (hosts) share the queue: a claim is one statement that skips the rows another
 * claim holds (FOR UPDATE SKIP LOCKED), so no job is claimed twice and no claimer waits on another.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../../db.js';
import { jobRowOf, OPERATOR_KINDS, TASKS_NEEDING_JOBS_SQL, type JobRow, type JobState, type StoredJob } from '../../repos/gateway-jobs.js';
import type { JobRepository } from '../../storage.js';
import { changed, run, type Query } from './query.js';

const COLUMNS = `job_id, kind, state, agent_alias, context_id, task_id, retry_count, max_attempts, backoff_ms, last_error, next_run_at, locked_by, completed_at, updated_at, locked_until, group_name, target_task_id, attempts, created_at`;
const OPERATOR_IN = `(${OPERATOR_KINDS.map((k) => `'${k}'`).join(',')})`;
const OPERATOR_COLUMNS = `${COLUMNS}, summary_json, result_json, dispatched, dispatch_message_id`;
/** Claim order: oldest run time first (a null one first, as SQLite orders nulls), then id. */
const DUE_ORDER = `next_run_at NULLS FIRST, job_id`;
/**
 * Queued or retrying jobs whose time came by `dueBy` (parameter `$by`), and running ones whose claim expired by now
 * (parameter `$now`).
 */
const due = (now: number, by = now) =>
  `((state IN ('queued','retrying') AND (next_run_at IS NULL OR next_run_at <= $${by})) OR (state = 'running' AND locked_until IS NOT NULL AND locked_until <= $${now}))`;
/** `owner` (parameter `$n`), when given, must still hold the running job (a cancel or a takeover wins over a late finish). */
const owned = (n: number) => `($${n}::text IS NULL OR (state = 'running' AND locked_by = $${n}))`;

export function jobRepository(query: Query): JobRepository {
  return {
    async tasksNeedingJobs() {
      const { rows } = await run<{ task_id: string; agent_alias: string; context_id: string | null }>(
        query,
        'jobs.tasksNeedingJobs',
        TASKS_NEEDING_JOBS_SQL,
      );
      return rows;
    },

    async queueFollow(j) {
      await run(
        query,
        'jobs.queueFollow',
        `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, context_id, task_id, request_json, max_attempts, next_run_at)
         VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8)
         ON CONFLICT (kind, task_id) DO UPDATE SET state = 'queued', retry_count = 0, last_error = NULL, next_run_at = excluded.next_run_at,
           completed_at = NULL, updated_at = excluded.next_run_at WHERE gateway_jobs.state = 'succeeded'`,
        [randomUUID(), j.kind, j.agentAlias, j.contextId, j.taskId, JSON.stringify({ task_id: j.taskId }), j.maxAttempts, nowIso()],
      );
    },

    /**
     * One statement: the due jobs are picked and locked in claim order (rows another claim holds are skipped, not
     * waited for), checked again as they are updated, and returned in claim order. An operator job's attempt is its
     * failed attempts plus one (claimJob's rule).
     *
     * The pick is a MATERIALIZED CTE, read once. As `job_id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` the
     * planner may run the subquery again for each row it updates (a nested-loop semi join), and each run skips the
     * rows the statement has just updated and picks the next n: one claim took every due job.
     */
    async claimDue(owner, lockedUntil, limit, dueBy) {
      const now = nowIso();
      const { rows } = await run<JobRow>(
        query,
        'jobs.claimDue',
        `WITH picked AS MATERIALIZED (
           SELECT job_id FROM gateway_jobs WHERE ${due(3, 5)} ORDER BY ${DUE_ORDER} LIMIT $4 FOR UPDATE SKIP LOCKED
         ),
         claimed AS (
           UPDATE gateway_jobs SET state = 'running', locked_by = $1, locked_until = $2,
             attempts = CASE WHEN kind IN ${OPERATOR_IN} THEN retry_count + 1 ELSE attempts + 1 END, updated_at = $3
           WHERE job_id IN (SELECT job_id FROM picked) AND ${due(3, 5)}
           RETURNING ${COLUMNS}
         )
         SELECT * FROM claimed ORDER BY ${DUE_ORDER}`,
        [owner, lockedUntil, now, limit, dueBy ?? now],
      );
      return rows;
    },

    async renewClaim(jobId, owner, lockedUntil) {
      const result = await run(
        query,
        'jobs.renewClaim',
        `UPDATE gateway_jobs SET locked_until = $1, updated_at = $2 WHERE job_id = $3 AND state = 'running' AND locked_by = $4`,
        [lockedUntil, nowIso(), jobId, owner],
      );
      return changed(result) === 1;
    },

    async finish(jobId, state, result, error = null, owner = null) {
      const now = nowIso();
      const done = await run(
        query,
        'jobs.finish',
        `UPDATE gateway_jobs SET state = $1, result_json = $2, last_error = coalesce($3, last_error), locked_by = NULL, locked_until = NULL, completed_at = $4, updated_at = $4
         WHERE job_id = $5 AND ${owned(6)}`,
        [state, JSON.stringify(result) ?? null, error, now, jobId, owner],
      );
      return changed(done) === 1;
    },

    async retry(jobId, r, owner = null) {
      const result = await run(
        query,
        'jobs.retry',
        `UPDATE gateway_jobs SET state = 'retrying', retry_count = retry_count + $1, backoff_ms = $2, last_error = $3, next_run_at = $4, locked_by = NULL, locked_until = NULL, updated_at = $5
         WHERE job_id = $6 AND ${owned(7)}`,
        [r.countAttempt ? 1 : 0, r.backoffMs, r.error, r.nextRunAt, nowIso(), jobId, owner],
      );
      return changed(result) === 1;
    },

    async insertOperator(j) {
      await run(
        query,
        'jobs.insertOperator',
        `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, group_name, context_id, target_task_id, request_json, summary_json, max_attempts, next_run_at)
         VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $9, $10)`,
        [j.jobId, j.kind, j.agentAlias, j.groupName, j.contextId, j.targetTaskId, JSON.stringify(j.request), JSON.stringify(j.summary), j.maxAttempts, nowIso()],
      );
    },

    async findOperator(id) {
      const { rows } = await run<StoredJob>(
        query,
        'jobs.findOperator',
        `SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE kind IN ${OPERATOR_IN} AND job_id LIKE $1 ESCAPE '\\' ORDER BY job_id LIMIT 2`,
        [`${id.replace(/[\\%_]/g, (c) => `\\${c}`)}%`],
      );
      return rows.map(jobRowOf);
    },

    async getOperator(jobId) {
      const { rows } = await run<StoredJob>(query, 'jobs.getOperator', `SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id = $1 AND kind IN ${OPERATOR_IN}`, [jobId]);
      return rows[0] && jobRowOf(rows[0]);
    },

    async listOperator(o) {
      const { rows } = await run<Omit<StoredJob, 'request_json'>>(
        query,
        'jobs.listOperator',
        `SELECT ${OPERATOR_COLUMNS} FROM gateway_jobs WHERE kind IN ${OPERATOR_IN} AND ($1::text IS NULL OR state = $1) ORDER BY created_at DESC, job_id DESC LIMIT $2`,
        [o.state ?? null, o.limit],
      );
      return rows.map(jobRowOf);
    },

    async setTargetTask(jobId, taskId, contextId) {
      await run(query, 'jobs.setTargetTask', `UPDATE gateway_jobs SET target_task_id = $1, context_id = coalesce(context_id, $2), updated_at = $3 WHERE job_id = $4`, [
        taskId,
        contextId,
        nowIso(),
        jobId,
      ]);
    },

    async markDispatched(jobId, messageId = null) {
      await run(query, 'jobs.markDispatched', `UPDATE gateway_jobs SET dispatched = 1, dispatch_message_id = $1, updated_at = $2 WHERE job_id = $3`, [messageId, nowIso(), jobId]);
    },

    async clearDispatched(jobId) {
      await run(query, 'jobs.clearDispatched', `UPDATE gateway_jobs SET dispatched = 0, dispatch_message_id = NULL, updated_at = $1 WHERE job_id = $2 AND dispatched = 1`, [nowIso(), jobId]);
    },

    async cancel(jobId, options = {}) {
      const now = nowIso();
      const result = await run(
        query,
        'jobs.cancel',
        `UPDATE gateway_jobs SET state = 'cancelled', last_error = 'cancelled by the operator', locked_by = NULL, locked_until = NULL, completed_at = $1, updated_at = $1
         WHERE job_id = $2 AND state IN ${options.unclaimed ? "('queued','retrying')" : "('queued','running','retrying')"}`,
        [now, jobId],
      );
      return changed(result) === 1;
    },

    async endedAmong(jobIds) {
      const { rows } = await run<StoredJob>(
        query,
        'jobs.endedAmong',
        `SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id = ANY($1::text[]) AND state IN ('succeeded','failed','cancelled')`,
        [jobIds],
      );
      return rows.map(jobRowOf);
    },

    async counts() {
      // count(*) is a bigint, which pg returns as a string.
      const { rows } = await run<{ state: JobState; n: number }>(query, 'jobs.counts', `SELECT state, count(*)::int AS n FROM gateway_jobs GROUP BY state`);
      return Object.fromEntries(rows.map((r) => [r.state, r.n])) as Partial<Record<JobState, number>>;
    },

    async unfinished() {
      const { rows } = await run<JobRow>(query, 'jobs.unfinished', `SELECT ${COLUMNS} FROM gateway_jobs WHERE state IN ('queued','running','retrying') ORDER BY ${DUE_ORDER}`);
      return rows;
    },
  };
}
