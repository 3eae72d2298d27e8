/**
 * Durable gateway jobs' statements, written once for both engines (sql.ts). A claim differs: PostgreSQL claims in one
 * statement that skips the rows another claim holds (FOR UPDATE SKIP LOCKED), SQLite in one IMMEDIATE transaction;
 * so does a lookup of many ids (SQLite's json_each, PostgreSQL's array). Those are in each engine's repos.
 */
import { fragment, numbered, sql, type Statement } from '../sql.js';
import { OPERATOR_KINDS, type FollowKind, type NewOperatorJob } from '../rows/gateway-jobs.js';
import { COUNT, TEXT_PARAM } from './common.js';

export const JOB_COLUMNS = `job_id, kind, state, agent_alias, context_id, task_id, retry_count, max_attempts, backoff_ms, last_error, next_run_at, locked_by, completed_at, updated_at, locked_until, group_name, target_task_id, attempts, created_at`;
export const OPERATOR_IN = `(${OPERATOR_KINDS.map((k) => `'${k}'`).join(',')})`;
export const OPERATOR_COLUMNS = `${JOB_COLUMNS}, summary_json, result_json, dispatched, dispatch_message_id, last_run_by`;
/** Claim order: oldest run time first (a null one first), then id. */
export const DUE_ORDER = `next_run_at NULLS FIRST, job_id`;
/** `owner` (given twice), when not null, must still hold the running job (a cancel or a takeover wins over a late finish). */
const OWNED = fragment`(${TEXT_PARAM} IS NULL OR (state = 'running' AND locked_by = ?))`;

export const JOBS = {
  /**
   * In-flight local tasks without an unfinished job (a finished one is re-queued when its task is in flight again): no
   * follow job, and no operator job waiting on it, whether it names the task as its target yet or only sent the request
   * the task answered (the answer is stored a moment before the job records its target).
   */
  tasksNeedingJobs: sql`SELECT t.task_id, t.agent_alias, t.context_id FROM tasks t
  WHERE t.state IN ('submitted','working','unknown')
    AND NOT EXISTS (SELECT 1 FROM gateway_jobs j WHERE j.task_id = t.task_id AND j.state IN ('queued','running','retrying','failed'))
    AND NOT EXISTS (SELECT 1 FROM gateway_jobs o WHERE o.target_task_id = t.task_id AND o.state IN ('queued','running','retrying'))
    AND NOT EXISTS (SELECT 1 FROM gateway_jobs s JOIN messages m ON m.message_id = s.dispatch_message_id
                    WHERE m.task_id = t.task_id AND s.state IN ('queued','running','retrying'))
  ORDER BY t.updated_at, t.task_id`,
  /** A follow job (one per kind and task; a succeeded one is queued again). */
  queueFollow: sql`INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, context_id, task_id, request_json, max_attempts, next_run_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)
     ON CONFLICT (kind, task_id) DO UPDATE SET state = 'queued', retry_count = 0, last_error = NULL, next_run_at = excluded.next_run_at,
       completed_at = NULL, updated_at = excluded.next_run_at WHERE gateway_jobs.state = 'succeeded'`,
  renewClaim: sql`UPDATE gateway_jobs SET locked_until = ?, updated_at = ? WHERE job_id = ? AND state = 'running' AND locked_by = ?`,
  finish: sql`UPDATE gateway_jobs SET state = ?, result_json = ?, last_error = coalesce(?, last_error), locked_by = NULL, locked_until = NULL, completed_at = ?, updated_at = ?
     WHERE job_id = ? AND ${OWNED}`,
  retry: sql`UPDATE gateway_jobs SET state = 'retrying', retry_count = retry_count + ?, backoff_ms = ?, last_error = ?, next_run_at = ?, locked_by = NULL, locked_until = NULL, updated_at = ?
     WHERE job_id = ? AND ${OWNED}`,
  insertOperator: sql`INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, group_name, context_id, target_task_id, request_json, summary_json, max_attempts, next_run_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)`,
  /** The operator jobs whose id starts with a LIKE pattern (`\` escapes), at most 2. */
  findOperator: sql`SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE kind IN ${OPERATOR_IN} AND job_id LIKE ? ESCAPE '\\' ORDER BY job_id LIMIT 2`,
  getOperator: sql`SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id = ? AND kind IN ${OPERATOR_IN}`,
  /** Operator jobs, newest first, in one state unless it is null (given twice), at most a limit. */
  listOperator: sql`SELECT ${OPERATOR_COLUMNS} FROM gateway_jobs WHERE kind IN ${OPERATOR_IN} AND (${TEXT_PARAM} IS NULL OR state = ?) ORDER BY created_at DESC, job_id DESC LIMIT ?`,
  setTargetTask: sql`UPDATE gateway_jobs SET target_task_id = ?, context_id = coalesce(context_id, ?), updated_at = ? WHERE job_id = ?`,
  markDispatched: sql`UPDATE gateway_jobs SET dispatched = 1, dispatch_message_id = ?, updated_at = ? WHERE job_id = ?`,
  clearDispatched: sql`UPDATE gateway_jobs SET dispatched = 0, dispatch_message_id = NULL, updated_at = ? WHERE job_id = ? AND dispatched = 1`,
  /** Cancels an unfinished job (now, now, id). */
  cancel: sql`UPDATE gateway_jobs SET state = 'cancelled', last_error = 'cancelled by the operator', locked_by = NULL, locked_until = NULL, completed_at = ?, updated_at = ?
       WHERE job_id = ? AND state IN ('queued','running','retrying')`,
  /** Cancels a job no gateway holds now, queued or retrying (now, now, id). */
  cancelUnclaimed: sql`UPDATE gateway_jobs SET state = 'cancelled', last_error = 'cancelled by the operator', locked_by = NULL, locked_until = NULL, completed_at = ?, updated_at = ?
       WHERE job_id = ? AND state IN ('queued','retrying')`,
  counts: sql`SELECT state, ${COUNT} AS n FROM gateway_jobs GROUP BY state`,
  unfinished: sql`SELECT ${JOB_COLUMNS} FROM gateway_jobs WHERE state IN ('queued','running','retrying') ORDER BY ${DUE_ORDER}`,
};

