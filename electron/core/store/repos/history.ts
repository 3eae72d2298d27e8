/**
 * The journal as a request history: the started / completed / failed events of sends and streams, the request and
 * response message rows they point at, the events a stream left, and each agent's last call events (health).
 * Reads only; the partial indexes of schema v6 serve the queries, whose `event_type IN (…)` terms repeat theirs.
 */
import { interleave, updatesOfContext } from './update-rows.js';
import type { Db } from '../db.js';
import { sqliteJsonField, storedJson, storedRow } from '../stored-json.js';
import { isMissiveError } from '../../../../shared/errors.js';

export type RequestOperation = 'send' | 'stream';

/** The event types idx_events_request_message holds (the migration's list, verbatim). */
const REQUEST_TYPES = `event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed')`;
/** The event types idx_events_calls holds (the migration's list, verbatim). */
const CALL_TYPES = `event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed')`;

/** Every event type idx_events_calls holds, for callers that ask for one of them. */
export const CALL_EVENT_TYPES = [
  'a2a.send.started',
  'a2a.send.completed',
  'a2a.send.failed',
  'a2a.stream.started',
  'a2a.stream.completed',
  'a2a.stream.failed',
  'a2a.agent_card.fetched',
  'a2a.agent_card.not_modified',
  'a2a.agent_card.failed',
] as const;
export type CallEventType = (typeof CALL_EVENT_TYPES)[number];

export interface JournalRow {
  sequence: number;
  timestamp: string;
  type: string;
  agentAlias: string | null;
  contextId: string | null;
  taskId: string | null;
  payload: Record<string, unknown>;
}

/** A journal row as the database returns it (PostgreSQL's BIGINT sequence as a string: `journalRowOf` converts it). */
export interface RawJournalRow {
  sequence: number | string;
  timestamp: string;
  event_type: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  payload_json: string;
}

const COLUMNS = 'sequence, timestamp, event_type, agent_alias, context_id, task_id, payload_json';

/** A raw row as a JournalRow (also the PostgreSQL store's decoder); a payload that cannot be read is storage::corrupt_row. */
export const journalRowOf = (r: RawJournalRow): JournalRow => ({
  sequence: Number(r.sequence),
  timestamp: r.timestamp,
  type: r.event_type,
  agentAlias: r.agent_alias,
  contextId: r.context_id,
  taskId: r.task_id,
  payload: storedJson(r.payload_json, storedRow('events', { sequence: Number(r.sequence) }), 'payload_json', 'object'),
});

/**
 * A call event for agent health (SQLite's and PostgreSQL's decoder): its time and type are what health reads; a
 * payload that cannot be read is replaced by its storage::corrupt_row error as the call's `error`, so one tampered
 * event shows on its own agent's health instead of failing every agent's.
 */
export function callEventOf(r: RawJournalRow): JournalRow {
  try {
    return journalRowOf(r);
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    const { code, message, category } = error.toReport();
    return { ...journalRowOf({ ...r, payload_json: '{}' }), payload: { error: { code, message, category } } };
  }
}

export interface StartsQuery {
  agent?: string;
  operation?: RequestOperation;
  /** Only starts older than this sequence (the cursor of the next page). */
  beforeSequence?: number;
  limit: number;
}

/** The SQL and parameters `listRequestStarts` runs (tests EXPLAIN it): one index range per operation, merged. */
export function requestStartsSql(q: StartsQuery): { sql: string; params: unknown[] } {
  const operations: RequestOperation[] = q.operation ? [q.operation] : ['send', 'stream'];
  const params: unknown[] = [];
  const ranges = operations.map((operation) => {
    // With an agent: idx_events_calls (agent, type, sequence); without: idx_events_type (type, sequence).
    const where = q.agent ? [`agent_alias = ?`, `event_type = 'a2a.${operation}.started'`, CALL_TYPES] : [`event_type = 'a2a.${operation}.started'`];
    if (q.agent) params.push(q.agent);
    if (q.beforeSequence !== undefined) (where.push('sequence < ?'), params.push(q.beforeSequence));
    params.push(q.limit);
    return `SELECT * FROM (SELECT ${COLUMNS} FROM ${q.agent ? 'events INDEXED BY idx_events_calls' : 'events'} WHERE ${where.join(' AND ')} ORDER BY sequence DESC LIMIT ?)`;
  });
  params.push(q.limit);
  return { sql: `${ranges.join(' UNION ALL ')} ORDER BY sequence DESC LIMIT ?`, params };
}

/** The newest `limit` send / stream starts (older than `beforeSequence`), newest first. */
export function listRequestStarts(db: Db, q: StartsQuery): JournalRow[] {
  const { sql, params } = requestStartsSql(q);
  return (db.prepare(sql).all(...params) as RawJournalRow[]).map(journalRowOf);
}

