/**
 * The updates of streams, task subscriptions and push callbacks read as message rows, on PostgreSQL: the three
 * queries of repos/update-rows.ts with its decoder. An update journaled by an earlier version also has a `messages`
 * row (its payload names it, `message_row`): it is left out here, as on SQLite. The payload's field is read with
 * json_text_field (migration 0001), which reads the JSON PostgreSQL's json type refuses (`\u0000`, lone surrogates).
 */
import { fromRaw, UPDATE_COLUMNS, UPDATE_EVENT_TYPES, type RawUpdate, type UpdateMessageRow } from '../../repos/update-rows.js';
import { run, type Query } from './query.js';

/** The SQL condition on `events` (aliased `table`) of the update events, however they were stored. */
export const updateTypesWhere = (table?: string): string => `${table ? `${table}.` : ''}event_type IN (${UPDATE_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`;

/** The SQL condition of the updates stored once (those journaled by earlier versions are read from `messages`). */
const STORED_ONCE = `${updateTypesWhere()} AND json_text_field(payload_json, 'message_row') IS NULL`;

type PgRawUpdate = Omit<RawUpdate, 'sequence'> & { sequence: string | number };

async function updates(query: Query, what: string, where: string, params: unknown[]): Promise<UpdateMessageRow[]> {
  const { rows } = await run<PgRawUpdate>(query, what, `SELECT ${UPDATE_COLUMNS} FROM events WHERE ${where} AND ${STORED_ONCE} ORDER BY sequence`, params);
  return rows.map((r) => fromRaw({ ...r, sequence: Number(r.sequence) }));
}

/** A task's updates, oldest first (read from idx_events_task). */
export const updatesOfTask = (query: Query, taskId: string, what = 'conversation.responsesOfTask'): Promise<UpdateMessageRow[]> =>
  updates(query, what, `task_id = $1`, [taskId]);

/** A context's updates, oldest first (read from idx_events_context). */
export const updatesOfContext = (query: Query, contextId: string, what = 'history.updatesOfContext'): Promise<UpdateMessageRow[]> =>
  updates(query, what, `context_id = $1`, [contextId]);

/** An agent's updates in a context that belong to no task (a stream answered with a Message), oldest first. */
export const taskFreeUpdatesOf = (query: Query, agentAlias: string, contextId: string, what = 'conversation.directResponsesOf'): Promise<UpdateMessageRow[]> =>
  updates(query, what, `context_id = $1 AND agent_alias = $2 AND task_id IS NULL`, [contextId, agentAlias]);
