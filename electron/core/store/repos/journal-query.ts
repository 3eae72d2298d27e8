/**
 * The journal filters SQLite's event query has no column for: a type prefix (`--type a2a.push.*`) and an outcome
 * (`--outcome failed`). They filter the rows of the store's own plan (`eventQuerySql`, read lazily as a co-routine in
 * sequence order), so the index it picks still decides what is read and `limit` still stops the walk early.
 * (events/journal-query.ts parses them; postgres/repos/journal-reads.ts is PostgreSQL's reading of the same query.)
 */
import type { Db } from '../db.js';
import {
  containsPattern,
  eventQuerySql,
  eventRunsQuery,
  inAnswerOrder,
  listEvents,
  queryIndex,
  type EventRow,
  type QueryIndex,
  type RawEvent,
} from './events.js';
import { mergeRunRows } from './event-runs.js';
import { updateTypeBits } from '../rows/update-runs.js';
import { sqliteJsonField } from '../stored-json.js';
import { EVENT_OUTCOMES, type EventOutcome, type JournalQuery } from '../rows/journal-query.js';
import { failedOutcomeSql } from '../statements/journal-query.js';

// The filters' types and the outcome's statement are neutral (rows/, statements/); named here for this module's callers.
export { EVENT_OUTCOMES, type EventOutcome, type JournalQuery };

/** SQLite's: a payload field read by json_extract, a payload SQLite cannot read as an absent field (stored-json.ts). */
const FAILED_SQL = failedOutcomeSql((path) => sqliteJsonField('payload_json', `$.${path.join('.')}`));

/** The type prefix's and the outcome's conditions on a row, and their parameters. */
function journalConditions(query: JournalQuery): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.typePrefix) {
    where.push(`+event_type LIKE ? ESCAPE '\\'`);
    params.push(typePrefixPattern(query.typePrefix));
  }
  if (query.outcome === 'failed') where.push(FAILED_SQL);
  return { where, params };
}

const typePrefixPattern = (prefix: string) => `${containsPattern(prefix).slice(1, -1)}%`;

/**
 * The SQL `journalEvents` runs for a query with a type prefix or an outcome (tests EXPLAIN it): the rows its index
 * holds. `index`: the query's plan, when the caller has picked it already (events.ts `queryIndex`).
 */
export function journalQuerySql(db: Db, query: JournalQuery, index: QueryIndex = queryIndex(db, query)): { sql: string; params: unknown[] } {
  const { typePrefix: _prefix, outcome: _outcome, limit, ...base } = query;
  const inner = eventQuerySql(db, { ...base, limit: -1 }, index);
  const { where, params } = journalConditions(query);
  const order = query.afterSequence !== undefined ? 'ASC' : 'DESC';
  const defaultLimit = query.afterSequence !== undefined ? 500 : 50;
  return {
    sql: `SELECT * FROM (${inner.sql}) WHERE ${where.join(' AND ')} ORDER BY sequence ${order} LIMIT ?`,
    params: [...inner.params, ...params, limit ?? defaultLimit],
  };
}

/** `listEvents` with the journal's own filters: the newest `limit` matches oldest first, or the next after a cursor. */
export function journalEvents(db: Db, query: JournalQuery): EventRow[] {
  if (!query.typePrefix && !query.outcome) return listEvents(db, query);
  // One plan for both reads (picking it counts rows in an index or two).
  const index = queryIndex(db, query);
  const { sql, params } = journalQuerySql(db, query, index);
  const indexed = db.prepare(sql).all(...params) as RawEvent[];
  // The narrow rows (schema v14) the prefix allows, through their runs, with the same conditions on each row.
  const runs = eventRunsQuery(
    db,
    query,
    updateTypeBits((type) => type.startsWith(query.typePrefix ?? '')),
    index,
  );
  let rows = indexed;
  if (runs) {
    const extra = journalConditions(query);
    rows = mergeRunRows(db, indexed, { ...runs, rows: { where: [...runs.rows.where, ...extra.where], params: [...runs.rows.params, ...extra.params] } });
  }
  return inAnswerOrder(query, rows);
}
