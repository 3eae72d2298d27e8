/** The event journal on SQLite. Payloads are redacted before they reach this module's callers' rows (rows/events.ts). */
import type { Db } from '../db.js';
import { containsPattern, eventRowOf, eventValues, type EventRow, type NewEvent, type RawEvent } from '../rows/events.js';
import type { EventQuery } from '../rows/journal-query.js';
import { APPEND, EVENTS } from '../statements/events.js';
import { sql } from '../sql.js';

// What repos/journal-query.ts (SQLite's journal filters) reads from here.
export { containsPattern, eventRowOf, type EventQuery, type EventRow, type RawEvent };

const APPEND_SQL = sql`${APPEND}`;

/**
 * Appends one event with a redacted payload and metadata; returns its sequence and id, or null when the dedupe key was
 * seen. `eventId` is given when the caller already names the event (an update's row id, a stream's message id).
 */
export function appendEvent(db: Db, event: NewEvent, knownSecrets: readonly string[] = []): { sequence: number; eventId: string } | null {
  const { eventId, values } = eventValues(event, knownSecrets);
  const info = db.prepare(APPEND_SQL.sqlite).run(...values);
  if (info.changes === 0) return null;
  return { sequence: Number(info.lastInsertRowid), eventId };
}

/** True when an event with this dedupe key is already journaled. */
export const hasEventKey = (db: Db, key: string): boolean => db.prepare(EVENTS.hasKey.sqlite).get(key) !== undefined;

/**
 * The search term of a query, or null without one. Payloads are stored as JSON text, so the payload is matched
 * against the text as JSON writes it (a `"` in the search matches the `\"` stored). Every column is written
 * `+column` so the search never becomes the index a query is read by: it filters the rows the filters chose.
 */
function searchTerm(search: string | undefined): { sql: string; params: string[] } | null {
  const text = search?.trim();
  if (!text) return null;
  const plain = containsPattern(text);
  const columns = ['+event_type', '+agent_alias', '+context_id', '+task_id'].map((column) => `${column} LIKE ? ESCAPE '\\'`);
  return {
    sql: `(${[...columns, `+payload_json LIKE ? ESCAPE '\\'`].join(' OR ')})`,
    params: [plain, plain, plain, plain, containsPattern(JSON.stringify(text).slice(1, -1))],
  };
}

/**
 * A `since` matched by at most this many events is read from idx_events_timestamp and sorted; a wider one is checked
 * row by row while walking back by sequence, which stops after `limit` matches (timestamps follow sequences).
 */
export const NARROW_SINCE_EVENTS = 2000;

/** True when `since` matches at most NARROW_SINCE_EVENTS events: counted in the timestamp index, stopping one past. */
function sinceIsNarrow(db: Db, since: string): boolean {
  const { n } = db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE timestamp >= ? LIMIT ${NARROW_SINCE_EVENTS + 1})`).get(since) as {
    n: number;
  };
  return n <= NARROW_SINCE_EVENTS;
}

/** The equality filters, most selective first: the first one a query has picks its index. */
const FILTER_COLUMNS = [
  ['task_id', 'taskId'],
  ['context_id', 'contextId'],
  ['agent_alias', 'agentAlias'],
  ['event_type', 'type'],
] as const;

/** The filters on who acted (schema v13): exact, and never an index's. */
const ACTOR_COLUMNS = [
  ['actor_host', 'actorHost'],
  ['actor_user', 'actorUser'],
  ['actor_id', 'actorId'],
] as const;

/**
 * The SQL and parameters `listEvents` runs for `query` (the bench and tests EXPLAIN it). It reads one index, picked
 * here rather than by SQLite (which has no statistics to pick by): a narrow `since`'s, else the most selective
 * filter's (task, context, agent, then type), else the table by sequence; `+column` keeps SQLite off the others.
 * A `search` only filters the rows that plan reads (walking back by sequence, it stops after `limit` matches).
 */
export function eventQuerySql(db: Db, query: EventQuery = {}): { sql: string; params: unknown[] } {
  const narrowSince = !!query.since && sinceIsNarrow(db, query.since);
  const where: string[] = [];
  const params: unknown[] = [];
  let indexed = narrowSince;
  for (const [column, key] of FILTER_COLUMNS) {
    const value = query[key];
    if (!value) continue;
    where.push(`${indexed ? '+' : ''}${column} = ?`);
    params.push(value);
    indexed = true;
  }
  // Who acted: no index of their own (schema v13), they filter the rows the plan reads.
  for (const [column, key] of ACTOR_COLUMNS) {
    const value = query[key];
    if (!value) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (query.since) {
    where.push(`${narrowSince ? '' : '+'}timestamp >= ?`);
    params.push(query.since);
  }
  const search = searchTerm(query.search);
  if (search) {
    where.push(search.sql);
    params.push(...search.params);
  }
  if (query.beforeSequence !== undefined) {
    where.push('sequence < ?');
    params.push(query.beforeSequence);
  }
  if (query.fromSequence !== undefined) {
    where.push('sequence >= ?');
    params.push(query.fromSequence);
  }
  const from = narrowSince ? 'events INDEXED BY idx_events_timestamp' : 'events';
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  if (query.afterSequence !== undefined) {
    // Following the journal forward (tail, export): oldest first from the cursor.
    const sql = `SELECT * FROM ${from} ${clause ? `${clause} AND` : 'WHERE'} sequence > ? ORDER BY sequence ASC LIMIT ?`;
    return { sql, params: [...params, query.afterSequence, query.limit ?? 500] };
  }
  return { sql: `SELECT * FROM ${from} ${clause} ORDER BY sequence DESC LIMIT ?`, params: [...params, query.limit ?? 50] };
}

/** The newest `limit` matching events oldest first, or with `afterSequence` the next `limit` after it. */
export function listEvents(db: Db, query: EventQuery = {}): EventRow[] {
  const { sql, params } = eventQuerySql(db, query);
  const rows = (db.prepare(sql).all(...params) as RawEvent[]).map(eventRowOf);
  return query.afterSequence !== undefined ? rows : rows.reverse();
}
