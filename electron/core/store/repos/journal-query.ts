/**
 * The journal filters SQLite's event query has no column for: a type prefix (`--type a2a.push.*`) and an outcome
 * (`--outcome failed`). They filter the rows of the store's own plan (`eventQuerySql`, read lazily as a co-routine in
 * sequence order), so the index it picks still decides what is read and `limit` still stops the walk early.
 * (events/journal-query.ts parses them; postgres/repos/journal-reads.ts is PostgreSQL's reading of the same query.)
 */
import type { Db } from '../db.js';
import { containsPattern, eventQuerySql, eventRowOf, listEvents, type EventQuery, type EventRow, type RawEvent } from './events.js';
import { sqliteJsonField } from '../stored-json.js';

export const EVENT_OUTCOMES = ['failed'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/**
 * What `--outcome failed` keeps: a failed call or run (types ending in .failed, .rejected, .timeout or .error: sends,
 * streams, card fetches, refused callbacks, collective members, reduces, jobs; and the counts of refused callbacks,
 * a2a.push.rejected_summary), a task that ended failed or rejected
 * (as send, stream, task get|wait|cancel or barrier saw it), and a collective whose summary is not a success. `field`
 * writes the engine's expression of a payload field by its path (SQLite here, PostgreSQL in postgres/repos/journal-reads.ts).
 */
export function failedOutcomeSql(field: (path: readonly string[]) => string): string {
  return `(
  event_type LIKE '%.failed' OR event_type LIKE '%.rejected' OR event_type LIKE '%.timeout' OR event_type LIKE '%.error'
  OR event_type = 'a2a.push.rejected_summary'
  OR (event_type = 'a2a.send.completed' AND ${field(['task', 'state'])} IN ('failed', 'rejected'))
  OR (event_type IN ('a2a.stream.completed', 'a2a.task.updated', 'a2a.task.cancel_requested') AND ${field(['state'])} IN ('failed', 'rejected'))
  OR (event_type LIKE 'missive.%.completed' AND ${field(['status'])} IN ('failed', 'partial_failure', 'timeout'))
)`;
}

/** SQLite's: a payload field read by json_extract, a payload SQLite cannot read as an absent field (stored-json.ts). */
const FAILED_SQL = failedOutcomeSql((path) => sqliteJsonField('payload_json', `$.${path.join('.')}`));

export interface JournalQuery extends EventQuery {
  typePrefix?: string;
  outcome?: EventOutcome;
}

/** The SQL `journalEvents` runs for a query with a type prefix or an outcome (tests EXPLAIN it). */
export function journalQuerySql(db: Db, query: JournalQuery): { sql: string; params: unknown[] } {
  const { typePrefix, outcome, limit, ...base } = query;
  const inner = eventQuerySql(db, { ...base, limit: -1 });
  const where: string[] = [];
  const params: unknown[] = [];
  if (typePrefix) (where.push(`event_type LIKE ? ESCAPE '\\'`), params.push(`${containsPattern(typePrefix).slice(1, -1)}%`));
  if (outcome === 'failed') where.push(FAILED_SQL);
  const order = query.afterSequence !== undefined ? 'ASC' : 'DESC';
  const defaultLimit = query.afterSequence !== undefined ? 500 : 50;
  return { sql: `SELECT * FROM (${inner.sql}) WHERE ${where.join(' AND ')} ORDER BY sequence ${order} LIMIT ?`, params: [...inner.params, ...params, limit ?? defaultLimit] };
}

/** `listEvents` with the journal's own filters: the newest `limit` matches oldest first, or the next after a cursor. */
export function journalEvents(db: Db, query: JournalQuery): EventRow[] {
  if (!query.typePrefix && !query.outcome) return listEvents(db, query);
  const { sql, params } = journalQuerySql(db, query);
  const rows = (db.prepare(sql).all(...params) as RawEvent[]).map(eventRowOf);
  return query.afterSequence !== undefined ? rows : rows.reverse();
}
