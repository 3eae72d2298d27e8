/**
 * Local context rows on PostgreSQL, and what a context's list, thread and export read of it: the statements of
 * statements/contexts.ts and statements/history.ts, with their decoders (rows/), so both engines give the same rows.
 * Counts and sequences come back as numbers, as SQLite's.
 *
 * A name is unique (contexts_name_key): two hosts naming contexts at once, one is refused with the services' own
 * usage error (`context_name_taken`), as is an id created twice (`context_exists`).
 */
import { usageError, type MissiveError } from '../../../../../shared/errors.js';
import { nowIso } from '../../rows/clock.js';
import { fromRaw, parseJsonColumns, type ContextRows, type RawContext } from '../../rows/contexts.js';
import { messageFromRaw, type RawMessage, type ThreadArtifactRow, type ThreadMessageRow } from '../../rows/history.js';
import { interleave } from '../../rows/update-rows.js';
import { CONTEXTS } from '../../statements/contexts.js';
import { HISTORY } from '../../statements/history.js';
import type { Statement } from '../../sql.js';
import type { HistoryRepository } from '../../storage.js';
import { sqlState, violatedConstraint } from '../query-errors.js';
import { run, type Query } from './query.js';
import { updatesOfContext } from './update-rows.js';

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
      await run(query, 'history.insertContext', CONTEXTS.insert, [c.id, c.name, c.parent, JSON.stringify(c.metadata ?? {})], taken(c.id, c.name));
    },

    async renameContext(contextId, name) {
      await run(query, 'history.renameContext', CONTEXTS.rename, [name, nowIso(), contextId], taken(contextId, name));
    },

    async closeContextRow(contextId) {
      const now = nowIso();
      await run(query, 'history.closeContextRow', CONTEXTS.close, [now, now, contextId]);
    },

    async listContexts(limit) {
      const { rows } = await run<RawContext & { messages: number; tasks: number; events: number }>(query, 'history.listContexts', CONTEXTS.list, [limit]);
      return rows.map((r) => ({ ...fromRaw(r), messages: r.messages, tasks: r.tasks, events: r.events }));
    },

    async contextRows(contextId): Promise<ContextRows> {
      const what = 'history.contextRows';
      const all = async (table: string, sql: Statement, params: unknown[] = [contextId]) =>
        (await run<Record<string, unknown>>(query, what, sql, params)).rows.map(parseJsonColumns(table));
      const [messages, updates, tasks, artifacts, events] = await Promise.all([
        all('messages', CONTEXTS.exportMessages),
        updatesOfContext(query, contextId, what),
        all('tasks', CONTEXTS.exportTasks),
        all('artifacts', CONTEXTS.exportArtifacts),
        all('events', CONTEXTS.exportEvents, [contextId, contextId]),
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
      const { rows } = await run<RawMessage>(query, 'history.firstRequestsOfContext', HISTORY.firstRequestsOfContext, [contextId, limit]);
      return rows.map(messageFromRaw);
    },

    async messagesOfContext(contextId) {
      const what = 'history.messagesOfContext';
      const [messages, updates] = await Promise.all([
        run<RawMessage & { protocol_message_id: string | null }>(query, what, HISTORY.messagesOfContext, [contextId]),
        updatesOfContext(query, contextId, what),
      ]);
      return interleave(
        messages.rows.map((r): ThreadMessageRow => ({ ...messageFromRaw(r), protocol_message_id: r.protocol_message_id })),
        updates.map(({ metadata: _metadata, ...row }): ThreadMessageRow => row),
      );
    },

    async artifactsOfContext(contextId) {
      const { rows } = await run<Omit<ThreadArtifactRow, 'last_chunk'> & { last_chunk: number }>(
        query,
        'history.artifactsOfContext',
        HISTORY.artifactsOfContext,
        [contextId, contextId],
      );
      return rows.map((r) => ({ ...r, last_chunk: r.last_chunk === 1 }));
    },
  };
}
