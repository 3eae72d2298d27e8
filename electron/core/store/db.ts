/** Opens the profile's SQLite file (WAL, busy timeout, foreign keys) and applies checksummed migrations. */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { storageError } from '../../../shared/errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten } from '../security/private-files.js';

export type Db = Database.Database;

export const SCHEMA_VERSION = MIGRATIONS.length;

export const checksum = (migration: Migration) => createHash('sha256').update(migration.sql).digest('hex');

export interface OpenOptions {
  readonly?: boolean;
  migrations?: Migration[];
  /** better-sqlite3's native addon to load instead of its default build (the desktop app's Electron build). */
  nativeBinding?: string;
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (options.readonly && !existsSync(path)) throw storageError('database_missing', `no database at ${path} yet`);
  // The database is private (0600), and so are -wal and -shm: SQLite creates them with the database file's mode.
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  let db: Db;
  try {
    if (!options.readonly) {
      if (!existsSync(path)) closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
      tighten(path, PRIVATE_FILE_MODE);
    }
    db = new Database(path, { readonly: options.readonly ?? false, timeout: 5000, nativeBinding: options.nativeBinding });
  } catch (error) {
    throw storageError('open_failed', `cannot open database ${path}: ${(error as Error).message}`);
  }
  cachePreparedStatements(db);
  try {
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      for (const suffix of ['-wal', '-shm']) tighten(`${path}${suffix}`, PRIVATE_FILE_MODE);
      db.pragma('synchronous = NORMAL');
      migrate(db, options.migrations ?? MIGRATIONS);
    } else {
      verifyMigrations(db, options.migrations ?? MIGRATIONS);
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Repositories call `db.prepare(sql)` where they use it; compiling the same SQL again on every call cost more than the
 * statements themselves at fan-out sizes. Statements are cached per connection by their SQL text. (No repository
 * switches a statement into pluck/raw/expand mode, which would leak into the next user.)
 */
function cachePreparedStatements(db: Db): void {
  const cache = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      cache.set(source, statement);
    }
    return statement;
  }) as Db['prepare'];
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
  applied_at: string;
}

function ensureLedger(db: Db) {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
  ) STRICT`);
}

export function appliedMigrations(db: Db): AppliedMigration[] {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'`).get();
  if (!exists) return [];
  return db.prepare(`SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version`).all() as AppliedMigration[];
}

/** Refuses unknown future versions and edited migrations. */
export function verifyMigrations(db: Db, migrations: Migration[]): AppliedMigration[] {
  const applied = appliedMigrations(db);
  for (const row of applied) {
    const known = migrations.find((m) => m.version === row.version);
    if (!known) {
      throw storageError(
        'schema_too_new',
        `database schema version ${row.version} is newer than this missive understands (${migrations.length})`,
        'Upgrade missive, or point MISSIVE_HOME at another state directory.',
      );
    }
    if (checksum(known) !== row.checksum) {
      throw storageError('migration_checksum', `migration ${row.version} (${row.name}) was changed after it was applied`);
    }
  }
  return applied;
}

export function migrate(db: Db, migrations: Migration[] = MIGRATIONS) {
  ensureLedger(db);
  const applied = new Set(verifyMigrations(db, migrations).map((m) => m.version));
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare(`INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)`).run(
        migration.version,
        migration.name,
        checksum(migration),
      );
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

export const nowIso = () => new Date().toISOString();
