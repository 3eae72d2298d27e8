/** Local A2A context rows on SQLite: names, forks, open/closed, and what is linked to them (statements/contexts.ts). */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { interleave } from '../rows/update-rows.js';
import { fromRaw, parseJsonColumns, type ContextRow, type ContextRows, type ContextSummary, type RawContext } from '../rows/contexts.js';
import { CONTEXTS } from '../statements/contexts.js';
import { updatesOfContext } from './update-rows.js';
import type { WithDb } from '../repository-forms.js';
import type { ConversationRepository, HistoryRepository } from '../storage.js';

export const getContext = (db: Db, id: string): ContextRow | undefined => {
  const row = db.prepare(CONTEXTS.get.sqlite).get(id) as RawContext | undefined;
  return row && fromRaw(row);
};

export const getContextByName = (db: Db, name: string): ContextRow | undefined => {
  const row = db.prepare(CONTEXTS.getByName.sqlite).get(name) as RawContext | undefined;
  return row && fromRaw(row);
};

export function insertContext(db: Db, c: { id: string; name: string | null; parent: string | null; metadata?: Record<string, unknown> }): void {
  db.prepare(CONTEXTS.insert.sqlite).run(c.id, c.name, c.parent, JSON.stringify(c.metadata ?? {}));
}

export function renameContext(db: Db, id: string, name: string | null): void {
  db.prepare(CONTEXTS.rename.sqlite).run(name, nowIso(), id);
}

export function closeContextRow(db: Db, id: string): void {
  const now = nowIso();
  db.prepare(CONTEXTS.close.sqlite).run(now, now, id);
}

/** The contexts, newest first, with their counts (statements/contexts.ts). */
export const listContexts = (db: Db, limit: number): ContextSummary[] =>
  (db.prepare(CONTEXTS.list.sqlite).all(limit) as Array<RawContext & { messages: number; tasks: number; events: number }>).map((r) => ({
    ...fromRaw(r),
    messages: r.messages,
    tasks: r.tasks,
    events: r.events,
  }));

/** Every row linked to a context, for export (JSON columns parsed). */
export function contextRows(db: Db, id: string): ContextRows {
  const all = (table: string, sql: string, params: unknown[] = [id]) =>
    (db.prepare(sql).all(...params) as Array<Record<string, unknown>>).map(parseJsonColumns(table));
  return {
    // Its updates (stored once, as events) among them, in the shape their message rows had when each update was also a message row.
    messages: interleave(
      all('messages', CONTEXTS.exportMessages.sqlite) as Array<Record<string, unknown> & { created_at: string }>,
      updatesOfContext(db, id).map(({ row: _row, ...update }) => update),
    ),
    tasks: all('tasks', CONTEXTS.exportTasks.sqlite),
    artifacts: all('artifacts', CONTEXTS.exportArtifacts.sqlite),
    events: all('events', CONTEXTS.exportEvents.sqlite, [id, id]),
  };
}

/** The contexts' reads of the conversation repository on SQLite (storage.ts's ConversationRepository). */
export const sqliteContextReads: WithDb<Pick<ConversationRepository, 'getContext' | 'getContextByName'>, Db> = { getContext, getContextByName };

/** The contexts' part of the history repository on SQLite (storage.ts's HistoryRepository). */
export const sqliteContexts: WithDb<Pick<HistoryRepository, 'insertContext' | 'renameContext' | 'closeContextRow' | 'listContexts' | 'contextRows'>, Db> = {
  insertContext,
  renameContext,
  closeContextRow,
  listContexts,
  contextRows,
};
