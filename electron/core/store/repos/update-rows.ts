/**
 * The updates of streams, task subscriptions and push callbacks, read as message rows on SQLite (rows/update-rows.ts
 * says how each update is stored once, as its journal event; statements/update-rows.ts holds the statements).
 */
import type { Db } from '../db.js';
import { fromRaw, type RawUpdate, type UpdateMessageRow } from '../rows/update-rows.js';
import { UPDATES } from '../statements/update-rows.js';

/** A task's updates, oldest first (read from idx_events_task). */
export const updatesOfTask = (db: Db, taskId: string): UpdateMessageRow[] => (db.prepare(UPDATES.ofTask.sqlite).all(taskId) as RawUpdate[]).map(fromRaw);

/** A context's updates, oldest first (read from idx_events_context). */
export const updatesOfContext = (db: Db, contextId: string): UpdateMessageRow[] =>
  (db.prepare(UPDATES.ofContext.sqlite).all(contextId, contextId) as RawUpdate[]).map(fromRaw);

/** An agent's updates in a context that belong to no task (a stream answered with a Message), oldest first. */
export const taskFreeUpdatesOf = (db: Db, agentAlias: string, contextId: string): UpdateMessageRow[] =>
  (db.prepare(UPDATES.taskFree.sqlite).all(contextId, agentAlias, contextId, agentAlias) as RawUpdate[]).map(fromRaw);
