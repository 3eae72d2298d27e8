/**
 * PostgreSQL schema v3: the job queue shared by a pool of gateways (team mode), beyond SQLite's schema.
 * - `gateway_pool`: one row per running gateway of the profile (postgres/repos/gateway-pool.ts), renewed while it
 *   runs, deleted when it stops; a row whose `expires_at` passed is a gateway that died or hung. (SQLite's profile is
 *   held by one gateway through `gateway_leases` instead.)
 * - `notify_job_queued`: a job becoming runnable (inserted, or its state, run time or claim changed, and now queued or
 *   retrying) notifies channel `missive_jobs` with the profile's schema as payload, so idle gateways on every host
 *   claim it at once instead of at their next scan (Storage.onJobQueued). NOTIFY is delivered at commit, and the same
 *   channel and payload are folded into one notification per transaction however many rows changed.
 * A claim (postgres/repos/gateway-jobs.ts claimDue) needs no new index: idx_gateway_jobs_due (state, next_run_at)
 * finds the unfinished jobs without reading the finished ones (10,000 finished and 100 due: a bitmap scan of the 100,
 * then the primary key).
 */
export const name = 'job_queue';

const text = `TEXT COLLATE "C"`;

export const sql = `
CREATE TABLE gateway_pool (
  holder ${text} PRIMARY KEY,
  pid INTEGER NOT NULL CHECK (pid > 0),
  host ${text} NOT NULL,
  started_at ${text} NOT NULL,
  renewed_at ${text} NOT NULL,
  expires_at ${text} NOT NULL
);

CREATE FUNCTION notify_job_queued() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('missive_jobs', TG_TABLE_SCHEMA);
  RETURN NULL;
END
$fn$;

CREATE TRIGGER gateway_jobs_queued
  AFTER INSERT OR UPDATE OF state, next_run_at, locked_until ON gateway_jobs
  FOR EACH ROW WHEN (NEW.state IN ('queued', 'retrying'))
  EXECUTE FUNCTION notify_job_queued();
`;
