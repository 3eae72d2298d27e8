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

export const EVENTS = {
  /** Whether an event with this dedupe key is journaled. */
  hasKey: sql`SELECT 1 FROM events WHERE dedupe_key = ?`,
};
