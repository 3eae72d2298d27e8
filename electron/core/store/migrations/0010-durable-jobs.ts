/**
 * Schema v10: durable jobs an operator starts (`missive job start send|stream|wait|reduce|bcast`), executed by the
 * gateway. `target_task_id` is the A2A task the job works on once it is known (set before the job waits on it, so a
 * restarted gateway resumes the wait instead of sending again; no foreign key: a wait may name a remote task);
 * `summary_json` is the job's public summary (kind, agent/group, parts count and bytes, never the text or a secret);
 * `attempts` counts executions started, `locked_until` (v1) is the claim's expiry.
 */
export const name = 'durable_jobs';

export const sql = `
ALTER TABLE gateway_jobs ADD COLUMN target_task_id TEXT;
ALTER TABLE gateway_jobs ADD COLUMN summary_json TEXT CHECK (summary_json IS NULL OR (json_valid(summary_json) AND json_type(summary_json) = 'object'));
ALTER TABLE gateway_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);
CREATE INDEX idx_gateway_jobs_target ON gateway_jobs(target_task_id) WHERE target_task_id IS NOT NULL;
CREATE INDEX idx_gateway_jobs_created ON gateway_jobs(created_at, job_id);
`;
