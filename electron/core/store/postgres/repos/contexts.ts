/**
 * Local context rows on PostgreSQL, and what a context's list, thread and export read of it: the statements of
 * repos/contexts.ts and the context reads of repos/history.ts, with their decoders, so both engines give the same
 * rows. What SQLite's `SELECT *` reads is named column by column here: PostgreSQL's tables have columns SQLite's
 * `*` leaves out (`rowid`, the journal's `xact_id`). Counts and sequences come back as numbers, as SQLite's.
 *
 * A name is unique (contexts_name_key): two hosts naming contexts at once, one is refused with the services' own
 * usage error (`context_name_taken`), as is an id created twice (`context_exists`).
 */
import { usageError, type MissiveError } from '../../../../../shared/errors.js';
import { nowIso } from '../../db.js';
import { fromRaw, parseJsonColumns, type ContextRows, type RawContext } from '../../repos/contexts.js';
import { messageFromRaw, type MessageRow, type RawMessage, type ThreadArtifactRow, type ThreadMessageRow } from '../../repos/history.js';
import { interleave } from '../../repos/update-rows.js';
import type { HistoryRepository } from '../../storage.js';
import { sqlState, violatedConstraint } from '../query-errors.js';
import { run, type Query } from './query.js';
import { updatesOfContext, updateTypesWhere } from './update-rows.js';

/** The columns SQLite's `SELECT *` gives, in its order. */
const MESSAGE_ROW = 'message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json, created_at';
const TASK_ROW = 'task_id, agent_alias, context_id, state, remote_state, source, protocol_version, remote_task_json, last_message_id, metadata_json, completed_at, created_at, updated_at';
const ARTIFACT_ROW = 'artifact_id, task_id, context_id, name, mime_type, kind, version, content_json, metadata_json, last_chunk, bytes_path, created_at, updated_at';
const EVENT_ROW = 'sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, redacted';

/** repos/history.ts's MESSAGE_COLUMNS (`row` is the insertion order, SQLite's rowid). */
const MESSAGE_COLUMNS = 'rowid AS "row", message_id, agent_alias, context_id, task_id, direction, role, content_json, created_at';

type PgRawMessage = Omit<RawMessage, 'row'> & { row: string | number };
const messageOf = (r: PgRawMessage): MessageRow => messageFromRaw({ ...r, row: Number(r.row) });

/** A name or an id another context holds, in the services' words. */
const taken =
  (id: string, name: string | null) =>
  (error: unknown): MissiveError | undefined => {
    if (sqlState(error) !== '23505') return undefined;
    if (violatedConstraint(error) === 'contexts_pkey') return usageError('context_exists', `context ${id} already exists`);
    return usageError('context_name_taken', `the name "${name}" is already used`);
  };

export type ContextMethods = Pick<
  HistoryRepository,
  'insertContext' | 'renameContext' | 'closeContextRow' | 'listContexts' | 'contextRows' | 'firstRequestsOfContext' | 'messagesOfContext' | 'artifactsOfContext'
>;

