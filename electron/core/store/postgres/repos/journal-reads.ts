/**
 * Reading the event journal on PostgreSQL: `events list` (the newest matches), `events tail` and `events export`
 * (reading on from a cursor), with repos/journal-query.ts's filters and SQLite's meaning of each.
 *
 * Plans: the statements name no index. PostgreSQL's planner picks one from its statistics (what SQLite's
 * `eventQuerySql` has to pick by hand): a filter's index read backwards by sequence (v1's idx_events_task, _context,
 * _agent, _type; a `--type a2a.push.*` prefix is a range of idx_events_type, every TEXT column collating "C"), a narrow
 * `--since`'s idx_events_timestamp, or the primary key walked back until `limit` rows matched. A search and
 * `--outcome failed` only filter the rows the plan reads. bench/journal-postgres.ts times the 21 query shapes of
 * bench/journal.ts at 1,000,000 events and prints their plans.
 *
 * Reading on (tail, export): a sequence is drawn when a row is inserted, not when its transaction commits, so two
 * hosts' transactions commit out of sequence order: host A inserts N and is still working when host B inserts N+1
 * and commits. A poll reading "sequence > the last one seen" then returns N+1, and once A commits, N is below the
 * cursor and never shown. So the cursor here is not a sequence but a snapshot (`pg_current_snapshot()`: which
 * transactions had committed when it was taken), and every event records its transaction (`xact_id`, v2). A poll:
 *   1. takes a new snapshot `upTo`;
 *   2. returns the matching events whose transaction is visible in `upTo` and was not in the previous poll's
 *      snapshot `seen`, by sequence (`limit` at a time, paging on by sequence within this same pair of snapshots);
 *   3. goes on from `seen = upTo`.
 * A transaction's events become visible together, at its commit, and a snapshot taken later sees all an earlier one
 * saw (one server), so every committed event is returned exactly once: by the first poll whose snapshot sees its
 * transaction. In the example, the poll that returned N+1 did not see A; the first poll after A commits returns N.
 * Rolled-back events are never visible. Between two snapshots only transactions from `seen`'s xmin (the oldest one
 * still running then) on can be new, so a poll reads idx_events_xact from there: the events of the transactions of
 * the last moments, not the journal. (A transaction left open for hours keeps that range wide, and polls slower.)
 * Events come out in commit order, poll by poll; within a poll, by sequence: a late commit's lower sequence is shown
 * after higher ones already shown.
 *
 * `end()` is a snapshot taken now (tail shows what commits after it); `start()` is none: export's first call takes
 * one and pages through everything it sees, so an export is one consistent snapshot of the journal.
 */
import { containsPattern, eventRowOf, type RawEvent } from '../../rows/events.js';
import { failedOutcomeSql } from '../../statements/journal-query.js';
import { configError } from '../../../../../shared/errors.js';
import type { JournalCursor, JournalFilters, JournalReader } from '../../storage.js';
import { run, type Query } from './query.js';

/** The columns of an events row the readers decode (`eventRowOf`). */
export const EVENT_READ_COLUMNS =
  'sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, payload_json, metadata_json, actor_host, actor_user, actor_id';

/**
 * What `--outcome failed` keeps (repos/journal-query.ts), a payload field read by json_text_path (v2) as SQLite's
 * json_extract reads it. The type tests come first, so only the few rows of those types have their payload read.
 */
const FAILED_SQL = failedOutcomeSql((path) => `json_text_path(payload_json, '{${path.join(',')}}')`);

/** Numbered parameters, as pg takes them. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The WHERE terms of the journal's filters. LIKE and ILIKE escape with `\` by default (containsPattern's escape).
 * ILIKE on a "C" column folds ASCII letters only, as SQLite's LIKE does. The payload is matched as the JSON text it is
 * stored as (a `"` in the search matches the `\"` stored), as on SQLite.
 */
function filterTerms(query: JournalFilters, p: Params): string[] {
  const where: string[] = [];
  if (query.taskId) where.push(`task_id = ${p.add(query.taskId)}`);
  if (query.contextId) where.push(`context_id = ${p.add(query.contextId)}`);
  if (query.agentAlias) where.push(`agent_alias = ${p.add(query.agentAlias)}`);
  if (query.type) where.push(`event_type = ${p.add(query.type)}`);
  if (query.actorHost) where.push(`actor_host = ${p.add(query.actorHost)}`);
  if (query.actorUser) where.push(`actor_user = ${p.add(query.actorUser)}`);
  if (query.actorId) where.push(`actor_id = ${p.add(query.actorId)}`);
  if (query.typePrefix) where.push(`event_type LIKE ${p.add(`${containsPattern(query.typePrefix).slice(1, -1)}%`)}`);
  if (query.since) where.push(`timestamp >= ${p.add(query.since)}`);
  if (query.outcome === 'failed') where.push(FAILED_SQL);
  const text = query.search?.trim();
  if (text) {
    const plain = p.add(containsPattern(text));
    const json = p.add(containsPattern(JSON.stringify(text).slice(1, -1)));
    where.push(
      `(event_type ILIKE ${plain} OR agent_alias ILIKE ${plain} OR context_id ILIKE ${plain} OR task_id ILIKE ${plain} OR payload_json ILIKE ${json})`,
    );
  }
  return where;
}

/** What the journal's readers read on from (see the module's comment). */
export interface SnapshotCursor {
  /** The snapshot whose events were all returned; null: none (export's start). */
  seen: string | null;
  /** While paging through one poll's events: that poll's snapshot, and the last sequence returned. */
  upTo?: string;
  after?: number;
}

