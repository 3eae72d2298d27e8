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
import { nowIso } from '../db.js';
import { checkedJsonText, storedEnum, storedRow } from '../stored-json.js';

export type FollowKind = 'task_subscription' | 'task_poll';
export const OPERATOR_KINDS = ['send', 'stream', 'wait', 'reduce', 'bcast'] as const;
export type OperatorKind = (typeof OPERATOR_KINDS)[number];
export type JobKind = FollowKind | OperatorKind;
export const isOperatorKind = (kind: string): kind is OperatorKind => (OPERATOR_KINDS as readonly string[]).includes(kind);
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
  locked_until: string | null;
  group_name: string | null;
  target_task_id: string | null;
  attempts: number;
  created_at: string;
}

/** An operator job with what only the executor and the views read: the request, the summary, the result, the dispatch mark. */
export interface StoredJob extends JobRow {
  request_json: string;
  summary_json: string | null;
  result_json: string | null;
  /** 1 once the request may have left (set before it is sent): a resumed execution never sends it again. */
  dispatched: number;
  /** The message id the request left under, when it has one (send, stream). */
  dispatch_message_id: string | null;
}

const JOB_KINDS: readonly JobKind[] = ['task_subscription', 'task_poll', ...OPERATOR_KINDS];
const JOB_STATES: readonly JobState[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'retrying'];

/**
 * An operator job row as `job list|show` and a fan-out's wait read it (SQLite's and PostgreSQL's): a kind or state
 * that is none of missive's, or a summary_json or result_json that is not JSON missive could have written
 * (stored-json.ts), is storage::corrupt_row naming the job. The JSON stays text here, decoded where it is used
 * (electron/core/jobs), where request_json is checked too. The gateway's claims are not checked here: one corrupt job
 * must not stop a gateway's claims of the others (its executor decodes each job's request when it runs it).
 */
export function jobRowOf<R extends JobRow & { summary_json?: string | null; result_json?: string | null }>(row: R): R {
  const at = storedRow('gateway_jobs', { job_id: row.job_id });
  storedEnum(row.kind, JOB_KINDS, at, 'kind');
  storedEnum(row.state, JOB_STATES, at, 'state');
  if (row.summary_json !== undefined) checkedJsonText(row.summary_json, at, 'summary_json', 'object', true);
  if (row.result_json !== undefined) checkedJsonText(row.result_json, at, 'result_json', 'any', true);
  return row;
}

const COLUMNS = `job_id, kind, state, agent_alias, context_id, task_id, retry_count, max_attempts, backoff_ms, last_error, next_run_at, locked_by, completed_at, updated_at, locked_until, group_name, target_task_id, attempts, created_at`;
const OPERATOR_IN = `(${OPERATOR_KINDS.map((k) => `'${k}'`).join(',')})`;
const OPERATOR_COLUMNS = `${COLUMNS}, summary_json, result_json, dispatched, dispatch_message_id`;
/** A running claim whose expiry passed: its gateway died or stalled, another may take the job. */
const EXPIRED = `(state = 'running' AND locked_until IS NOT NULL AND locked_until <= ?)`;

/**
 * In-flight local tasks without an unfinished job (a finished one is re-queued when its task is in flight again): no
 * follow job, and no operator job waiting on it, whether it names the task as its target yet or only sent the request
 * the task answered (the answer is stored a moment before the job records its target).
 */
export const tasksNeedingJobs = (db: Db) => db.prepare(TASKS_NEEDING_JOBS_SQL).all() as Array<{ task_id: string; agent_alias: string; context_id: string | null }>;

/** `tasksNeedingJobs`' statement, the same on both engines (no parameters). */
export const TASKS_NEEDING_JOBS_SQL = `SELECT t.task_id, t.agent_alias, t.context_id FROM tasks t
  WHERE t.state IN ('submitted','working','unknown')
    AND NOT EXISTS (SELECT 1 FROM gateway_jobs j WHERE j.task_id = t.task_id AND j.state IN ('queued','running','retrying','failed'))
    AND NOT EXISTS (SELECT 1 FROM gateway_jobs o WHERE o.target_task_id = t.task_id AND o.state IN ('queued','running','retrying'))
    AND NOT EXISTS (SELECT 1 FROM gateway_jobs s JOIN messages m ON m.message_id = s.dispatch_message_id
                    WHERE m.task_id = t.task_id AND s.state IN ('queued','running','retrying'))
  ORDER BY t.updated_at, t.task_id`;

