/** The event journal on SQLite. Payloads are redacted before they reach this module's callers' rows (rows/events.ts). */
import type { Db } from '../db.js';
import { containsPattern, eventRowOf, eventValues, type EventRow, type NewEvent, type RawEvent } from '../rows/events.js';
import type { EventQuery } from '../rows/journal-query.js';
import { APPEND, APPEND_UPDATE, EVENTS } from '../statements/events.js';
import { sql } from '../sql.js';
import { NOT_NARROW } from '../statements/update-runs.js';
import { updateTypeBit } from '../rows/update-runs.js';
import { ALL_UPDATE_TYPES, mergeRunRows, type RunsQuery } from './event-runs.js';

// What repos/journal-query.ts (SQLite's journal filters) reads from here.
export { containsPattern, eventRowOf, type EventQuery, type EventRow, type RawEvent };
export type { QueryIndex };

const APPEND_SQL = sql`${APPEND}`;
const APPEND_UPDATE_SQL = sql`${APPEND_UPDATE}`;

/**
 * Appends one event with a redacted payload and metadata; returns its sequence and id, or null when the dedupe key was
 * seen. `eventId` is given when the caller already names the event (an update's row id, a stream's message id).
 */
export const appendEvent = (db: Db, event: NewEvent, knownSecrets: readonly string[] = []) => append(db, APPEND_SQL.sqlite, event, knownSecrets);

/**
 * Appends one update as a narrow row (schema v14): indexed by task and sequence only. The caller records it in its
 * tick's run (sqlite/update-sink.ts), which is how the journal's other filters find it; a narrow row written without
 * its run would be found by task and by a walk of the journal only.
 */
export const appendUpdateRow = (db: Db, event: NewEvent, knownSecrets: readonly string[] = []) => append(db, APPEND_UPDATE_SQL.sqlite, event, knownSecrets);

