/**
 * The names shell completion offers from the store: agent aliases (the registry's and the config's), groups, context
 * names (and the ids of recent unnamed contexts) and recent task ids. Read-only and local: the database is opened
 * read-only when it exists (nothing is created or migrated), no network, a bounded number of rows.
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import { statePaths } from '../config/paths.js';
import { COMPLETION_KINDS, completionNames, type CompletionKind } from '../store/completion-names.js';

export type { CompletionKind };

export interface CompletionInput {
  kind: CompletionKind;
  env: NodeJS.ProcessEnv;
  cwd: string;
  configFlag?: string;
  profileFlag?: string;
}

const isKind = (kind: string): kind is CompletionKind => (COMPLETION_KINDS as readonly string[]).includes(kind);

/** The values of `kind` for the profile, without duplicates; anything that cannot be read gives none (never throws). */
export function completionValues(input: Omit<CompletionInput, 'kind'> & { kind: string }): string[] {
  if (!isKind(input.kind)) return [];
  try {
    const config = loadConfig({ configFlag: input.configFlag, profileFlag: input.profileFlag, env: input.env, cwd: input.cwd });
    const values = input.kind === 'agents' ? Object.keys(config.agents) : [];
    const { database } = statePaths(config.profile, input.env, input.cwd, config.storage.databasePath);
    if (existsSync(database)) values.push(...completionNames(database, input.kind));
    const unique = [...new Set(values)];
    return input.kind === 'agents' ? unique.sort() : unique;
  } catch {
    return [];
  }
}
