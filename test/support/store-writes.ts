/**
 * Writing a sandbox's store behind missive's back, as another database user or a teammate with a SQL prompt can: the
 * same SQL (`?` placeholders) on the profile's SQLite file, through a better-sqlite3 handle of its own with CHECK
 * constraints ignored (`PRAGMA ignore_check_constraints`), or on its PostgreSQL schema through a connection of its own.
 * `dropChecks` names the CHECK constraints a PostgreSQL writer drops first (`tasks_state_check`): a schema's owner can.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createCore } from '../../electron/core/context.js';
import type { Sandbox } from './cli.js';
import { ignoringIdleErrors } from './postgres.js';

type Box = Pick<Sandbox, 'env' | 'home'>;

export async function tamperStore(
  box: Box,
  statements: Array<[sql: string, params?: unknown[]]>,
  options: { dropChecks?: Array<[table: string, constraint: string]> } = {},
): Promise<void> {
  const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  const selection = core.storeSelection;
  const file = core.paths.database;
  core.close();
  if (selection.kind === 'sqlite') {
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('ignore_check_constraints = ON');
      for (const [sql, params = []] of statements) db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
    return;
  }
  const client = ignoringIdleErrors(new pg.Client({ connectionString: selection.url, options: `-c search_path=${selection.schema}` }));
  await client.connect();
  try {
    for (const [table, constraint] of options.dropChecks ?? [])
      await client.query(`ALTER TABLE ${pg.escapeIdentifier(table)} DROP CONSTRAINT IF EXISTS ${pg.escapeIdentifier(constraint)}`);
    for (const [sql, params = []] of statements) {
      let n = 0;
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
    }
  } finally {
    await client.end();
  }
}

/** JSON text nesting arrays `depth` deep around `inner`. */
export const deepJson = (depth: number, inner = '1'): string => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
