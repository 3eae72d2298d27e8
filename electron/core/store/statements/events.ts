/** The journal's appends and key lookups, written once for both engines (sql.ts). The journal's reads differ by engine. */
import { fragment, sql } from '../sql.js';
import { INSERTED_EVENT_COLUMNS } from '../rows/events.js';

/**
 * A dedupe key seen before inserts nothing. The conflict target names the predicate of SQLite's partial unique index
 * (schema v14: only rows with a key are in it); PostgreSQL's full unique index satisfies it too.
 */
const ON_KEY_SEEN = 'ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING';

/** An append (the values of rows/events.ts `eventValues`). */
export const APPEND = fragment`INSERT INTO events (${INSERTED_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${ON_KEY_SEEN}`;

/**
 * An update appended as a narrow row (schema v14, `via_run = 1`): indexed by task and sequence only, found by its
 * other filters through the run its tick writes (journal_runs; SQLite's update sink, sqlite/update-sink.ts).
 */
export const APPEND_UPDATE = fragment`INSERT INTO events (${INSERTED_EVENT_COLUMNS}, via_run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) ${ON_KEY_SEEN}`;

const COLUMN_COUNT = INSERTED_EVENT_COLUMNS.split(',').length;
const columns = Array.from({ length: COLUMN_COUNT }, (_, i) => `c${i + 1}`).join(', ');

/**
 * PostgreSQL's append of many rows in one statement (a tick's, postgres/update-ticks.ts): one text array per column
 * (the values of `eventValues`, oldest row first), inserted in their order, so their sequences are drawn in it. A
 * dedupe key seen before, or earlier in the same insert, inserts nothing.
 */
export const APPEND_ROWS_POSTGRES = `INSERT INTO events (${INSERTED_EVENT_COLUMNS})
  SELECT ${columns} FROM unnest(${Array.from({ length: COLUMN_COUNT }, (_, i) => `$${i + 1}::text[]`).join(', ')}) WITH ORDINALITY AS u(${columns}, n)
  ORDER BY n ${ON_KEY_SEEN}`;

export const EVENTS = {
  /** Whether an event with this dedupe key is journaled. */
  hasKey: sql`SELECT 1 FROM events WHERE dedupe_key = ?`,
};