const PREFIX = 'postgres:';
const encode = (cursor: SnapshotCursor) => `${PREFIX}${JSON.stringify(cursor)}` as JournalCursor;

/** What a cursor of this reader holds (the bench EXPLAINs the poll it makes). */
export function snapshotCursor(cursor: JournalCursor): SnapshotCursor {
  if (cursor.startsWith(PREFIX)) {
    const value = JSON.parse(cursor.slice(PREFIX.length)) as SnapshotCursor;
    if (value && (value.seen === null || typeof value.seen === 'string')) return value;
  }
  throw new Error(`not a PostgreSQL journal cursor: ${cursor.slice(0, 40)}`);
}

/** A pg_snapshot's xmin and xmax (its text is `xmin:xmax:xip,…`). */
function bounds(snapshot: string): { xmin: string; xmax: string } {
  const [xmin, xmax] = snapshot.split(':');
  if (!xmin || !xmax || !/^\d+$/.test(xmin) || !/^\d+$/.test(xmax)) throw new Error(`not a pg_snapshot: ${snapshot.slice(0, 40)}`);
  return { xmin, xmax };
}

/** The statement `list` runs (the bench and tests EXPLAIN it): the newest `limit` matches, newest first. */
export function listSql(query: JournalFilters & { limit?: number }): { sql: string; params: unknown[] } {
  const p = new Params();
  const where = filterTerms(query, p);
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  return { sql: `SELECT ${EVENT_READ_COLUMNS} FROM events ${clause} ORDER BY sequence DESC LIMIT ${p.add(query.limit ?? 50)}`, params: p.values };
}

/**
 * The statement `after` runs for one page (the bench and tests EXPLAIN it): the matching events of the transactions
 * visible in `upTo` and not in `seen`, after sequence `after`, oldest first. The xact_id range (from `seen`'s xmin to
 * `upTo`'s xmax) is what idx_events_xact reads; the visibility tests then drop the transactions `seen` saw and those
 * `upTo` did not.
 */
export function afterSql(query: JournalFilters, page: { seen: string | null; upTo: string; after: number }, limit: number): { sql: string; params: unknown[] } {
  const p = new Params();
  const where: string[] = [];
  if (page.seen !== null) {
    const seen = p.add(page.seen);
    where.push(`xact_id >= ${p.add(bounds(page.seen).xmin)}::xid8`, `NOT pg_visible_in_snapshot(xact_id, ${seen}::pg_snapshot)`);
  }
  where.push(`xact_id < ${p.add(bounds(page.upTo).xmax)}::xid8`, `pg_visible_in_snapshot(xact_id, ${p.add(page.upTo)}::pg_snapshot)`);
  if (page.after > 0) where.push(`sequence > ${p.add(page.after)}`);
  where.push(...filterTerms(query, p));
  return { sql: `SELECT ${EVENT_READ_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY sequence ASC LIMIT ${p.add(limit)}`, params: p.values };
}

/** The statement `page` runs: the next `limit` matches below `beforeSequence` (all of them without it), newest first. */
export function pageSql(query: JournalFilters, beforeSequence: number | undefined, limit: number): { sql: string; params: unknown[] } {
  const p = new Params();
  const where = filterTerms(query, p);
  if (beforeSequence !== undefined) where.push(`sequence < ${p.add(beforeSequence)}`);
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  return { sql: `SELECT ${EVENT_READ_COLUMNS} FROM events ${clause} ORDER BY sequence DESC LIMIT ${p.add(limit)}`, params: p.values };
}

export function postgresJournalReads(query: Query): JournalReader {
  const snapshotNow = async () => (await run<{ s: string }>(query, 'journal.snapshot', `SELECT pg_current_snapshot()::text AS s`)).rows[0]!.s;
  return {
    async list(q) {
      const { sql, params } = listSql(q);
      return (await run<RawEvent>(query, 'journal.list', sql, params)).rows.map(eventRowOf).reverse();
    },

    end: async () => encode({ seen: await snapshotNow() }),

    start: () => encode({ seen: null }),

    // One statement: it runs on the server, so a long scan holds no loop here; `limit` bounds what is decoded. Reading
    // on after a sequence number is refused, as it always was here: sequences are not commit-ordered (see above).
    async page(q, from, limit) {
      if (from.afterSequence !== undefined) {
        throw configError(
          'store_unsupported',
          'reading the journal on after a sequence number (events.query afterSequence) needs the SQLite store: on a shared store sequences are not commit-ordered',
          'Follow the journal with `missive events tail` (the Events view tails it live), or leave out afterSequence.',
        );
      }
      const { sql, params } = pageSql(q, from.beforeSequence, limit);
      const events = (await run<RawEvent>(query, 'journal.page', sql, params)).rows.map(eventRowOf).reverse();
      return events.length < limit ? { events } : { events, next: { beforeSequence: events[0]!.sequence } };
    },

    async after(q, cursor, limit) {
      const { seen, upTo = await snapshotNow(), after = 0 } = snapshotCursor(cursor);
      const { sql, params } = afterSql(q, { seen, upTo, after }, limit);
      const events = (await run<RawEvent>(query, 'journal.after', sql, params)).rows.map(eventRowOf);
      // A full page: more of this poll's events may follow (by sequence, within the same two snapshots).
      const more = events.length === limit;
      return { events, more, cursor: encode(more ? { seen, upTo, after: events.at(-1)!.sequence } : { seen: upTo }) };
    },
  };
}
