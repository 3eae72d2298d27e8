/**
 * PostgreSQL schema v5: SQLite's v14 columns (migrations/0014-update-runs.ts), so the statements both engines share
 * (statements/) read the same layout: `events.via_run` and `journal_runs`. PostgreSQL writes no narrow row (a stream's
 * tick writes whole rows in one insert, postgres/update-ticks.ts: its indexes are whole), so `via_run` stays NULL and
 * `journal_runs` empty here, and a read through runs finds nothing there to add. As on SQLite, the journal no longer
 * references `contexts` (it is append-only history), and its unique indexes take SQLite's names (their constraints are
 * renamed with them; they stay whole). Adding a column without a default rewrites no row, so the journal's append-only
 * trigger never fires.
 */
export const name = 'update_runs';

const text = `TEXT COLLATE "C"`;
const ts = `${text} NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const sql = `
ALTER TABLE events ADD COLUMN via_run SMALLINT CHECK (via_run = 1);
ALTER TABLE events DROP CONSTRAINT events_context_id_fkey;
ALTER INDEX events_event_id_key RENAME TO idx_events_id;
ALTER INDEX events_dedupe_key_key RENAME TO idx_events_dedupe;

CREATE TABLE journal_runs (
  last_sequence BIGINT PRIMARY KEY,
  first_sequence BIGINT NOT NULL,
  agent_alias ${text},
  context_id ${text},
  types INTEGER NOT NULL,
  update_count INTEGER NOT NULL,
  last_timestamp ${ts}
);
CREATE INDEX idx_runs_agent ON journal_runs(agent_alias, last_sequence);
CREATE INDEX idx_runs_context ON journal_runs(context_id, last_sequence);
CREATE INDEX idx_runs_timestamp ON journal_runs(last_timestamp);
`;
