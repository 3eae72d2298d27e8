/**
 * The runs of narrow update rows (schema v14; rows/update-runs.ts), written once for both engines: the run a tick
 * writes, and the fragments that read a context's narrow rows through its runs. (PostgreSQL writes no narrow row yet:
 * there these reads find no run, and cost one probe of an empty index.)
 */
import { fragment, sql, type Fragment } from '../sql.js';
import { cappedSum, withinCount } from './common.js';

export const RUNS = {
  /** A run, written when its tick commits; its time is the commit's, at or after every update it holds. */
  insert: sql`INSERT INTO journal_runs (last_sequence, first_sequence, agent_alias, context_id, types, update_count) VALUES (?, ?, ?, ?, ?, ?)`,
};

/** The rows that are not narrow: what the journal's partial indexes hold (SQLite's; PostgreSQL's indexes are whole). */
export const NOT_NARROW = 'via_run IS NULL';

/**
 * The narrow rows of one context (`?`, its id), read through its runs (idx_runs_context), each run a walk of its
 * range of sequences: `columns` of `e`, and `where` more conditions on `e` or the run `r`. Two runs of one tick may
 * overlap (two agents in one context), so a caller that must not repeat a row reads this with UNION.
 */
export const contextRunRows = (columns: string, where = ''): Fragment =>
  fragment`SELECT ${columns
    .split(', ')
    .map((column) => `e.${column}`)
    .join(
      ', ',
    )} FROM journal_runs r JOIN events e ON e.sequence BETWEEN r.first_sequence AND r.last_sequence WHERE r.context_id = ? AND e.via_run = 1 AND e.context_id = r.context_id${where}`;

/**
 * How many narrow rows a context holds (`c`, the context row): the sum of its runs' counts, each and the sum taken as 0
 * to MAX_SUMMED_COUNT (a count changed outside missive: negative, or past any integer).
 */
export const CONTEXT_RUN_COUNT = fragment`(SELECT ${cappedSum(withinCount('update_count'))} FROM journal_runs r WHERE r.context_id = c.context_id)`;
