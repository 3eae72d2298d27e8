/** The journal's appends and key lookups, written once for both engines (sql.ts). The journal's reads differ by engine. */
import { fragment, sql } from '../sql.js';
import { INSERTED_EVENT_COLUMNS } from '../rows/events.js';

/** An append (the values of rows/events.ts `eventValues`); a dedupe key seen before inserts nothing. */
export const APPEND = fragment`INSERT INTO events (${INSERTED_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`;

export const EVENTS = {
  /** Whether an event with this dedupe key is journaled. */
  hasKey: sql`SELECT 1 FROM events WHERE dedupe_key = ?`,
};
