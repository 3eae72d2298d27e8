/** Local A2A context rows: names, forks, open/closed, and what is linked to them. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';
import { interleave, updateTypesWhere, updatesOfContext } from './update-rows.js';
import { storedEnum, storedJson, storedRow } from '../stored-json.js';

export interface ContextRow {
  context_id: string;
  agent_alias: string | null;
  name: string | null;
  parent_context_id: string | null;
  state: 'open' | 'closed' | 'archived';
  metadata: Record<string, unknown>;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A contexts row as stored (`SELECT *`). */
export type RawContext = Omit<ContextRow, 'metadata'> & { metadata_json: string; summary: string | null };
export const CONTEXT_STATES: readonly ContextRow['state'][] = ['open', 'closed', 'archived'];

/** A stored row as a ContextRow: metadata parsed, `summary` dropped; a row that cannot be read is storage::corrupt_row. */
export const fromRaw = ({ metadata_json, summary: _, ...rest }: RawContext): ContextRow => {
  const at = storedRow('contexts', { context_id: rest.context_id });
  return { ...rest, state: storedEnum(rest.state, CONTEXT_STATES, at, 'state'), metadata: storedJson(metadata_json, at, 'metadata_json', 'object') };
};

export const getContext = (db: Db, id: string): ContextRow | undefined => {
  const row = db.prepare(`SELECT * FROM contexts WHERE context_id = ?`).get(id) as RawContext | undefined;
  return row && fromRaw(row);
};

export const getContextByName = (db: Db, name: string): ContextRow | undefined => {
  const row = db.prepare(`SELECT * FROM contexts WHERE name = ?`).get(name) as RawContext | undefined;
  return row && fromRaw(row);
};

export function insertContext(db: Db, c: { id: string; name: string | null; parent: string | null; metadata?: Record<string, unknown> }): void {
  db.prepare(`INSERT INTO contexts (context_id, name, parent_context_id, metadata_json) VALUES (?, ?, ?, ?)`).run(c.id, c.name, c.parent, JSON.stringify(c.metadata ?? {}));
}

export function renameContext(db: Db, id: string, name: string | null): void {
  db.prepare(`UPDATE contexts SET name = ?, updated_at = ? WHERE context_id = ?`).run(name, nowIso(), id);
}

export function closeContextRow(db: Db, id: string): void {
  db.prepare(`UPDATE contexts SET state = 'closed', closed_at = coalesce(closed_at, ?), updated_at = ? WHERE context_id = ?`).run(nowIso(), nowIso(), id);
}

export interface ContextSummary extends ContextRow {
  messages: number;
  tasks: number;
  events: number;
}

/**
 * The contexts, newest first, with their counts. `messages` counts what a thread shows: requests, answers and local
 * rows, and every update (its journal event; an update journaled by an earlier version also has a message row, not
 * counted twice).
 */
export const listContexts = (db: Db, limit: number): ContextSummary[] =>
  (
    db
      .prepare(
        `SELECT c.*,
           (SELECT count(*) FROM messages m WHERE m.context_id = c.context_id AND m.direction NOT IN ('stream_event', 'push'))
             + (SELECT count(*) FROM events u WHERE u.context_id = c.context_id AND ${updateTypesWhere('u')}) AS messages,
           (SELECT count(*) FROM tasks t WHERE t.context_id = c.context_id) AS tasks,
           (SELECT count(*) FROM events e WHERE e.context_id = c.context_id) AS events
         FROM contexts c ORDER BY c.updated_at DESC, c.context_id LIMIT ?`,
      )
      .all(limit) as Array<RawContext & { messages: number; tasks: number; events: number }>
  ).map((r) => ({ ...fromRaw(r), messages: r.messages, tasks: r.tasks, events: r.events }));

/** The key that names a row of each table an export reads, for a corrupt_row error. */
const EXPORT_KEYS: Record<string, readonly string[]> = {
  messages: ['message_id'],
  tasks: ['task_id'],
  artifacts: ['task_id', 'artifact_id'],
  events: ['sequence', 'event_id'],
};

/**
 * A row of `table` with each `*_json` column parsed (stored-json.ts), under its name without the suffix (an export's
 * rows); a column that cannot be read is storage::corrupt_row naming the row.
 */
export const parseJsonColumns =
  (table: string) =>
  (row: Record<string, unknown>): Record<string, unknown> => {
    const at = () => storedRow(table, Object.fromEntries((EXPORT_KEYS[table] ?? []).map((k) => [k, (row[k] ?? null) as string | number | null])));
    return Object.fromEntries(Object.entries(row).map(([k, v]) => (k.endsWith('_json') && typeof v === 'string' ? [k.slice(0, -5), storedJson(v, at(), k)] : [k, v])));
  };

/** Every row linked to a context, for export (JSON columns parsed). */
export type ContextRows = ReturnType<typeof contextRows>;

/** Every row linked to a context, for export (JSON columns parsed). */
export function contextRows(db: Db, id: string) {
  const all = (table: string, sql: string) => (db.prepare(sql).all(id) as Array<Record<string, unknown>>).map(parseJsonColumns(table));
  return {
    // Its updates (stored once, as events) among them, in the shape their message rows had when each update was also a message row.
    messages: interleave(
      all('messages', `SELECT * FROM messages WHERE context_id = ? ORDER BY created_at, rowid`) as Array<Record<string, unknown> & { created_at: string }>,
      updatesOfContext(db, id).map(({ row: _row, ...update }) => update),
    ),
    tasks: all('tasks', `SELECT * FROM tasks WHERE context_id = ? ORDER BY created_at, task_id`),
    artifacts: all('artifacts', `SELECT * FROM artifacts WHERE task_id IN (SELECT task_id FROM tasks WHERE context_id = ?) ORDER BY task_id, artifact_id`),
    events: all('events', `SELECT * FROM events WHERE context_id = ? ORDER BY sequence`),
  };
}
