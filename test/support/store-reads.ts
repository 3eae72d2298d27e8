/**
 * Reading back what a sandbox's commands left in the store it selects, whichever engine holds it (the profile's
 * SQLite file, or its schema in a PostgreSQL database): through the storage interface the services use
 * (`withStorage`), or, only for what neither a command nor that interface shows yet (the message rows of an exchange,
 * a task's stored remote JSON), the same SQL on either engine (`storeRows`); and all it holds as text, for a secret not to
 * be found in (`storeText`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createCore } from '../../electron/core/context.js';
import type { Storage } from '../../electron/core/store/storage.js';
import type { Sandbox } from './cli.js';
import { ignoringIdleErrors } from './postgres.js';

type Box = Pick<Sandbox, 'env' | 'home'>;

const coreOf = (box: Box) => createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });

/** `fn` on the storage interface of a core on the sandbox's store (as `task get` and the IPC channels read it). */
export async function withStorage<T>(box: Box, fn: (storage: Storage) => Promise<T>): Promise<T> {
  const core = coreOf(box);
  try {
    return await fn(await core.storage());
  } finally {
    core.close();
  }
}

export type Row = Record<string, any>;

function whereStored(box: Box) {
  const core = coreOf(box);
  try {
    return { selection: core.storeSelection, file: core.paths.database };
  } finally {
    core.close();
  }
}

/** The rows `sql` (`?` placeholders) reads from the sandbox's store: its SQLite file read-only, or its PostgreSQL schema. */
export async function storeRows(box: Box, sql: string, params: unknown[] = []): Promise<Row[]> {
  const { selection, file } = whereStored(box);
  if (selection.kind === 'sqlite') {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...params) as Row[];
    } finally {
      db.close();
    }
  }
  const client = ignoringIdleErrors(new pg.Client({ connectionString: selection.url, options: `-c search_path=${selection.schema}` }));
  await client.connect();
  try {
    let n = 0;
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as Row[];
  } finally {
    await client.end();
  }
}

/**
 * Everything the sandbox's store holds, as text a secret must not be found in: the raw bytes of the profile's SQLite
 * files (database, -wal, -shm: freed pages too), or every row of every table of its PostgreSQL schema.
 */
export async function storeText(box: Box): Promise<string> {
  const { selection, file } = whereStored(box);
  if (selection.kind === 'sqlite') {
    return readdirSync(dirname(file))
      .filter((f) => f.startsWith(basename(file)))
      .map((f) => readFileSync(join(dirname(file), f)).toString('latin1'))
      .join('');
  }
  const tables = await storeRows(
    box,
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const dumps = await Promise.all(tables.map(async (t) => JSON.stringify(await storeRows(box, `SELECT * FROM ${pg.escapeIdentifier(t.table_name)}`))));
  return dumps.join('\n');
}
