/**
 * The names shell completion offers from the profile's SQLite file (agent aliases, groups, context names and recent
 * unnamed context ids, recent task ids): the file opened read-only (nothing is created or migrated), a bounded number
 * of rows. Shell completion reads only the local file, fast, without a network.
 */
import { openDatabase, type Db } from './db.js';

export const COMPLETION_KINDS = ['agents', 'groups', 'contexts', 'tasks'] as const;
export type CompletionKind = (typeof COMPLETION_KINDS)[number];

/** How many recent tasks and unnamed contexts are offered. */
export const RECENT_LIMIT = 50;

const QUERIES: Record<CompletionKind, string> = {
  agents: `SELECT alias AS value FROM agents ORDER BY alias`,
  groups: `SELECT group_name AS value FROM "groups" ORDER BY group_name`,
  contexts: `SELECT value FROM (SELECT name AS value FROM contexts WHERE name IS NOT NULL ORDER BY name)
             UNION ALL SELECT value FROM (SELECT context_id AS value FROM contexts WHERE name IS NULL ORDER BY updated_at DESC LIMIT ${RECENT_LIMIT})`,
  tasks: `SELECT task_id AS value FROM tasks ORDER BY updated_at DESC, task_id LIMIT ${RECENT_LIMIT}`,
};

/** The values of `kind` in the SQLite file at `path` (which exists); throws what opening or reading it throws. */
export function completionNames(path: string, kind: CompletionKind): string[] {
  let db: Db | undefined;
  try {
    db = openDatabase(path, { readonly: true });
    return (db.prepare(QUERIES[kind]).all() as Array<{ value: string }>).map((r) => r.value);
  } finally {
    db?.close();
  }
}
