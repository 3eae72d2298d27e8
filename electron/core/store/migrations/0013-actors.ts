/**
 * Schema v13: who did what. Every journal event records the host, the OS user and the actor id that wrote it
 * (`events.actor_host`, `actor_user`, `actor_id`: store/actor.ts; a gateway's stable id, else `<face>:<pid>`), in
 * columns of their own rather than in the payload, so `events list --host/--user/--actor` filter on them. And a job
 * keeps which gateway claimed its last attempt (`gateway_jobs.last_run_by`: the claim's `locked_by`, which is cleared
 * when the attempt ends), copied by a trigger at each claim, so no job statement changes. Rows written before are
 * NULL. No index: a few hosts and users share a journal, so a filter walks back by sequence and finds its `limit`
 * rows soon, and an index would cost every append.
 */
export const name = 'actors';

export const sql = `
ALTER TABLE events ADD COLUMN actor_host TEXT;
ALTER TABLE events ADD COLUMN actor_user TEXT;
ALTER TABLE events ADD COLUMN actor_id TEXT;

ALTER TABLE gateway_jobs ADD COLUMN last_run_by TEXT;
CREATE TRIGGER gateway_jobs_last_run_by AFTER UPDATE OF locked_by ON gateway_jobs
  FOR EACH ROW WHEN NEW.locked_by IS NOT NULL AND NEW.locked_by IS NOT OLD.locked_by
BEGIN
  UPDATE gateway_jobs SET last_run_by = NEW.locked_by WHERE job_id = NEW.job_id;
END;
`;
