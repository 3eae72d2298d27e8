/**
 * The integration suite runs against both stores: `describe.each(STORES)` with `storeUnderTest(kind)` in a
 * beforeEach gives each test the environment that selects its store — nothing for the embedded SQLite default, a
 * fresh PostgreSQL database (its URL in MISSIVE_STORE_URL) for team mode — and `release()` drops what it made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createCore, type Core } from '../../electron/core/context.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import { freshPostgresUrl } from './postgres.js';

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
