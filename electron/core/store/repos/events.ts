/** The event journal. Payloads are redacted before they reach this module's callers' rows. */
import { rowId } from '../row-id.js';
import type { Db } from '../db.js';
import { redactShared } from '../../security/redact.js';
import { currentEventSource } from '../event-source.js';
import { errorFromReport, isMissiveError, type ErrorReport } from '../../../../shared/errors.js';
import { storedJson, storedRow } from '../stored-json.js';

export interface NewEvent {
  /** The event's id; a new UUIDv7 when absent. */
  eventId?: string;
  type: string;
  source?: string;
  agentAlias?: string | null;
  contextId?: string | null;
  taskId?: string | null;
  dedupeKey?: string | null;
  payload?: unknown;
  metadata?: Record<string, unknown>;
}

export interface EventRow {
  sequence: number;
  eventId: string;
  timestamp: string;
  source: string;
  type: string;
  agentAlias: string | null;
  contextId: string | null;
  taskId: string | null;
  payload: unknown;
  metadata: Record<string, unknown>;
  /**
   * Set when the row cannot be read (changed outside missive: its payload or metadata is not JSON, nests deeper than
   * MAX_JSON_DEPTH, or has the wrong shape): the `storage::corrupt_row` error naming it; `payload` is then null and
   * `metadata` empty. The journal's listings show such a row marked; a reader that needs it calls `readableEvent`.
   */
  corrupt?: ErrorReport;
}

/**
 * Appends one event with a redacted payload and metadata; returns its sequence and id, or null when the dedupe key was
 * seen. `eventId` is given when the caller already names the event (an update's row id, a stream's message id).
 */
export function appendEvent(db: Db, event: NewEvent, knownSecrets: readonly string[] = []): { sequence: number; eventId: string } | null {
  const { eventId, values } = eventValues(event, knownSecrets);
  const info = db.prepare(APPEND_SQL).run(...values);
  if (info.changes === 0) return null;
  return { sequence: Number(info.lastInsertRowid), eventId };
}

/** The columns an append writes, in the order of `eventValues`. */
export const INSERTED_EVENT_COLUMNS = 'event_id, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json';
const APPEND_SQL = `INSERT INTO events (${INSERTED_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(dedupe_key) DO NOTHING`;

/**
 * The values of the row `event` is appended as (INSERTED_EVENT_COLUMNS), payload and metadata redacted, and its id:
 * what SQLite's append and PostgreSQL's (postgres/repos/journal.ts) write.
 */
export function eventValues(event: NewEvent, knownSecrets: readonly string[] = []): { eventId: string; values: unknown[] } {
  const eventId = event.eventId ?? rowId();
  // Only serialised here: redactShared copies nothing where there is nothing to redact (a stream's event usually).
  const payload = redactShared(event.payload ?? {}, knownSecrets);
  const metadata = event.metadata ? redactShared(event.metadata, knownSecrets) : {};
  return {
    eventId,
    values: [
      eventId,
      event.source ?? currentEventSource(),
      event.type,
      event.agentAlias ?? null,
      event.contextId ?? null,
      event.taskId ?? null,
      event.dedupeKey ?? null,
      JSON.stringify(payload),
      JSON.stringify(metadata),
    ],
  };
}

/** An `events` row as SQLite returns it. */
export interface RawEvent {
  sequence: number;
  event_id: string;
  timestamp: string;
  source: string;
  event_type: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  payload_json: string;
  metadata_json: string;
}

/**
 * An `events` row decoded (PostgreSQL returns its BIGINT sequence as a string). A row whose payload or metadata
 * cannot be read (stored-json.ts) comes back marked `corrupt` rather than failing the read: one tampered event must not
 * hide the rest of a shared journal from `events list` and `export`.
 */
export function eventRowOf(r: Omit<RawEvent, 'sequence'> & { sequence: number | string }): EventRow {
  const sequence = Number(r.sequence);
  const row = {
    sequence,
    eventId: r.event_id,
    timestamp: r.timestamp,
    source: r.source,
    type: r.event_type,
    agentAlias: r.agent_alias,
    contextId: r.context_id,
    taskId: r.task_id,
  };
  const at = storedRow('events', { sequence, event_id: r.event_id });
  try {
    return { ...row, payload: storedJson(r.payload_json, at, 'payload_json'), metadata: storedJson(r.metadata_json, at, 'metadata_json', 'object') };
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    return { ...row, payload: null, metadata: {}, corrupt: error.toReport() };
  }
}

/** The event, or the `storage::corrupt_row` error of a row that could not be read: for the readers that need its payload. */
export function readableEvent<E extends Pick<EventRow, 'corrupt'>>(event: E): E {
  if (event.corrupt) throw errorFromReport(event.corrupt);
  return event;
}

/** True when an event with this dedupe key is already journaled. */
export const hasEventKey = (db: Db, key: string): boolean => db.prepare(`SELECT 1 FROM events WHERE dedupe_key = ?`).get(key) !== undefined;

export interface EventQuery {
  type?: string;
  since?: string;
  agentAlias?: string;
  contextId?: string;
  taskId?: string;
  afterSequence?: number;
  limit?: number;
  /** Free text, matched case-insensitively as a substring of the type, agent, context id, task id or redacted payload. */
  search?: string;
}

/** `text` as a LIKE pattern that matches it literally anywhere: `\`, `%` and `_` are escaped with `\`. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

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
  return { sql: `(${[...columns, `+payload_json LIKE ? ESCAPE '\\'`].join(' OR ')})`, params: [plain, plain, plain, plain, containsPattern(JSON.stringify(text).slice(1, -1))] };
}

/**
 * A `since` matched by at most this many events is read from idx_events_timestamp and sorted; a wider one is checked
 * row by row while walking back by sequence, which stops after `limit` matches (timestamps follow sequences).
 */
export const NARROW_SINCE_EVENTS = 2000;

/** True when `since` matches at most NARROW_SINCE_EVENTS events: counted in the timestamp index, stopping one past. */
function sinceIsNarrow(db: Db, since: string): boolean {
  const { n } = db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE timestamp >= ? LIMIT ${NARROW_SINCE_EVENTS + 1})`).get(since) as { n: number };
  return n <= NARROW_SINCE_EVENTS;
}

/** The equality filters, most selective first: the first one a query has picks its index. */
const FILTER_COLUMNS = [['task_id', 'taskId'], ['context_id', 'contextId'], ['agent_alias', 'agentAlias'], ['event_type', 'type']] as const;

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
  if (query.since) (where.push(`${narrowSince ? '' : '+'}timestamp >= ?`), params.push(query.since));
  const search = searchTerm(query.search);
  if (search) (where.push(search.sql), params.push(...search.params));
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
