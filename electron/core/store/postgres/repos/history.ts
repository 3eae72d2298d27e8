/**
 * The journal as a request history on PostgreSQL: repos/history.ts's journal reads (statements/history.ts holds the message reads both engines share), read by the same indexes (v1 has
 * SQLite's, under the same names): a page of starts is one backward range per operation of idx_events_type (with an
 * agent, of the partial idx_events_calls), merged; a request's events and a lookup by prefix are read by
 * idx_events_request_message, whose expression (`json_text_field(payload_json, 'message_id')`) they repeat with its
 * predicate. The planner picks them from its statistics (no INDEXED BY here).
 *
 * SQLite's two generators become scans by pages, each page a statement of its own: a stream's events a window of the
 * journal at a time (at most `maxScanned` rows in all, as on SQLite), an artifact's chunks a page at a time from the
 * primary key. A visit that stops ends the scan: what a preview does not show is never read.
 */
import {
  chunkParts,
  JOURNAL_COLUMNS as COLUMNS,
  journalRowOf,
  messageFromRaw,
  type RawJournalRow,
  type RawMessage,
  type RequestOperation,
  type StartsQuery,
} from '../../rows/history.js';
import { HISTORY } from '../../statements/history.js';
import type { HistoryRepository } from '../../storage.js';
import type { ContextMethods } from './contexts.js';
import { run, type Query } from './query.js';

/** The event types idx_events_request_message holds (its predicate in 0001-init.ts, same list, same order). */
const REQUEST_TYPES = `event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed')`;
/** The event types idx_events_calls holds (its predicate in 0001-init.ts, same list, same order). */
const CALL_TYPES = `event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed')`;
/** The request message id of a request event: idx_events_request_message's expression. */
const REQUEST_ID = `json_text_field(payload_json, 'message_id')`;

/** Journal rows a page of a stream's scan looks at. */
export const STREAM_PAGE = 1000;
/** Chunks a page of an artifact scan reads. */
export const CHUNK_PAGE = 100;

/** The statement `listRequestStarts` runs (tests EXPLAIN it): one index range per operation, merged. */
export function requestStartsSql(q: StartsQuery): { sql: string; params: unknown[] } {
  const operations: RequestOperation[] = q.operation ? [q.operation] : ['send', 'stream'];
  const params: unknown[] = [];
  const param = (value: unknown) => (params.push(value), `$${params.length}`);
  const agent = q.agent === undefined ? undefined : param(q.agent);
  const before = q.beforeSequence === undefined ? undefined : param(q.beforeSequence);
  const limit = param(q.limit);
  const ranges = operations.map((operation) => {
    // With an agent: idx_events_calls (agent, type, sequence); without: idx_events_type (type, sequence).
    const where = agent ? [`agent_alias = ${agent}`, `event_type = 'a2a.${operation}.started'`, CALL_TYPES] : [`event_type = 'a2a.${operation}.started'`];
    if (before) where.push(`sequence < ${before}`);
    return `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY sequence DESC LIMIT ${limit}`;
  });
  if (ranges.length === 1) return { sql: ranges[0]!, params };
  return { sql: `${ranges.map((range) => `(${range})`).join(' UNION ALL ')} ORDER BY sequence DESC LIMIT ${limit}`, params };
}

/** The statement `requestEvents` runs (tests EXPLAIN it): $1 the request message ids. */
export const requestEventsSql = `SELECT ${COLUMNS} FROM events WHERE ${REQUEST_ID} = ANY($1::text[]) AND ${REQUEST_TYPES} ORDER BY sequence`;

/** The statement `requestIdsByPrefix` runs (tests EXPLAIN it): distinct request ids in `[$1, $2)`, at most two. */
export const requestIdsByPrefixSql = `SELECT DISTINCT ${REQUEST_ID} AS id FROM events WHERE ${REQUEST_ID} >= $1 AND ${REQUEST_ID} < $2 AND ${REQUEST_TYPES} ORDER BY id LIMIT 2`;

