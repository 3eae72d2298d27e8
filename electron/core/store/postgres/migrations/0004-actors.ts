/**
 * PostgreSQL schema v4: SQLite's v13 (migrations/0013-actors.ts), the same columns. Every journal event records the
 * host, OS user and actor id that wrote it (`events.actor_host`, `actor_user`, `actor_id`), and a job which gateway
 * claimed its last attempt (`gateway_jobs.last_run_by`), set from the claim's `locked_by` by a BEFORE trigger (no
 * second write; SQLite's trigger updates the row again). Adding a column without a default rewrites no row, so the
 * journal's append-only trigger never fires. Rows written before are NULL; no index (see SQLite's v13).
 */
export const name = 'actors';

const text = `TEXT COLLATE "C"`;

export const sql = `
ALTER TABLE events ADD COLUMN actor_host ${text};
ALTER TABLE events ADD COLUMN actor_user ${text};
ALTER TABLE events ADD COLUMN actor_id ${text};

ALTER TABLE gateway_jobs ADD COLUMN last_run_by ${text};
CREATE FUNCTION note_job_last_run_by() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.last_run_by := NEW.locked_by;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER gateway_jobs_last_run_by
  BEFORE UPDATE OF locked_by ON gateway_jobs
  FOR EACH ROW WHEN (NEW.locked_by IS NOT NULL AND NEW.locked_by IS DISTINCT FROM OLD.locked_by)
  EXECUTE FUNCTION note_job_last_run_by();
`;
