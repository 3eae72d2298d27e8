/** How the PostgreSQL repositories run their statements: on the pool, or on a transaction's client (postgres/storage.ts). */
import type { QueryResult, QueryResultRow } from 'pg';
import type { MissiveError } from '../../../../../shared/errors.js';
import { queryFailure } from '../query-errors.js';
import type { Statement } from '../../sql.js';

/** One statement with `$n` parameters; rejects with pg's own error. */
export type Query = <R extends QueryResultRow = QueryResultRow>(sql: string, params?: unknown[]) => Promise<QueryResult<R>>;

/**
 * Runs one statement (PostgreSQL's text, or a statement written for both engines: statements/) for `what` (e.g. "agents.insert", in error messages). A failure becomes a storage error
 * (query-errors.ts), unless `special` maps it first (a unique key the services report in their own words).
 */
export async function run<R extends QueryResultRow = QueryResultRow>(
  query: Query,
  what: string,
  sql: string | Statement,
  params: unknown[] = [],
  special?: (error: unknown) => MissiveError | undefined,
): Promise<QueryResult<R>> {
  try {
    return await query<R>(typeof sql === 'string' ? sql : sql.postgres, params);
  } catch (error) {
    throw special?.(error) ?? queryFailure(error, what);
  }
}

/** Rows changed, as SQLite's `changes`. */
export const changed = (result: QueryResult): number => result.rowCount ?? 0;