/** `event`'s values (rows/events.ts `eventValues`) inserted by `statement`: its sequence and id, or null when its dedupe key was seen. */
function append(db: Db, statement: string, event: NewEvent, knownSecrets: readonly string[]): { sequence: number; eventId: string } | null {
  const { eventId, values } = eventValues(event, knownSecrets);
  const info = db.prepare(statement).run(...values);
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
 * A `since` matched by at most this many events is read from idx_events_timestamp (and the runs' idx_runs_timestamp)
 * and sorted; a wider one is checked row by row while walking back by sequence, which stops after `limit` matches
 * (timestamps follow sequences).
 */
export const NARROW_SINCE_EVENTS = 2000;

/**
 * True when `since` matches at most NARROW_SINCE_EVENTS events: the rows in the timestamp index, then the narrow rows
 * of the runs that end after it (schema v14), each count stopping one past.
 */
function sinceIsNarrow(db: Db, since: string): boolean {
  const n = wholeRowsUpTo(db, 'timestamp >= ?', since);
  if (n > NARROW_SINCE_EVENTS) return false;
  const { runs } = db
    .prepare(
      `SELECT coalesce(sum(update_count), 0) AS runs FROM (SELECT update_count FROM journal_runs WHERE last_timestamp >= ? LIMIT ${NARROW_SINCE_EVENTS + 1})`,
    )
    .get(since) as { runs: number };
  return n + runs <= NARROW_SINCE_EVENTS;
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

/** The index a query is read by: a narrow `since`'s, a filter column's, or none (the table by sequence). */
type QueryIndex = 'timestamp' | (typeof FILTER_COLUMNS)[number][0] | null;

export function queryIndex(db: Db, query: EventQuery): QueryIndex {
  if (query.since && sinceIsNarrow(db, query.since)) return 'timestamp';
  const index = FILTER_COLUMNS.find(([, key]) => !!query[key])?.[0] ?? null;
  // An update type's whole rows are the journal's from before schema v14 (its updates since are narrow): when they are
  // few, the type's index is the short read, whatever the agent or context.
  if ((index === 'context_id' || index === 'agent_alias') && query.type && updateTypeBit(query.type) !== 0 && fewWholeRows(db, query.type)) return 'event_type';
  return index;
}

/** True when at most NARROW_SINCE_EVENTS whole rows have this type: counted in idx_events_type, stopping one past. */
const fewWholeRows = (db: Db, type: string): boolean => wholeRowsUpTo(db, 'event_type = ?', type) <= NARROW_SINCE_EVENTS;

/** How many whole rows (the partial indexes' rows) match `condition` on `value`, counting no further than one past NARROW_SINCE_EVENTS. */
function wholeRowsUpTo(db: Db, condition: string, value: string): number {
  const sql = `SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE ${NOT_NARROW} AND ${condition} LIMIT ${NARROW_SINCE_EVENTS + 1})`;
  return (db.prepare(sql).get(value) as { n: number }).n;
}

/** The conditions of `query` on a row, each column `+column` but `index`'s (null: every one), and their parameters. */
function rowConditions(query: EventQuery, index: QueryIndex): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, key] of FILTER_COLUMNS) {
    const value = query[key];
    if (!value) continue;
    where.push(`${column === index ? '' : '+'}${column} = ?`);
    params.push(value);
  }
  // Who acted: no index of their own (schema v13), they filter the rows the plan reads.
  for (const [column, key] of ACTOR_COLUMNS) {
    const value = query[key];
    if (!value) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (query.since) {
    where.push(`${index === 'timestamp' ? '' : '+'}timestamp >= ?`);
    params.push(query.since);
  }
  const search = searchTerm(query.search);
  if (search) {
    where.push(search.sql);
    params.push(...search.params);
  }
  return { where, params };
}

/** Whether `query`'s plan reads a partial index (schema v14): its narrow rows are then read through their runs. */
const readsPartialIndex = (index: QueryIndex): boolean => index !== null && index !== 'task_id';

/**
 * The SQL and parameters `listEvents` runs for `query` over the rows its index holds (the bench and tests EXPLAIN
 * it). It reads one index, picked here rather than by SQLite (which has no statistics to pick by): a narrow `since`'s,
 * else the most selective filter's (task, context, agent, then type), else the table by sequence; `+column` keeps
 * SQLite off the others. A `search` only filters the rows that plan reads (walking back by sequence, it stops after
 * `limit` matches). The context, agent, type and time indexes hold no narrow row (schema v14): a query read by one of
 * them also reads its runs (`eventRunsQuery`), and `listEvents` merges the two.
 */
export function eventQuerySql(db: Db, query: EventQuery = {}, index: QueryIndex = queryIndex(db, query)): { sql: string; params: unknown[] } {
  const { where, params } = rowConditions(query, index);
  if (readsPartialIndex(index)) where.unshift(NOT_NARROW);
  const from = index === 'timestamp' ? 'events INDEXED BY idx_events_timestamp' : 'events';
  return sequenceBounded(from, where, params, query);
}

/** `where` on `from`, within the query's bounds of sequence, in its order, limited. */
function sequenceBounded(from: string, conditions: string[], conditionParams: unknown[], query: EventQuery): { sql: string; params: unknown[] } {
  const where = [...conditions];
  const params = [...conditionParams];
  if (query.beforeSequence !== undefined) {
    where.push('sequence < ?');
    params.push(query.beforeSequence);
  }
  if (query.fromSequence !== undefined) {
    where.push('sequence >= ?');
    params.push(query.fromSequence);
  }
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  if (query.afterSequence !== undefined) {
    // Following the journal forward (tail, export): oldest first from the cursor.
    const sql = `SELECT * FROM ${from} ${clause ? `${clause} AND` : 'WHERE'} sequence > ? ORDER BY sequence ASC LIMIT ?`;
    return { sql, params: [...params, query.afterSequence, query.limit ?? 500] };
  }
  return { sql: `SELECT * FROM ${from} ${clause} ORDER BY sequence DESC LIMIT ?`, params: [...params, query.limit ?? 50] };
}

/**
 * The narrow rows `query` matches, read through their runs (schema v14), or null when its plan needs none (it reads
 * idx_events_task, which holds them, or the whole table). `typeBits`: the update types a type filter keeps (a bit per
 * UPDATE_EVENT_TYPES entry); no narrow row can match a query that keeps none.
 */
export function eventRunsQuery(db: Db, query: EventQuery, typeBits: number, index: QueryIndex = queryIndex(db, query)): RunsQuery | null {
  if (!readsPartialIndex(index)) return null;
  if (query.type) typeBits &= updateTypeBit(query.type);
  if (typeBits === 0) return null;
  const { where, params } = rowConditions(query, null);
  return {
    runs: { agentAlias: query.agentAlias, contextId: query.contextId, since: query.since, narrowSince: index === 'timestamp', types: typeBits },
    rows: { where, params },
    limit: query.limit ?? (query.afterSequence !== undefined ? 500 : 50),
    bounds: { afterSequence: query.afterSequence, beforeSequence: query.beforeSequence, fromSequence: query.fromSequence },
  };
}

/** The newest `limit` matching events oldest first, or with `afterSequence` the next `limit` after it. */
export function listEvents(db: Db, query: EventQuery = {}): EventRow[] {
  const index = queryIndex(db, query);
  const { sql, params } = eventQuerySql(db, query, index);
  const indexed = db.prepare(sql).all(...params) as RawEvent[];
  const runs = eventRunsQuery(db, query, ALL_UPDATE_TYPES, index);
  return inAnswerOrder(query, runs ? mergeRunRows(db, indexed, runs) : indexed);
}

/** A query's rows as read (newest first, or oldest first after a cursor), decoded in the order it answers: oldest first. */
export const inAnswerOrder = (query: Pick<EventQuery, 'afterSequence'>, rows: RawEvent[]): EventRow[] =>
  (query.afterSequence !== undefined ? rows : rows.reverse()).map(eventRowOf);
