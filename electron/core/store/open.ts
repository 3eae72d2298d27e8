/**
 * Opens the store a core selected (store/selection.ts): the profile's SQLite file (created, and migrated, on first
 * use), or a PostgreSQL database (connected, and its schema migrated). The one module that names an engine: each is
 * loaded only when selected (the SQLite default never loads pg; a PostgreSQL store never opens a local file).
 */
import type { Storage } from './storage.js';
import type { StoreSelection } from './selection.js';
import type { OpenPoolOptions } from './postgres/connect.js';
import type { MigrationProgress } from './db.js';

export interface OpenStorageOptions {
  /** The profile's SQLite file and its folder (created 0700 first). */
  sqlite: { path: string; stateDir: string; nativeBinding?: string; onMigration?: (progress: MigrationProgress) => void };
  /** What a PostgreSQL pool needs: env, the secret store, the config, where its passwords and warnings go. */
  postgres: OpenPoolOptions;
}

export async function openStorage(selection: StoreSelection, options: OpenStorageOptions): Promise<Storage> {
  if (selection.kind === 'sqlite') {
    const [{ ensureStateDir }, { openStore }, { sqliteStorage }] = await Promise.all([
      import('../security/private-files.js'),
      import('./store.js'),
      import('./sqlite/storage.js'),
    ]);
    ensureStateDir(options.sqlite.stateDir);
    return sqliteStorage(openStore(options.sqlite.path, { nativeBinding: options.sqlite.nativeBinding, onMigration: options.sqlite.onMigration }), {
      owned: true,
    });
  }
  const [{ openPool }, { migratePostgres }, { postgresStorage }] = await Promise.all([
    import('./postgres/connect.js'),
    import('./postgres/migrate.js'),
    import('./postgres/storage.js'),
  ]);
  const pool = await openPool(selection, options.postgres);
  try {
    await migratePostgres(pool, selection.schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return postgresStorage(pool, selection.schema, selection.display);
}
