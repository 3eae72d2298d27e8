/**
 * The updates of streams, task subscriptions and push callbacks read as message rows, on PostgreSQL: the statements
 * of statements/update-rows.ts with the decoder of rows/update-rows.ts (its sequence a number).
 */
import { fromRaw, type RawUpdate, type UpdateMessageRow } from '../../rows/update-rows.js';
import { UPDATES } from '../../statements/update-rows.js';
import type { Statement } from '../../sql.js';
import { run, type Query } from './query.js';

type PgRawUpdate = Omit<RawUpdate, 'sequence'> & { sequence: string | number };

async function updates(query: Query, what: string, statement: Statement, params: unknown[]): Promise<UpdateMessageRow[]> {
  const { rows } = await run<PgRawUpdate>(query, what, statement, params);
  return rows.map((r) => fromRaw({ ...r, sequence: Number(r.sequence) }));
}

/** A task's updates, oldest first (read from idx_events_task). */
export const updatesOfTask = (query: Query, taskId: string, what = 'conversation.responsesOfTask'): Promise<UpdateMessageRow[]> =>
  updates(query, what, UPDATES.ofTask, [taskId]);

/** A context's updates, oldest first (read from idx_events_context). */
export const updatesOfContext = (query: Query, contextId: string, what = 'history.updatesOfContext'): Promise<UpdateMessageRow[]> =>
  updates(query, what, UPDATES.ofContext, [contextId, contextId]);

/** An agent's updates in a context that belong to no task (a stream answered with a Message), oldest first. */
export const taskFreeUpdatesOf = (query: Query, agentAlias: string, contextId: string, what = 'conversation.directResponsesOf'): Promise<UpdateMessageRow[]> =>
  updates(query, what, UPDATES.taskFree, [contextId, agentAlias, contextId, agentAlias]);
