/**
 * Durable gateway jobs on PostgreSQL: what repos/gateway-jobs.ts does on SQLite, with the statements both share (statements/gateway-jobs.ts) and the row types (rows/gateway-jobs.ts). Timestamps are
 * ISO text (nowIso), so comparing them as text ("C" collation) compares the times. Null run times sort first, as
 * SQLite sorts them. Many gateways (hosts) share the queue: a claim is one statement that skips the rows another
 * claim holds (FOR UPDATE SKIP LOCKED), so no job is claimed twice and no claimer waits on another.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../../rows/clock.js';
import { jobRowOf, type JobRow, type JobState, type StoredJob } from '../../rows/gateway-jobs.js';
import {
  DUE_ORDER,
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
} from '../../statements/gateway-jobs.js';
import type { JobRepository } from '../../storage.js';
import { changed, run, type Query } from './query.js';

/**
 * Queued or retrying jobs whose time came by `dueBy` (parameter `$by`), and running ones whose claim expired by now
 * (parameter `$now`).
 */
const due = (now: number, by = now) =>
  `((state IN ('queued','retrying') AND (next_run_at IS NULL OR next_run_at <= $${by})) OR (state = 'running' AND locked_until IS NOT NULL AND locked_until <= $${now}))`;

export function jobRepository(query: Query): JobRepository {
  return {
    async tasksNeedingJobs() {
      const { rows } = await run<{ task_id: string; agent_alias: string; context_id: string | null }>(query, 'jobs.tasksNeedingJobs', JOBS.tasksNeedingJobs);
      return rows;
    },

    async queueFollow(j) {
      await run(query, 'jobs.queueFollow', JOBS.queueFollow, queueFollowParams(randomUUID(), j, nowIso()));
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
      const { rows } = await run<StoredJob>(
        query,
        'jobs.claimDue',
        `WITH picked AS MATERIALIZED (
           SELECT job_id FROM gateway_jobs WHERE ${due(3, 5)} ORDER BY ${DUE_ORDER} LIMIT $4 FOR UPDATE SKIP LOCKED
         ),
         claimed AS (
           UPDATE gateway_jobs SET state = 'running', locked_by = $1, locked_until = $2,
             attempts = CASE WHEN kind IN ${OPERATOR_IN} THEN retry_count + 1 ELSE attempts + 1 END, updated_at = $3
           WHERE job_id IN (SELECT job_id FROM picked) AND ${due(3, 5)}
           RETURNING ${OPERATOR_COLUMNS}, request_json
         )
         SELECT * FROM claimed ORDER BY ${DUE_ORDER}`,
        [owner, lockedUntil, now, limit, dueBy ?? now],
      );
      return rows;
    },

    async renewClaim(jobId, owner, lockedUntil) {
      const result = await run(query, 'jobs.renewClaim', JOBS.renewClaim, [lockedUntil, nowIso(), jobId, owner]);
      return changed(result) === 1;
    },

    async releaseClaims(owner, running) {
      const now = nowIso();
      const result = await run(
        query,
        'jobs.releaseClaims',
        `UPDATE gateway_jobs SET locked_until = $1, updated_at = $1 WHERE state = 'running' AND locked_by = $2 AND NOT (job_id = ANY($3::text[]))`,
        [now, owner, [...running]],
      );
      return changed(result);
    },

    async finish(jobId, state, result, error = null, owner = null) {
      const done = await run(query, 'jobs.finish', JOBS.finish, finishParams(jobId, state, result, error, owner, nowIso()));
      return changed(done) === 1;
    },

    async retry(jobId, r, owner = null) {
      const result = await run(query, 'jobs.retry', JOBS.retry, retryParams(jobId, r, owner, nowIso()));
      return changed(result) === 1;
    },

    async insertOperator(j) {
      await run(query, 'jobs.insertOperator', JOBS.insertOperator, insertOperatorParams(j, nowIso()));
    },

    async insertOperators(list) {
      const now = nowIso();
      for (let i = 0; i < list.length; i += OPERATOR_INSERT_BATCH) {
        const batch = list.slice(i, i + OPERATOR_INSERT_BATCH);
        await run(
          query,
          'jobs.insertOperators',
          insertOperators(batch.length),
          batch.flatMap((j) => insertOperatorParams(j, now)),
        );
      }
    },

    async findOperator(id) {
      const { rows } = await run<StoredJob>(query, 'jobs.findOperator', JOBS.findOperator, [idPrefix(id)]);
      return rows.map(jobRowOf);
    },

    async getOperator(jobId) {
      const { rows } = await run<StoredJob>(query, 'jobs.getOperator', JOBS.getOperator, [jobId]);
      return rows[0] && jobRowOf(rows[0]);
    },

    async listOperator(o) {
      const { rows } = await run<Omit<StoredJob, 'request_json'>>(query, 'jobs.listOperator', JOBS.listOperator, [o.state ?? null, o.state ?? null, o.limit]);
      return rows.map(jobRowOf);
    },

    async setTargetTask(jobId, taskId, contextId) {
      await run(query, 'jobs.setTargetTask', JOBS.setTargetTask, [taskId, contextId, nowIso(), jobId]);
    },

    async markDispatched(jobId, messageId = null) {
      await run(query, 'jobs.markDispatched', JOBS.markDispatched, [messageId, nowIso(), jobId]);
    },

    async clearDispatched(jobId) {
      await run(query, 'jobs.clearDispatched', JOBS.clearDispatched, [nowIso(), jobId]);
    },

    async cancel(jobId, options = {}) {
      const now = nowIso();
      const result = await run(query, 'jobs.cancel', options.unclaimed ? JOBS.cancelUnclaimed : JOBS.cancel, [now, now, jobId]);
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
      const { rows } = await run<{ state: JobState; n: number }>(query, 'jobs.counts', JOBS.counts);
      return Object.fromEntries(rows.map((r) => [r.state, r.n])) as Partial<Record<JobState, number>>;
    },

    async unfinished() {
      const { rows } = await run<JobRow>(query, 'jobs.unfinished', JOBS.unfinished);
      return rows;
    },
  };
}