/**
 * One page of a stream's scan (tests EXPLAIN it): how many of the next `$3` journal rows after `$1` (before `$2`)
 * there were and the last one's sequence, with those of them the stream applied (`$4` its request message id), in
 * order. One row with no event when none of the page's rows is the stream's.
 */
export const streamPageSql = `WITH w AS (SELECT ${COLUMNS} FROM events WHERE sequence > $1 AND sequence < $2 ORDER BY sequence LIMIT $3)
SELECT s.scanned, s.last, e.* FROM (SELECT count(*)::int AS scanned, max(sequence) AS last FROM w) AS s
LEFT JOIN LATERAL (SELECT * FROM w WHERE event_type LIKE 'a2a.stream.%' AND json_text_field(payload_json, 'request_message_id') = $4) AS e ON true
ORDER BY e.sequence`;

type StreamPageRow = { scanned: number; last: string | null } & { [K in keyof RawJournalRow]: RawJournalRow[K] | null };

export type RequestMethods = Omit<HistoryRepository, keyof ContextMethods>;

export function requestMethods(query: Query): RequestMethods {
  return {
    async listRequestStarts(q) {
      const { sql, params } = requestStartsSql(q);
      return (await run<RawJournalRow>(query, 'history.listRequestStarts', sql, params)).rows.map(journalRowOf);
    },

    async requestEvents(messageIds) {
      if (messageIds.length === 0) return [];
      return (await run<RawJournalRow>(query, 'history.requestEvents', requestEventsSql, [messageIds])).rows.map(journalRowOf);
    },

    async requestIdsByPrefix(prefix) {
      const { rows } = await run<{ id: string }>(query, 'history.requestIdsByPrefix', requestIdsByPrefixSql, [prefix, `${prefix}\u{10FFFF}`]);
      return rows.map((r) => r.id);
    },

    async getMessageRow(messageId) {
      const { rows } = await run<RawMessage>(query, 'history.getMessageRow', HISTORY.messageRow, [messageId]);
      return rows[0] && messageFromRaw(rows[0]);
    },

    async firstDirectResponseAfter(agent, afterRow) {
      const { rows } = await run<RawMessage>(query, 'history.firstDirectResponseAfter', HISTORY.firstDirectResponseAfter, [afterRow, agent]);
      return rows[0] && messageFromRaw(rows[0]);
    },

    async scanStreamEvents(messageId, afterSequence, beforeSequence, maxScanned, visit) {
      const before = beforeSequence ?? Number.MAX_SAFE_INTEGER;
      let after = afterSequence;
      let scanned = 0;
      while (scanned < maxScanned) {
        const window = Math.min(STREAM_PAGE, maxScanned - scanned);
        const { rows } = await run<StreamPageRow>(query, 'history.streamEventsOf', streamPageSql, [after, before, window, messageId]);
        const page = rows[0];
        if (!page || page.scanned === 0) return;
        for (const row of rows) {
          if (row.sequence !== null && visit(journalRowOf(row as RawJournalRow)) === false) return;
        }
        if (page.scanned < window) return;
        scanned += page.scanned;
        after = Number(page.last);
      }
    },

    async scanArtifactChunks(taskId, maxChunks, artifactId, visit) {
      const one = artifactId !== undefined;
      let key: [string, number] = [artifactId ?? '', -1];
      let read = 0;
      while (read < maxChunks) {
        const size = Math.min(CHUNK_PAGE, maxChunks - read);
        const { rows } = await run<{ artifact_id: string; chunk_index: number; parts_json: string }>(
          query,
          'history.artifactChunksOf',
          `SELECT artifact_id, chunk_index, parts_json FROM artifact_chunks
           WHERE task_id = $1 AND ${one ? 'artifact_id = $2 AND chunk_index > $3' : '(artifact_id, chunk_index) > ($2, $3)'}
           ORDER BY artifact_id, chunk_index LIMIT $4`,
          [taskId, ...key, size],
        );
        for (const row of rows) {
          if (visit({ artifactId: row.artifact_id, parts: chunkParts(taskId, row) }) === false) return;
        }
        if (rows.length < size) return;
        read += rows.length;
        const last = rows.at(-1)!;
        key = [last.artifact_id, last.chunk_index];
      }
    },
  };
}
