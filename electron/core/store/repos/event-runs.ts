/**
 * SQLite's reads of narrow update rows (schema v14) through their runs, and their merge with the rows an index holds.
 * A run (journal_runs) is the updates of one agent and context written in one tick: its range of sequences holds only
 * rows of that tick's transaction, so reading a run is a short walk of the primary key. The runs a query needs are
 * read in the order of its answer (newest last sequence first, or oldest first sequence first after a cursor) until no
 * run left can hold a row of the answer: `limit` rows still stop the read early.
 */
import type { Db } from '../db.js';
import type { RawEvent } from '../rows/events.js';
import { UPDATE_EVENT_TYPES } from '../rows/update-rows.js';

/** Every update type's bit (rows/update-runs.ts). */
export const ALL_UPDATE_TYPES = (1 << UPDATE_EVENT_TYPES.length) - 1;

export interface RunsQuery {
  /** Which runs: of an agent, of a context, ending at or after `since` (read by idx_runs_timestamp when narrow), holding one of `types`. */
  runs: { agentAlias?: string; contextId?: string; since?: string; narrowSince: boolean; types: number };
  /** The conditions on each row of a run (every column `+column`: the run's range is what is read). */
  rows: { where: string[]; params: unknown[] };
  limit: number;
  bounds: { afterSequence?: number; beforeSequence?: number; fromSequence?: number };
}

interface Run {
  first_sequence: number;
  last_sequence: number;
}

const RUN_INDEXES = { last_timestamp: 'idx_runs_timestamp', context_id: 'idx_runs_context', agent_alias: 'idx_runs_agent' } as const;

/** The SQL of the runs a query reads, in the order of its answer (tests EXPLAIN it). */
export function runsSql(q: RunsQuery): { sql: string; params: unknown[] } {
  const where: string[] = ['(types & ?) != 0'];
  const params: unknown[] = [q.runs.types];
  // One index, as the events' plan picks: a narrow since's, else the context's, else the agent's, else the primary key.
  const index = q.runs.narrowSince ? 'last_timestamp' : q.runs.contextId ? 'context_id' : q.runs.agentAlias ? 'agent_alias' : null;
  if (q.runs.contextId) {
    where.push(`${index === 'context_id' ? '' : '+'}context_id = ?`);
    params.push(q.runs.contextId);
  }
  if (q.runs.agentAlias) {
    where.push(`${index === 'agent_alias' ? '' : '+'}agent_alias = ?`);
    params.push(q.runs.agentAlias);
  }
  if (q.runs.since) {
    where.push(`${index === 'last_timestamp' ? '' : '+'}last_timestamp >= ?`);
    params.push(q.runs.since);
  }
  const { afterSequence, beforeSequence, fromSequence } = q.bounds;
  if (afterSequence !== undefined) {
    where.push('last_sequence > ?');
    params.push(afterSequence);
  }
  if (fromSequence !== undefined) {
    where.push('last_sequence >= ?');
    params.push(fromSequence);
  }
  if (beforeSequence !== undefined) {
    where.push('first_sequence < ?');
    params.push(beforeSequence);
  }
  const order = afterSequence !== undefined ? 'first_sequence ASC' : 'last_sequence DESC';
  // Named: without statistics SQLite would rather walk every run in the answer's order than sort a few.
  const from = index ? `journal_runs INDEXED BY ${RUN_INDEXES[index]}` : 'journal_runs';
  return { sql: `SELECT first_sequence, last_sequence FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order}`, params };
}

/** The SQL of one run's rows (tests EXPLAIN it): its range of sequences, narrow rows only, the query's conditions. */
export function runRowsSql(q: RunsQuery, forward: boolean): string {
  const where = ['sequence >= ?', 'sequence <= ?', 'via_run = 1', ...q.rows.where];
  return `SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY sequence ${forward ? 'ASC' : 'DESC'} LIMIT ?`;
}

/**
 * `indexed` (the rows the query's index holds, in the answer's order, at most `limit`) merged with the narrow rows of
 * the query's runs: the answer's first `limit` rows, in its order.
 */
export function mergeRunRows(db: Db, indexed: RawEvent[], q: RunsQuery): RawEvent[] {
  const forward = q.bounds.afterSequence !== undefined;
  const { sql, params } = runsSql(q);
  const readRun = db.prepare(runRowsSql(q, forward));
  // A run's range is cut to the query's bounds: a cursor may fall inside a run (a tick's rows of one agent).
  const { afterSequence, fromSequence } = q.bounds;
  const first = Math.max(fromSequence ?? Number.MIN_SAFE_INTEGER, afterSequence !== undefined ? afterSequence + 1 : Number.MIN_SAFE_INTEGER);
  const last = q.bounds.beforeSequence !== undefined ? q.bounds.beforeSequence - 1 : Number.MAX_SAFE_INTEGER;
  // Ahead of `b` in the answer's order.
  const ahead = forward ? (a: number, b: number) => a < b : (a: number, b: number) => a > b;
  let rows = indexed;
  /** The answer's last row so far once it holds `limit` rows: a run that cannot reach past it is not read. */
  let edge: number | undefined = rows.length >= q.limit ? rows[q.limit - 1]!.sequence : undefined;
  for (const run of db.prepare(sql).iterate(...params) as IterableIterator<Run>) {
    if (edge !== undefined && !ahead(forward ? run.first_sequence : run.last_sequence, edge)) break;
    const found = readRun.all(Math.max(run.first_sequence, first), Math.min(run.last_sequence, last), ...q.rows.params, q.limit) as RawEvent[];
    if (found.length === 0) continue;
    rows = mergeOrdered(rows, found, ahead, q.limit);
    if (rows.length >= q.limit) edge = rows[q.limit - 1]!.sequence;
  }
  return rows;
}

/** Two lists in the answer's order as one, a row in both once, at most `limit`. */
function mergeOrdered(a: RawEvent[], b: RawEvent[], ahead: (x: number, y: number) => boolean, limit: number): RawEvent[] {
  const out: RawEvent[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && ahead(x.sequence, y.sequence))) out.push(a[i++]!);
    else if (x === undefined || ahead(y.sequence, x.sequence)) out.push(b[j++]!);
    else {
      out.push(a[i++]!);
      j++;
    }
  }
  return out;
}
