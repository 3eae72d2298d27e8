/**
 * Reading back what a sandbox's commands left in the store it selects, whichever engine holds it (the profile's
 * SQLite file, or its schema in a PostgreSQL database): through the storage interface the services use
 * (`withStorage`), or, only for what neither a command nor that interface shows yet (the message rows of an exchange,
 * a task's stored remote JSON), the same SQL on either engine (`storeRows`).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createCore } from '../../electron/core/context.js';
import type { Storage } from '../../electron/core/store/storage.js';
import type { Sandbox } from './cli.js';

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

/** The rows `sql` (`?` placeholders) reads from the sandbox's store: its SQLite file read-only, or its PostgreSQL schema. */
export async function storeRows(box: Box, sql: string, params: unknown[] = []): Promise<Row[]> {
  const core = coreOf(box);
  const selection = core.storeSelection;
  const file = core.paths.database;
  core.close();
  if (selection.kind === 'sqlite') {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...params) as Row[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: selection.url, options: `-c search_path=${selection.schema}` });
  await client.connect();
  try {
    let n = 0;
    return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Row[];
  } finally {
    await client.end();
  }
}