/** Rows per multi-row INSERT of operator jobs (`job start --from-file`): 10 parameters each, far below either engine's limit. */
export const OPERATOR_INSERT_BATCH = 500;

const insertOperatorsMemo = new Map<number, Statement>();

/** `insertOperator` for `rows` jobs in one statement (its parameters: insertOperatorParams of each, in order). */
export function insertOperators(rows: number): Statement {
  let statement = insertOperatorsMemo.get(rows);
  if (!statement) {
    const values = Array.from({ length: rows }, () => `(?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)`).join(', ');
    const text = `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, group_name, context_id, target_task_id, request_json, summary_json, max_attempts, next_run_at) VALUES ${values}`;
    statement = { sqlite: text, postgres: numbered(text) };
    if (insertOperatorsMemo.size < 8) insertOperatorsMemo.set(rows, statement);
  }
  return statement;
}

/** A job id as a LIKE pattern of the ids it starts (`\`, `%` and `_` escaped). */
export const idPrefix = (id: string): string => `${id.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const queueFollowParams = (
  jobId: string,
  j: { kind: FollowKind; taskId: string; agentAlias: string; contextId: string | null; maxAttempts: number },
  now: string,
): unknown[] => [jobId, j.kind, j.agentAlias, j.contextId, j.taskId, JSON.stringify({ task_id: j.taskId }), j.maxAttempts, now];

export const finishParams = (jobId: string, state: string, result: unknown, error: string | null, owner: string | null, now: string): unknown[] => [
  state,
  JSON.stringify(result) ?? null,
  error,
  now,
  now,
  jobId,
  owner,
  owner,
];

export const retryParams = (
  jobId: string,
  r: { error: string | null; backoffMs: number; nextRunAt: string; countAttempt: boolean },
  owner: string | null,
  now: string,
): unknown[] => [r.countAttempt ? 1 : 0, r.backoffMs, r.error, r.nextRunAt, now, jobId, owner, owner];

export const insertOperatorParams = (j: NewOperatorJob, now: string): unknown[] => [
  j.jobId,
  j.kind,
  j.agentAlias,
  j.groupName,
  j.contextId,
  j.targetTaskId,
  JSON.stringify(j.request),
  JSON.stringify(j.summary),
  j.maxAttempts,
  now,
];
