/** Fragments the statements of several areas share (sql.ts). */
import { differ, fragment, type Fragment } from '../sql.js';
import { sqliteJsonField } from '../stored-json.js';

/** PostgreSQL's count(*) is a bigint, which pg reads as a string: read as an int there. */
export const COUNT = differ('count(*)', 'count(*)::int');

/**
 * The most a count summed from stored figures is read as (a context's updates by its runs, an artifact's received
 * chunks): a billion. A figure changed outside missive (a shared store's row) cannot push a sum past what the
 * listing's arithmetic holds (PostgreSQL's int, SQLite's sum), so the listing still answers, only with a wrong count.
 */
export const MAX_SUMMED_COUNT = 1_000_000_000;

const SMALLER = differ('min', 'least');

/** `value` taken as 0 to MAX_SUMMED_COUNT (a stored figure no CHECK bounds). */
export const withinCount = (value: string): Fragment => fragment`${SMALLER}(${differ('max', 'greatest')}(${value}, 0), ${MAX_SUMMED_COUNT})`;

/** The sum of `value` over the rows, at most MAX_SUMMED_COUNT; PostgreSQL's sum of integers is a bigint: read as an int. */
export const cappedSum = (value: string | Fragment): Fragment => fragment`${SMALLER}(coalesce(sum(${value}), 0), ${MAX_SUMMED_COUNT})${differ('', '::int')}`;

/** The chunks an artifact received, from its stored chunk rows `c` (a row a stream's tick wrote holds several: its `pieces`, schema v15). */
export const RECEIVED_CHUNKS = cappedSum('c.pieces');

/**
 * `+` before a column keeps SQLite off that column's index (the query's other filter picks it); PostgreSQL's planner
 * picks by its statistics and reads no such mark.
 */
export const NO_INDEX = differ('+', '');

/** Equal, NULLs included (SQLite's `IS`, PostgreSQL's `IS NOT DISTINCT FROM`). */
export const SAME = differ('IS', 'IS NOT DISTINCT FROM');

/**
 * A text field of a JSON column by its key: SQLite's json_extract (a document it cannot read as an absent field,
 * stored-json.ts), PostgreSQL's json_text_field (migration 0001: it reads what PostgreSQL's json type refuses).
 */
export const jsonField = (column: string, key: string) => differ(sqliteJsonField(column, `$.${key}`), `json_text_field(${column}, '${key}')`);

/** The PostgreSQL row lock of a read that a write follows in the same transaction (SQLite's writer holds the file). */
export const FOR_UPDATE = differ('', ' FOR UPDATE');

/** `text` as a parameter: a text parameter that may be NULL (PostgreSQL must be told its type). */
export const TEXT_PARAM = fragment`CAST(? AS TEXT)`;
