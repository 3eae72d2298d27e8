/**
 * The names shell completion offers from the store: agent aliases (the registry's and the config's), groups, context
 * names (and the ids of recent unnamed contexts) and recent task ids. Read-only and local: the database is opened
 * read-only when it exists (nothing is created or migrated), no network, a bounded number of rows.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import { statePaths } from '../config/paths.js';
import { openDatabase, type Db } from '../store/db.js';

export type CompletionKind = 'agents' | 'groups' | 'contexts' | 'tasks';

/** How many recent tasks and unnamed contexts are offered. */
export const RECENT_LIMIT = 50;

const QUERIES: Record<CompletionKind, string> = {
  agents: `SELECT alias AS value FROM agents ORDER BY alias`,
  groups: `SELECT group_name AS value FROM "groups" ORDER BY group_name`,
  contexts: `SELECT value FROM (SELECT name AS value FROM contexts WHERE name IS NOT NULL ORDER BY name)
             UNION ALL SELECT value FROM (SELECT context_id AS value FROM contexts WHERE name IS NULL ORDER BY updated_at DESC LIMIT ${RECENT_LIMIT})`,
  tasks: `SELECT task_id AS value FROM tasks ORDER BY updated_at DESC, task_id LIMIT ${RECENT_LIMIT}`,
};

export interface CompletionInput {
  kind: CompletionKind;
  env: NodeJS.ProcessEnv;
  cwd: string;
  configFlag?: string;
  profileFlag?: string;
}

const isKind = (kind: string): kind is CompletionKind => Object.hasOwn(QUERIES, kind);

/** The values of `kind` for the profile, without duplicates; anything that cannot be read gives none (never throws). */
export function completionValues(input: Omit<CompletionInput, 'kind'> & { kind: string }): string[] {
  if (!isKind(input.kind)) return [];
  try {
    const config = loadConfig({ configFlag: input.configFlag, profileFlag: input.profileFlag, env: input.env, cwd: input.cwd });
    const values = input.kind === 'agents' ? Object.keys(config.agents) : [];
    const { database } = statePaths(config.profile, input.env, input.cwd, config.storage.databasePath);
    if (existsSync(database)) {
      let db: Db | undefined;
      try {
        db = openDatabase(database, { readonly: true });
        values.push(...(db.prepare(QUERIES[input.kind]).all() as Array<{ value: string }>).map((r) => r.value));
      } finally {
        db?.close();
      }
    }
    const unique = [...new Set(values)];
    return input.kind === 'agents' ? unique.sort() : unique;
  } catch {
    return [];
  }
}