export function queueJob(db: Db, j: { kind: FollowKind; taskId: string; agentAlias: string; contextId: string | null; maxAttempts: number }): void {
  db.prepare(
    `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, context_id, task_id, request_json, max_attempts, next_run_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)
     ON CONFLICT(kind, task_id) DO UPDATE SET state = 'queued', retry_count = 0, last_error = NULL, next_run_at = excluded.next_run_at,
       completed_at = NULL, updated_at = excluded.next_run_at WHERE gateway_jobs.state = 'succeeded'`,
  ).run(process.getBuiltinModule('node:crypto').randomUUID(), j.kind, j.agentAlias, j.contextId, j.taskId, JSON.stringify({ task_id: j.taskId }), j.maxAttempts, nowIso());
}

/** Jobs to run now: queued or retrying ones whose time came, and running ones whose claim expired. */
export const dueJobs = (db: Db, now: string) =>
  db.prepare(`SELECT ${COLUMNS} FROM gateway_jobs WHERE (state IN ('queued','retrying') AND (next_run_at IS NULL OR next_run_at <= ?)) OR ${EXPIRED} ORDER BY next_run_at, job_id`).all(now, now) as JobRow[];

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
 * Claims up to `limit` due jobs (dueJobs' order; queued and retrying ones due by `dueBy`, default now) for `owner` until `lockedUntil`, each as claimJob claims it, in one
 * IMMEDIATE transaction: no other connection writes between the read and the claims, so two gateways claiming at once
 * never get the same job. The claimed rows as they are now (state running, attempts counted), oldest due first.
 */
export function claimDueJobs(db: Db, owner: string, lockedUntil: string, limit: number, dueBy?: string): JobRow[] {
  return db
    .transaction(() => {
      const now = nowIso();
      const due = db
        .prepare(`SELECT job_id FROM gateway_jobs WHERE (state IN ('queued','retrying') AND (next_run_at IS NULL OR next_run_at <= ?)) OR ${EXPIRED} ORDER BY next_run_at, job_id LIMIT ?`)
        .all(dueBy ?? now, now, limit) as Array<{ job_id: string }>;
      const read = db.prepare(`SELECT ${COLUMNS} FROM gateway_jobs WHERE job_id = ?`);
      return due.filter((j) => claimJob(db, j.job_id, owner, lockedUntil)).map((j) => read.get(j.job_id) as JobRow);
    })
    .immediate();
}

/** Extends `owner`'s claim; false when the job is no longer its own running job (cancelled, or taken over). */
export const renewClaim = (db: Db, jobId: string, owner: string, lockedUntil: string): boolean =>
  db.prepare(`UPDATE gateway_jobs SET locked_until = ?, updated_at = ? WHERE job_id = ? AND state = 'running' AND locked_by = ?`).run(lockedUntil, nowIso(), jobId, owner).changes === 1;

/** `owner`, when given, must still hold the running job (a cancel or a takeover wins over a late finish). */
const OWNED = ` AND (? IS NULL OR (state = 'running' AND locked_by = ?))`;

export function finishJob(db: Db, jobId: string, state: 'succeeded' | 'failed' | 'cancelled', result: unknown, error: string | null = null, owner: string | null = null): boolean {
  return (
    db
      .prepare(`UPDATE gateway_jobs SET state = ?, result_json = ?, last_error = coalesce(?, last_error), locked_by = NULL, locked_until = NULL, completed_at = ?, updated_at = ? WHERE job_id = ?${OWNED}`)
      .run(state, JSON.stringify(result), error, nowIso(), nowIso(), jobId, owner, owner).changes === 1
  );
}

export function retryJob(db: Db, jobId: string, r: { error: string | null; backoffMs: number; nextRunAt: string; countAttempt: boolean }, owner: string | null = null): boolean {
  return (
    db
      .prepare(
        `UPDATE gateway_jobs SET state = 'retrying', retry_count = retry_count + ?, backoff_ms = ?, last_error = ?, next_run_at = ?, locked_by = NULL, locked_until = NULL, updated_at = ? WHERE job_id = ?${OWNED}`,
      )
      .run(r.countAttempt ? 1 : 0, r.backoffMs, r.error, r.nextRunAt, nowIso(), jobId, owner, owner).changes === 1
  );
}

/** Records an operator job, queued to run at once. */
export function insertOperatorJob(
  db: Db,
  j: { jobId: string; kind: OperatorKind; agentAlias: string | null; groupName: string | null; contextId: string | null; targetTaskId: string | null; request: unknown; summary: Record<string, unknown>; maxAttempts: number },
): void {
  db.prepare(
    `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, group_name, context_id, target_task_id, request_json, summary_json, max_attempts, next_run_at)
     VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(j.jobId, j.kind, j.agentAlias, j.groupName, j.contextId, j.targetTaskId, JSON.stringify(j.request), JSON.stringify(j.summary), j.maxAttempts, nowIso());
}

/** The operator jobs whose id is `id` or starts with it (a short id from `job list`). */
export const findOperatorJobs = (db: Db, id: string) =>
  (
    db.prepare(`SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE kind IN ${OPERATOR_IN} AND job_id LIKE ? ESCAPE '\\' ORDER BY job_id LIMIT 2`).all(`${id.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as StoredJob[]
  ).map(jobRowOf);

export const getOperatorJob = (db: Db, jobId: string): StoredJob | undefined => {
  const row = db.prepare(`SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id = ? AND kind IN ${OPERATOR_IN}`).get(jobId) as StoredJob | undefined;
  return row && jobRowOf(row);
};

/** Operator jobs, newest first, optionally in one state. */
export const listOperatorJobs = (db: Db, o: { state?: JobState; limit: number }) =>
  db
    .prepare(`SELECT ${OPERATOR_COLUMNS} FROM gateway_jobs WHERE kind IN ${OPERATOR_IN} AND (? IS NULL OR state = ?) ORDER BY created_at DESC, job_id DESC LIMIT ?`)
    .all(o.state ?? null, o.state ?? null, o.limit)
    .map((row) => jobRowOf(row as Omit<StoredJob, 'request_json'>));

/** The task a job works on, recorded before it waits so a restarted gateway resumes instead of sending again. */
export const setTargetTask = (db: Db, jobId: string, taskId: string, contextId: string | null): void =>
  void db.prepare(`UPDATE gateway_jobs SET target_task_id = ?, context_id = coalesce(context_id, ?), updated_at = ? WHERE job_id = ?`).run(taskId, contextId, nowIso(), jobId);

/** Marks the job's request as out (before it is sent), under `messageId` when it has one. */
export const markDispatched = (db: Db, jobId: string, messageId: string | null = null): void =>
  void db.prepare(`UPDATE gateway_jobs SET dispatched = 1, dispatch_message_id = ?, updated_at = ? WHERE job_id = ?`).run(messageId, nowIso(), jobId);

/** Clears the mark: the request provably did not reach the agent, the next attempt sends again (as a new message). */
export const clearDispatched = (db: Db, jobId: string): void =>
  void db.prepare(`UPDATE gateway_jobs SET dispatched = 0, dispatch_message_id = NULL, updated_at = ? WHERE job_id = ? AND dispatched = 1`).run(nowIso(), jobId);

/**
 * Cancels an unfinished job (`unclaimed`: only one no gateway holds now, queued or retrying); false when it had already finished
 * (or was claimed). A running job's gateway sees it and stops.
 */
export const cancelJobRow = (db: Db, jobId: string, options: { unclaimed?: boolean } = {}): boolean =>
  db
    .prepare(
      `UPDATE gateway_jobs SET state = 'cancelled', last_error = 'cancelled by the operator', locked_by = NULL, locked_until = NULL, completed_at = ?, updated_at = ?
       WHERE job_id = ? AND state IN ${options.unclaimed ? "('queued','retrying')" : "('queued','running','retrying')"}`,
    )
    .run(nowIso(), nowIso(), jobId).changes === 1;

/** Those of `jobIds` that ended (succeeded, failed or cancelled), with their results. */
export const endedJobsAmong = (db: Db, jobIds: readonly string[]): StoredJob[] =>
  db
    .prepare(`SELECT ${OPERATOR_COLUMNS}, request_json FROM gateway_jobs WHERE job_id IN (SELECT value FROM json_each(?)) AND state IN ('succeeded','failed','cancelled')`)
    .all(JSON.stringify(jobIds))
    .map((row) => jobRowOf(row as StoredJob));

/** Jobs a dead gateway left `running` go back to the queue (the caller holds the profile's gateway lock). */
export const reclaimOrphans = (db: Db): number =>
  db.prepare(`UPDATE gateway_jobs SET state = 'retrying', locked_by = NULL, locked_until = NULL, next_run_at = ?, updated_at = ? WHERE state = 'running'`).run(nowIso(), nowIso()).changes;

export const jobCounts = (db: Db) =>
  Object.fromEntries((db.prepare(`SELECT state, count(*) AS n FROM gateway_jobs GROUP BY state`).all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n])) as Partial<Record<JobState, number>>;

export const unfinishedJobs = (db: Db) => db.prepare(`SELECT ${COLUMNS} FROM gateway_jobs WHERE state IN ('queued','running','retrying') ORDER BY next_run_at, job_id`).all() as JobRow[];

