/**
 * The integration suite runs against both stores: `describe.each(STORES)` with `storeUnderTest(kind)` in a
 * beforeEach gives each test the environment that selects its store — nothing for the embedded SQLite default, a
 * fresh PostgreSQL database (its URL in MISSIVE_STORE_URL) for team mode — and `release()` drops what it made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import { migratePostgres } from '../../electron/core/store/postgres/migrate.js';
import { postgresStorage } from '../../electron/core/store/postgres/storage.js';
import type { Storage } from '../../electron/core/store/storage.js';
import { freshPostgresUrl, ignoringIdleErrors, type FreshDatabase } from './postgres.js';

export const STORES = ['sqlite', 'postgres'] as const;
export type StoreKindUnderTest = (typeof STORES)[number];

export interface StoreUnderTest {
  kind: StoreKindUnderTest;
  /** What to add to a sandbox's environment (sandbox(env)). */
  env: Record<string, string>;
  release(): Promise<void>;
}

export async function storeUnderTest(kind: StoreKindUnderTest): Promise<StoreUnderTest> {
  if (kind === 'sqlite') return { kind, env: {}, release: async () => {} };
  const db = await freshPostgresUrl();
  return { kind, env: { MISSIVE_STORE_URL: db.url }, release: db.drop };
}

export interface OpenedStore {
  store: StoreUnderTest;
  core: Core;
  /** The IPC handler registry the desktop app and the web console use, on `core`. */
  registry: Registry;
}

/**
 * For each test of the describe block it is called in: a fresh store of `kind`, a core on it in a throw-away
 * MISSIVE_HOME and the IPC registry, handed to `use` before the test; all disposed after it.
 */
export function registryOnStoreEach(kind: StoreKindUnderTest, use: (opened: OpenedStore) => void): void {
  let home: string;
  let opened: OpenedStore;
  beforeEach(async () => {
    const store = await storeUnderTest(kind);
    home = mkdtempSync(join(tmpdir(), 'missive-store-'));
    const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, ...store.env }, cwd: home, secrets: createMemorySecretStore() });
    opened = { store, core, registry: createRegistry({ core, cwd: home, emit: () => undefined }) };
    use(opened);
  });
  afterEach(async () => {
    await opened.registry.dispose();
    opened.core.close();
    await opened.store.release();
    rmSync(home, { recursive: true, force: true });
  });
}

/**
 * For the describe block it is called in: a fresh PostgreSQL database (`db()`, once the block's tests run), and
 * `open(schema)`: a storage on a pool of its own, as another host has, its schema migrated; every storage closed and
 * the database dropped after the block. `url` opens it as another user (or through a proxy).
 */
export function postgresStoragesOfBlock() {
  let db: FreshDatabase;
  const storages: Storage[] = [];
  beforeAll(async () => void (db = await freshPostgresUrl()));
  afterAll(async () => {
    await Promise.all(storages.map((storage) => storage.close()));
    await db.drop();
  });
  return {
    db: () => db,
    open: async (schema: string, url = db.url) => {
      const pool = ignoringIdleErrors(new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 }));
      await migratePostgres(pool, schema);
      const storage = postgresStorage(pool, schema, `schema ${schema}`);
      storages.push(storage);
      return { storage, pool };
    },
  };
}