/**
 * The SQL `requestEvents` runs for `count` message ids (tests EXPLAIN it). INDEXED BY: without statistics SQLite
 * would rather read every request event through idx_events_type.
 */
export const requestEventsSql = (count: number): string =>
  `SELECT ${COLUMNS} FROM events INDEXED BY idx_events_request_message WHERE json_extract(payload_json, '$.message_id') IN (${Array(count).fill('?').join(', ')}) AND ${REQUEST_TYPES} ORDER BY sequence`;

/** The SQL of the lookup by prefix (tests may EXPLAIN it): distinct request ids in `[prefix, prefix + U+10FFFF)`. */
export const requestIdsByPrefixSql = `SELECT DISTINCT json_extract(payload_json, '$.message_id') AS id FROM events INDEXED BY idx_events_request_message WHERE json_extract(payload_json, '$.message_id') >= ? AND json_extract(payload_json, '$.message_id') < ? AND ${REQUEST_TYPES} ORDER BY id LIMIT 2`;

/** At most two request message ids from `prefix` on, in order (read by a range of idx_events_request_message). */
export function requestIdsByPrefix(db: Db, prefix: string): string[] {
  return (db.prepare(requestIdsByPrefixSql).all(prefix, `${prefix}\u{10FFFF}`) as Array<{ id: string }>).map((r) => r.id);
}

/** The started, completed and failed events of these requests (by request message id), oldest first. */
export function requestEvents(db: Db, messageIds: readonly string[]): JournalRow[] {
  if (messageIds.length === 0) return [];
  return (db.prepare(requestEventsSql(messageIds.length)).all(...messageIds) as RawJournalRow[]).map(journalRowOf);
}

/**
 * The events a stream applied (`a2a.stream.task|message|status_update|artifact_update` whose payload names the
 * request), in order, between its start and its end (`beforeSequence`, or the journal's end while it runs). At most
 * `maxScanned` journal rows after the start are looked at, so a caller bounds the work on a long or busy journal.
 */
export function* streamEventsOf(db: Db, messageId: string, afterSequence: number, beforeSequence: number | null, maxScanned: number): Generator<JournalRow> {
  const rows = db
    .prepare(
      `SELECT ${COLUMNS} FROM (SELECT ${COLUMNS} FROM events WHERE sequence > ? AND sequence < ? ORDER BY sequence LIMIT ?)
       WHERE event_type LIKE 'a2a.stream.%' AND ${sqliteJsonField('payload_json', '$.request_message_id')} = ? ORDER BY sequence`,
    )
    .iterate(afterSequence, beforeSequence ?? Number.MAX_SAFE_INTEGER, maxScanned, messageId) as IterableIterator<RawJournalRow>;
  for (const row of rows) yield journalRowOf(row);
}

export interface MessageRow {
  /** The row's position in insertion order (SQLite rowid; an update read from the journal gives its sequence). */
  row: number;
  message_id: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  direction: string;
  role: string;
  content: Record<string, unknown>;
  created_at: string;
}

/** A message row as stored (`MESSAGE_COLUMNS`). */
export type RawMessage = Omit<MessageRow, 'content'> & { content_json: string };
const MESSAGE_COLUMNS = 'rowid AS row, message_id, agent_alias, context_id, task_id, direction, role, content_json, created_at';
/** A stored message row as a MessageRow (also the PostgreSQL store's decoder, its rowid a number). */
export const messageFromRaw = ({ content_json, ...rest }: RawMessage): MessageRow => ({
  ...rest,
  content: storedJson(content_json, storedRow('messages', { message_id: rest.message_id }), 'content_json', 'object'),
});

/** One message row by its local id. */
export function getMessageRow(db: Db, messageId: string): MessageRow | undefined {
  const row = db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE message_id = ?`).get(messageId) as RawMessage | undefined;
  return row && messageFromRaw(row);
}

/**
 * The first direct answer (a response row of no task) of `agent` stored after the request row `afterRow`: how a
 * journal written before `a2a.send.completed` named its response row links a message answer to its request.
 */
export function firstDirectResponseAfter(db: Db, agent: string, afterRow: number): MessageRow | undefined {
  const row = db
    .prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE rowid > ? AND agent_alias = ? AND direction = 'response' AND task_id IS NULL ORDER BY rowid LIMIT 1`)
    .get(afterRow, agent) as RawMessage | undefined;
  return row && messageFromRaw(row);
}

/** The SQL `latestCallEvent` runs (tests EXPLAIN it). */
export const latestCallEventSql = `SELECT ${COLUMNS} FROM events INDEXED BY idx_events_calls WHERE agent_alias = ? AND event_type = ? AND ${CALL_TYPES} ORDER BY sequence DESC LIMIT 1`;

