/**
 * The store as it is, for `missive doctor`: reachable, and its schema current (nothing is created, migrated or seeded),
 * with the registry's agents and their auth refs read when it is current. The SQLite file is opened read-only; a
 * PostgreSQL store gets one pool, ended afterwards. Each engine loads only when selected.
 */
import { existsSync } from 'node:fs';
import { toMissiveError } from '../../../shared/errors.js';
import type { PostgresSelection, StoreSelection } from './selection.js';
import type { OpenPoolOptions } from './postgres/connect.js';
import type { AgentRow } from './rows/agents.js';
import type { AuthRefRow } from './rows/auth-refs.js';

export interface StoreCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  exit_code?: number;
  details?: Record<string, unknown>;
}

export interface StoreContents {
  agents: AgentRow[];
  authRefs: Map<string, AuthRefRow | undefined>;
}

/** Reads the agents, and the auth refs they name, through `read`. */
async function readContents(read: {
  agents: { list(): Promise<AgentRow[]> };
  authRefs: { get(name: string): Promise<AuthRefRow | undefined> };
}): Promise<StoreContents> {
  const agents = await read.agents.list();
  const authRefs = new Map<string, AuthRefRow | undefined>();
  for (const name of new Set(agents.map((a) => a.authRefName).filter((n): n is string => !!n))) authRefs.set(name, await read.authRefs.get(name));
  return { agents, authRefs };
}

export interface StoreInspection {
  check: StoreCheck;
  contents: StoreContents;
}

export const inspectStore = (selection: StoreSelection, options: { sqlitePath: string; postgres: OpenPoolOptions }): Promise<StoreInspection> =>
  selection.kind === 'sqlite' ? inspectSqlite(options.sqlitePath) : inspectPostgres(selection, options.postgres);

/** The profile's SQLite file, opened read-only. */
export async function inspectSqlite(path: string): Promise<StoreInspection> {
  let contents: StoreContents = { agents: [], authRefs: new Map() };
  const name = 'store.sqlite_migrations';
  const [{ appliedMigrations, SCHEMA_VERSION }, { openStore }, { sqliteStorage }] = await Promise.all([
    import('./db.js'),
    import('./store.js'),
    import('./sqlite/storage.js'),
  ]);
  if (!existsSync(path)) {
    return {
      check: {
        name,
        status: 'warn',
        message: `no database yet at ${path}; it is created on first use`,
        details: { schema_version: 0, expected: SCHEMA_VERSION },
      },
      contents,
    };
  }
  let store: ReturnType<typeof openStore> | undefined;
  try {
    store = openStore(path, { readonly: true });
    const applied = appliedMigrations(store.db);
    const current = applied.at(-1)?.version ?? 0;
    if (current === SCHEMA_VERSION) contents = await readContents(sqliteStorage(store));
    return {
      check: {
        name,
        status: current === SCHEMA_VERSION ? 'ok' : 'warn',
        message: current === SCHEMA_VERSION ? `schema v${current} at ${path}` : `schema v${current}; v${SCHEMA_VERSION} is applied on next use`,
        details: { schema_version: current, expected: SCHEMA_VERSION, migrations: applied },
      },
      contents,
    };
  } catch (error) {
    const err = toMissiveError(error);
    return { check: { name, status: 'fail', message: err.message, exit_code: err.exitCode }, contents };
  } finally {
    store?.close();
  }
}

/** A PostgreSQL store: one pool, ended afterwards. */
async function inspectPostgres(selection: PostgresSelection, options: OpenPoolOptions): Promise<StoreInspection> {
  let contents: StoreContents = { agents: [], authRefs: new Map() };
  const name = 'store.postgres';
  const base = { url: selection.display, from: selection.from, schema: selection.schema };
  const [{ openPool }, { postgresSchemaStatus }] = await Promise.all([import('./postgres/connect.js'), import('./postgres/migrate.js')]);
  let pool: Awaited<ReturnType<typeof openPool>> | undefined;
  try {
    pool = await openPool(selection, options);
    const status = await postgresSchemaStatus(pool, selection.schema);
    const details = { ...base, schema_version: status.version, expected: status.expected };
    if (status.problem)
      return {
        check: { name, status: 'fail', message: `${selection.display}, schema ${selection.schema}: ${status.problem}`, exit_code: 75, details },
        contents,
      };
    if (status.version !== status.expected) {
      const what = status.version === 0 ? `schema ${selection.schema} not created yet` : `schema ${selection.schema} at v${status.version}`;
      return {
        check: { name, status: 'warn', message: `${selection.display} reachable; ${what}: v${status.expected} is applied on next use`, details },
        contents,
      };
    }
    const { postgresStorage } = await import('./postgres/storage.js');
    contents = await readContents(postgresStorage(pool, selection.schema, selection.display));
    return { check: { name, status: 'ok', message: `schema v${status.version} in ${selection.schema} at ${selection.display}`, details }, contents };
  } catch (error) {
    const err = toMissiveError(error);
    return { check: { name, status: 'fail', message: err.message, exit_code: err.exitCode, details: { ...base, code: err.code } }, contents };
  } finally {
    await pool?.end().catch(() => undefined);
  }
}
