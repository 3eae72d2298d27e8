/**
 * The journal as a request history: the started / completed / failed events of sends and streams, the request and
 * response message rows they point at, the events a stream left, and each agent's last call events (health).
 * Reads only; the partial indexes of schema v6 serve the queries, whose `event_type IN (…)` terms repeat theirs.
 */
import { updatesOfContext } from './update-rows.js';
import type { Db } from '../db.js';
import { sqliteJsonField } from '../stored-json.js';
import { interleave } from '../rows/update-rows.js';
import {
  callEventOf,
  chunkParts,
  JOURNAL_COLUMNS as COLUMNS,
  journalRowOf,
  messageFromRaw,
  type CallEventType,
  type JournalRow,
  type MessageRow,
  type RawJournalRow,
  type RawMessage,
  type RequestOperation,
  type StartsQuery,
  type ThreadArtifactRow,
  type ThreadMessageRow,
} from '../rows/history.js';
import { HISTORY } from '../statements/history.js';
import { NOT_NARROW } from '../statements/update-runs.js';
import { sqliteContexts } from './contexts.js';
import type { WithDb } from '../repository-forms.js';
import type { HistoryRepository } from '../storage.js';

/**
 * The event types idx_events_request_message holds (the migration's predicate, verbatim: since schema v14 behind
 * `via_run IS NULL`, so a narrow update row never evaluates the list).
 */
const REQUEST_TYPES = `${NOT_NARROW} AND event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed')`;
/** The event types idx_events_calls holds (the migration's predicate, verbatim, as REQUEST_TYPES). */
const CALL_TYPES = `${NOT_NARROW} AND event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed')`;

/** The SQL and parameters `listRequestStarts` runs (tests EXPLAIN it): one index range per operation, merged. */
export function requestStartsSql(q: StartsQuery): { sql: string; params: unknown[] } {
  const operations: RequestOperation[] = q.operation ? [q.operation] : ['send', 'stream'];
  const params: unknown[] = [];
  const ranges = operations.map((operation) => {
    // With an agent: idx_events_calls (agent, type, sequence); without: idx_events_type (type, sequence).
    // idx_events_type holds no narrow row (schema v14), and no request event is one: the query names its predicate.
    const where = q.agent
      ? [`agent_alias = ?`, `event_type = 'a2a.${operation}.started'`, CALL_TYPES]
      : [NOT_NARROW, `event_type = 'a2a.${operation}.started'`];
    if (q.agent) params.push(q.agent);
    if (q.beforeSequence !== undefined) {
      where.push('sequence < ?');
      params.push(q.beforeSequence);
    }
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

/** One message row by its local id. */
export function getMessageRow(db: Db, messageId: string): MessageRow | undefined {
  const row = db.prepare(HISTORY.messageRow.sqlite).get(messageId) as RawMessage | undefined;
  return row && messageFromRaw(row);
}

/**
 * The first direct answer (a response row of no task) of `agent` stored after the request row `afterRow`: how a
 * journal written before `a2a.send.completed` named its response row links a message answer to its request.
 */
export function firstDirectResponseAfter(db: Db, agent: string, afterRow: number): MessageRow | undefined {
  const row = db.prepare(HISTORY.firstDirectResponseAfter.sqlite).get(afterRow, agent) as RawMessage | undefined;
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

/**
 * A task's artifact parts chunk by chunk (artifact id, then chunk order; one artifact's only with `artifactId`), at
 * most `maxChunks`: the start of what a task produced, for a preview, without assembling a long artifact whole.
 */
export function* artifactChunksOf(db: Db, taskId: string, maxChunks: number, artifactId?: string): Generator<{ artifactId: string; parts: unknown[] }> {
  const rows = (
    artifactId === undefined
      ? db
          .prepare(`SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks WHERE task_id = ? ORDER BY artifact_id, chunk_index LIMIT ?`)
          .iterate(taskId, maxChunks)
      : db
          .prepare(`SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks WHERE task_id = ? AND artifact_id = ? ORDER BY chunk_index LIMIT ?`)
          .iterate(taskId, artifactId, maxChunks)
  ) as IterableIterator<{ artifact_id: string; chunk_index: number; parts_json: string }>;
  for (const row of rows) yield { artifactId: row.artifact_id, parts: chunkParts(taskId, row) };
}

/** A context's message rows and its updates (read from the journal, update-rows.ts) in the order they were stored. */
export function messagesOfContext(db: Db, contextId: string): ThreadMessageRow[] {
  const messages = (db.prepare(HISTORY.messagesOfContext.sqlite).all(contextId) as Array<RawMessage & { protocol_message_id: string | null }>).map((r) => ({
    ...messageFromRaw(r),
    protocol_message_id: r.protocol_message_id,
  }));
  const updates = updatesOfContext(db, contextId).map(({ metadata: _metadata, ...row }): ThreadMessageRow => row);
  return interleave(messages, updates);
}

/** The first `limit` requests sent in a context, oldest first (a context list's preview reads only these). */
export function firstRequestsOfContext(db: Db, contextId: string, limit: number): MessageRow[] {
  return (db.prepare(HISTORY.firstRequestsOfContext.sqlite).all(contextId, limit) as RawMessage[]).map(messageFromRaw);
}

/** The artifacts of a context (by their own context, or their task's), oldest first; parts are not read. */
export function artifactsOfContext(db: Db, contextId: string): ThreadArtifactRow[] {
  return (db.prepare(HISTORY.artifactsOfContext.sqlite).all(contextId, contextId) as Array<Omit<ThreadArtifactRow, 'last_chunk'> & { last_chunk: number }>).map(
    (r) => ({ ...r, last_chunk: r.last_chunk === 1 }),
  );
}

/**
 * The history repository on SQLite (storage.ts's HistoryRepository, the connection first). The generators' rows are
 * visited synchronously, in one call: the statement is never left open across an await (another call on the
 * connection meanwhile would find it busy), and a visit that stops ends the read.
 */
export const sqliteHistory: WithDb<HistoryRepository, Db> = {
  ...sqliteContexts,
  firstRequestsOfContext,
  messagesOfContext,
  artifactsOfContext,
  listRequestStarts,
  requestEvents,
  requestIdsByPrefix,
  getMessageRow,
  firstDirectResponseAfter,
  scanStreamEvents: (db, messageId, afterSequence, beforeSequence, maxScanned, visit) => {
    for (const event of streamEventsOf(db, messageId, afterSequence, beforeSequence, maxScanned)) if (visit(event) === false) break;
  },
  scanArtifactChunks: (db, taskId, maxChunks, artifactId, visit) => {
    for (const chunk of artifactChunksOf(db, taskId, maxChunks, artifactId)) if (visit(chunk) === false) break;
  },
};