export function contextMethods(query: Query): ContextMethods {
  return {
    async insertContext(c) {
      await run(
        query,
        'history.insertContext',
        `INSERT INTO contexts (context_id, name, parent_context_id, metadata_json) VALUES ($1, $2, $3, $4)`,
        [c.id, c.name, c.parent, JSON.stringify(c.metadata ?? {})],
        taken(c.id, c.name),
      );
    },

    async renameContext(contextId, name) {
      await run(query, 'history.renameContext', `UPDATE contexts SET name = $1, updated_at = $2 WHERE context_id = $3`, [name, nowIso(), contextId], taken(contextId, name));
    },

    async closeContextRow(contextId) {
      const now = nowIso();
      await run(query, 'history.closeContextRow', `UPDATE contexts SET state = 'closed', closed_at = coalesce(closed_at, $1), updated_at = $1 WHERE context_id = $2`, [now, contextId]);
    },

    async listContexts(limit) {
      const { rows } = await run<RawContext & { messages: number; tasks: number; events: number }>(
        query,
        'history.listContexts',
        `SELECT c.*,
           ((SELECT count(*) FROM messages m WHERE m.context_id = c.context_id AND m.direction NOT IN ('stream_event', 'push'))
             + (SELECT count(*) FROM events u WHERE u.context_id = c.context_id AND ${updateTypesWhere('u')}))::int AS messages,
           (SELECT count(*) FROM tasks t WHERE t.context_id = c.context_id)::int AS tasks,
           (SELECT count(*) FROM events e WHERE e.context_id = c.context_id)::int AS events
         FROM contexts c ORDER BY c.updated_at DESC, c.context_id LIMIT $1`,
        [limit],
      );
      return rows.map((r) => ({ ...fromRaw(r), messages: r.messages, tasks: r.tasks, events: r.events }));
    },

    async contextRows(contextId): Promise<ContextRows> {
      const what = 'history.contextRows';
      const all = async (table: string, sql: string) => (await run<Record<string, unknown>>(query, what, sql, [contextId])).rows.map(parseJsonColumns(table));
      const [messages, updates, tasks, artifacts, events] = await Promise.all([
        all('messages', `SELECT ${MESSAGE_ROW} FROM messages WHERE context_id = $1 ORDER BY created_at, rowid`),
        updatesOfContext(query, contextId, what),
        all('tasks', `SELECT ${TASK_ROW} FROM tasks WHERE context_id = $1 ORDER BY created_at, task_id`),
        all('artifacts', `SELECT ${ARTIFACT_ROW} FROM artifacts WHERE task_id IN (SELECT task_id FROM tasks WHERE context_id = $1) ORDER BY task_id, artifact_id`),
        all('events', `SELECT ${EVENT_ROW} FROM events WHERE context_id = $1 ORDER BY sequence`),
      ]);
      return {
        messages: interleave(
          messages as Array<Record<string, unknown> & { created_at: string }>,
          updates.map(({ row: _row, ...update }) => update),
        ),
        tasks,
        artifacts,
        events: events.map((e) => ({ ...e, sequence: Number(e.sequence) })),
      };
    },

    async firstRequestsOfContext(contextId, limit) {
      const { rows } = await run<PgRawMessage>(
        query,
        'history.firstRequestsOfContext',
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE context_id = $1 AND direction = 'request' ORDER BY created_at, rowid LIMIT $2`,
        [contextId, limit],
      );
      return rows.map(messageOf);
    },

    async messagesOfContext(contextId) {
      const what = 'history.messagesOfContext';
      const [messages, updates] = await Promise.all([
        run<PgRawMessage & { protocol_message_id: string | null }>(
          query,
          what,
          `SELECT ${MESSAGE_COLUMNS}, protocol_message_id FROM messages WHERE context_id = $1 ORDER BY created_at, rowid`,
          [contextId],
        ),
        updatesOfContext(query, contextId, what),
      ]);
      return interleave(
        messages.rows.map((r): ThreadMessageRow => ({ ...messageOf(r), protocol_message_id: r.protocol_message_id })),
        updates.map(({ metadata: _metadata, ...row }): ThreadMessageRow => row),
      );
    },

    async artifactsOfContext(contextId) {
      const { rows } = await run<Omit<ThreadArtifactRow, 'last_chunk'> & { last_chunk: number }>(
        query,
        'history.artifactsOfContext',
        `SELECT a.task_id, t.agent_alias, a.artifact_id, a.name, a.mime_type, a.kind, a.version, a.last_chunk, a.created_at, a.updated_at,
                (SELECT count(*)::int FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id) AS chunks
         FROM artifacts a LEFT JOIN tasks t ON t.task_id = a.task_id
         WHERE a.context_id = $1 OR a.task_id IN (SELECT task_id FROM tasks WHERE context_id = $1) ORDER BY a.created_at, a.rowid`,
        [contextId],
      );
      return rows.map((r) => ({ ...r, last_chunk: r.last_chunk === 1 }));
    },
  };
}
