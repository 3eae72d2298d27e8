/**
 * PostgreSQL schema v2: what the journal's readers need beyond SQLite's schema (postgres/repos/journal-reads.ts).
 * - `events.xact_id`: the transaction that wrote the event (`pg_current_xact_id()`, 64 bits: never wraps). Sequences
 *   are not commit-ordered across connections, so `events tail` and `events export` read on from a snapshot rather
 *   than from a sequence: a poll returns the events of the transactions that committed since the last poll's
 *   snapshot, found by this column's index (idx_events_xact) from that snapshot's xmin on.
 * - `json_text_path(doc, path)`: a field of a JSON document as text, as SQLite's json_extract reads it (`--outcome
 *   failed` reads `$.task.state`, `$.state`, `$.status`); like json_text_field (v1) it reads a document holding
 *   `\u0000` or a lone surrogate (json's operators refuse them) with those escapes replaced by `\ufffd`.
 * The journal's other plans are v1's indexes (every TEXT column collates "C": a `--type a2a.push.*` prefix is a range
 * of idx_events_type), picked by PostgreSQL's planner from its statistics.
 */
export const name = 'journal_reads';

export const sql = `
ALTER TABLE events ADD COLUMN xact_id xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX idx_events_xact ON events(xact_id);

CREATE FUNCTION json_text_path(doc text, path text[]) RETURNS text
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
  RETURN doc::json #>> path;
EXCEPTION WHEN untranslatable_character OR invalid_text_representation THEN
  RETURN regexp_replace(doc, '\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '\\\\ufffd', 'g')::json #>> path;
END
$fn$;
`;