/** The agent's newest event of one call type (a send, stream or card fetch event), from idx_events_calls. */
export function latestCallEvent(db: Db, agent: string, type: CallEventType): JournalRow | undefined {
  const row = db.prepare(latestCallEventSql).get(agent, type) as RawJournalRow | undefined;
  return row && callEventOf(row);
}

/** The newest event of each of `types` for each of `agents`, where there is one: one `latestCallEvent` seek per pair. */
export function newestCallEvents(db: Db, agents: readonly string[], types: readonly CallEventType[]): JournalRow[] {
  const rows: JournalRow[] = [];
  for (const agent of agents) {
    for (const type of types) {
      const row = latestCallEvent(db, agent, type);
      if (row) rows.push(row);
    }
  }
  return rows;
}

/** A chunk's parts (also the PostgreSQL store's decoder): a JSON array, or storage::corrupt_row naming the chunk. */
export const chunkParts = (taskId: string, row: { artifact_id: string; chunk_index?: number; parts_json: string }): unknown[] =>
  storedJson(row.parts_json, storedRow('artifact_chunks', { task_id: taskId, artifact_id: row.artifact_id, ...(row.chunk_index === undefined ? {} : { chunk_index: row.chunk_index }) }), 'parts_json', 'array');

/**
 * A task's artifact parts chunk by chunk (artifact id, then chunk order; one artifact's only with `artifactId`), at
 * most `maxChunks`: the start of what a task produced, for a preview, without assembling a long artifact whole.
 */
export function* artifactChunksOf(db: Db, taskId: string, maxChunks: number, artifactId?: string): Generator<{ artifactId: string; parts: unknown[] }> {
  const rows = (
    artifactId === undefined
      ? db.prepare(`SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks WHERE task_id = ? ORDER BY artifact_id, chunk_index LIMIT ?`).iterate(taskId, maxChunks)
      : db.prepare(`SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks WHERE task_id = ? AND artifact_id = ? ORDER BY chunk_index LIMIT ?`).iterate(taskId, artifactId, maxChunks)
  ) as IterableIterator<{ artifact_id: string; chunk_index: number; parts_json: string }>;
  for (const row of rows) yield { artifactId: row.artifact_id, parts: chunkParts(taskId, row) };
}

export interface ThreadMessageRow extends MessageRow {
  protocol_message_id: string | null;
}

/** A context's message rows and its updates (read from the journal, update-rows.ts) in the order they were stored. */
export function messagesOfContext(db: Db, contextId: string): ThreadMessageRow[] {
  const messages = (
    db.prepare(`SELECT ${MESSAGE_COLUMNS}, protocol_message_id FROM messages WHERE context_id = ? ORDER BY created_at, rowid`).all(contextId) as Array<RawMessage & { protocol_message_id: string | null }>
  ).map((r) => ({ ...messageFromRaw(r), protocol_message_id: r.protocol_message_id }));
  const updates = updatesOfContext(db, contextId).map(({ metadata: _metadata, ...row }): ThreadMessageRow => row);
  return interleave(messages, updates);
}

/** The first `limit` requests sent in a context, oldest first (a context list's preview reads only these). */
export function firstRequestsOfContext(db: Db, contextId: string, limit: number): MessageRow[] {
  return (
    db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE context_id = ? AND direction = 'request' ORDER BY created_at, rowid LIMIT ?`).all(contextId, limit) as RawMessage[]
  ).map(messageFromRaw);
}

export interface ThreadArtifactRow {
  task_id: string;
  /** The agent of the artifact's task. */
  agent_alias: string | null;
  artifact_id: string;
  name: string | null;
  mime_type: string | null;
  kind: string;
  version: number;
  last_chunk: boolean;
  chunks: number;
  created_at: string;
  updated_at: string;
}

/** The artifacts of a context (by their own context, or their task's), oldest first; parts are not read. */
export function artifactsOfContext(db: Db, contextId: string): ThreadArtifactRow[] {
  return (
    db
      .prepare(
        `SELECT a.task_id, t.agent_alias, a.artifact_id, a.name, a.mime_type, a.kind, a.version, a.last_chunk, a.created_at, a.updated_at,
                (SELECT count(*) FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id) AS chunks
         FROM artifacts a LEFT JOIN tasks t ON t.task_id = a.task_id
         WHERE a.context_id = ? OR a.task_id IN (SELECT task_id FROM tasks WHERE context_id = ?) ORDER BY a.created_at, a.rowid`,
      )
      .all(contextId, contextId) as Array<Omit<ThreadArtifactRow, 'last_chunk'> & { last_chunk: number }>
  ).map((r) => ({ ...r, last_chunk: r.last_chunk === 1 }));
}
