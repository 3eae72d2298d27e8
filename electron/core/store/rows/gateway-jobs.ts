/** Durable gateway jobs' rows as both engines store them, and their check. Neither engine owns this module. */
import { checkedJsonText, storedEnum, storedRow } from '../stored-json.js';

export type FollowKind = 'task_subscription' | 'task_poll';
export const OPERATOR_KINDS = ['send', 'stream', 'wait', 'reduce', 'bcast'] as const;
export type OperatorKind = (typeof OPERATOR_KINDS)[number];
export type JobKind = FollowKind | OperatorKind;
export const isOperatorKind = (kind: string): kind is OperatorKind => (OPERATOR_KINDS as readonly string[]).includes(kind);
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'retrying';

/** An operator job as it is queued: what it runs (`request`), what it shows (`summary`), and what it targets. */
export interface NewOperatorJob {
  jobId: string;
  kind: OperatorKind;
  agentAlias: string | null;
  groupName: string | null;
  contextId: string | null;
  targetTaskId: string | null;
  request: unknown;
  summary: Record<string, unknown>;
  maxAttempts: number;
}

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
  /** The gateway that claimed its last attempt (its id; `locked_by` is cleared when an attempt ends): schema v13. */
  last_run_by?: string | null;
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
