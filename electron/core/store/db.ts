/** Opens the profile's SQLite file (WAL, busy timeout, foreign keys) and applies checksummed migrations. */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { storageError } from '../../../shared/errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten } from '../security/private-files.js';

export type Db = Database.Database;

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The sha256 of each migration's SQL by version, computed by build/bundle-cli.mjs from the very files the CLI bundle is
 * made of (undefined in the plain modules), so that opening the store does not load node:crypto (a few ms of every
 * command) to hash the same constant text again. An edited migration is still refused: `checksum` takes a build-time
 * sum only for the very SQL text it was computed from, and hashes any other.
 */
declare const MISSIVE_BUILT_MIGRATION_CHECKSUMS: Readonly<Record<string, string>> | undefined;
const BUILT_CHECKSUMS = typeof MISSIVE_BUILT_MIGRATION_CHECKSUMS === 'object' ? MISSIVE_BUILT_MIGRATION_CHECKSUMS : undefined;

const sha256 = (text: string) => process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');

/** The sha256 of a migration's SQL (hex): what the ledger records when it is applied and compares on every open. */
export function checksum(migration: Migration): string {
  const built = BUILT_CHECKSUMS?.[migration.version];
  if (built && MIGRATIONS.find((m) => m.version === migration.version)?.sql === migration.sql) return built;
  return sha256(migration.sql);
}

export interface OpenOptions {
  readonly?: boolean;
  migrations?: Migration[];
  /** better-sqlite3's native addon to load instead of its default build (the desktop app's Electron build). */
  nativeBinding?: string;
  /** Overrides of CHECKPOINT_POLICY (the checkpoint benchmark compares policies). */
  checkpoint?: Partial<CheckpointPolicy>;
  /** Told of each step of a long migration (one whose SQL marks its steps) when it upgrades a store already in use. */
  onMigration?: (progress: MigrationProgress) => void;
}

/** Where an upgrade is: the migration, and which of its marked steps (`-- step: label` in its SQL) starts now. */
export interface MigrationProgress {
  version: number;
  name: string;
  step: number;
  steps: number;
  label: string;
}

/** A migration's SQL cut at its `-- step: label` lines (one unlabelled step when it has none). */
export function migrationSteps(sql: string): Array<{ label: string; sql: string }> {
  const parts = sql.split(/^-- step: (.*)$/m);
  if (parts.length === 1) return [{ label: '', sql }];
  const steps: Array<{ label: string; sql: string }> = [];
  if (parts[0]!.trim()) steps.push({ label: '', sql: parts[0]! });
  for (let i = 1; i < parts.length; i += 2) steps.push({ label: parts[i]!.trim(), sql: parts[i + 1] ?? '' });
  return steps;
}

/**
 * How the WAL and the page cache are kept (measured by `bench/checkpoint.ts`, figures in docs/performance.md).
 * `walAutocheckpoint` pages (SQLite's PASSIVE checkpoint at commit), `journalSizeLimit` bytes the WAL file is cut back
 * to when it restarts (-1: never), `cacheSizeKib` of page cache per connection, and `idleCheckpointMs`: a
 * `wal_checkpoint(TRUNCATE)` once the store's group writers and batches have been quiet that long (0: never).
 */
export interface CheckpointPolicy {
  walAutocheckpoint: number;
  journalSizeLimit: number;
  cacheSizeKib: number;
  idleCheckpointMs: number;
}

/** SQLite's defaults, the policy before issue 23: the baseline `bench/checkpoint.ts` measures against. */
export const SQLITE_DEFAULT_POLICY: CheckpointPolicy = { walAutocheckpoint: 1000, journalSizeLimit: -1, cacheSizeKib: 2000, idleCheckpointMs: 0 };

/**
 * Measured (docs/performance.md, "Checkpoint policy"): a 16 MB `journal_size_limit` cuts a long stream's WAL from
 * 29 to 16 MB, and the idle TRUNCATE to 0 a second after the writes stop (it stayed at 29 MB for as long as the app
 * ran). A 16 MB cache and `wal_autocheckpoint` 4000 measured no better than noise (the larger checkpoint interval
 * grew the WAL to 37 MB): SQLite's defaults stay.
 */
export const CHECKPOINT_POLICY: CheckpointPolicy = { ...SQLITE_DEFAULT_POLICY, journalSizeLimit: 16 * 2 ** 20, idleCheckpointMs: 1000 };

export const checkpointPolicy = (options: OpenOptions): CheckpointPolicy => ({ ...CHECKPOINT_POLICY, ...options.checkpoint });

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
      const policy = checkpointPolicy(options);
      db.pragma(`wal_autocheckpoint = ${Math.trunc(policy.walAutocheckpoint)}`);
      db.pragma(`journal_size_limit = ${Math.trunc(policy.journalSizeLimit)}`);
      db.pragma(`cache_size = -${Math.trunc(policy.cacheSizeKib)}`);
      migrate(db, options.migrations ?? MIGRATIONS, options.onMigration);
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
 * statements themselves at fan-out sizes. Statements are cached per connection by their SQL text. A statement
 * switched into pluck/raw/expand mode keeps it for the next user of the same text: a repository that switches one
 * uses SQL text no other call shares, and sets the mode on every use (repos/agents.ts `listAgents`).
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

/** The page cache an upgrade sorts its index builds in. */
const MIGRATION_CACHE_KIB = 256 * 1024;

/**
 * Applies the migrations the ledger lacks. Check and apply run in one IMMEDIATE transaction: processes opening a
 * brand-new store at once take turns (the others wait on the busy timeout), and each reads the ledger again under the
 * write lock, so a migration another process applied meanwhile is not applied twice. An up-to-date store is only read.
 */
export function migrate(db: Db, migrations: Migration[] = MIGRATIONS, onMigration?: (progress: MigrationProgress) => void) {
  const pending = (applied: AppliedMigration[]) => migrations.filter((m) => !applied.some((row) => row.version === m.version));
  const applied = verifyMigrations(db, migrations);
  if (pending(applied).length === 0) return;
  if (applied.length > 0) withRollbackJournal(db, () => applyPending(db, migrations, pending, onMigration));
  else applyPending(db, migrations, pending, onMigration);
}

/**
 * Runs `fn` (an upgrade of a store in use) in SQLite's rollback journal rather than the WAL, when no other connection
 * has the file open (leaving the WAL needs the file alone; otherwise `fn` runs in the WAL, as before). An upgrade that
 * rebuilds the journal writes every page of its new table and indexes: through the WAL each is written twice (the
 * WAL, then the checkpoint) and every later read of it looks it up in the WAL's index; in the rollback journal the
 * new pages go to the file once. At 1,000,000 events v13 → v15 took 20.0–22.8 s in the WAL, 12.7–13.1 s this way
 * (docs/performance.md). Synchronous FULL while it lasts (a power cut mid-upgrade leaves a journal that rolls it back);
 * the WAL and NORMAL again after, its files private as at open.
 */
function withRollbackJournal(db: Db, fn: () => void): void {
  let switched = false;
  try {
    switched = db.pragma('journal_mode', { simple: true }) === 'wal' && db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch {
    // Another connection holds the file (SQLITE_BUSY): the upgrade runs in the WAL.
  }
  if (!switched) return fn();
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = FULL');
  try {
    fn();
  } finally {
    db.pragma(`synchronous = ${synchronous}`);
    try {
      db.pragma('journal_mode = WAL');
      for (const suffix of ['-wal', '-shm']) tighten(`${db.name}${suffix}`, PRIVATE_FILE_MODE);
    } catch {
      // Another connection opened the file meanwhile: the next open sets the WAL again (openDatabase).
    }
  }
}

/** The pending migrations in one IMMEDIATE transaction, the ledger read again under the write lock. */
function applyPending(
  db: Db,
  migrations: Migration[],
  pending: (applied: AppliedMigration[]) => Migration[],
  onMigration: ((progress: MigrationProgress) => void) | undefined,
): void {
  // An upgrade that rebuilds a table sorts every row into each index: in a large cache and on a second core rather
  // than in small spills to temporary files (cache and threads are restored after; temp_store stays MEMORY, as
  // store.ts sets it).
  const cache = db.pragma('cache_size', { simple: true }) as number;
  const threads = db.pragma('threads', { simple: true }) as number;
  db.pragma(`cache_size = -${MIGRATION_CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('threads = 2');
  db.transaction(() => {
    ensureLedger(db);
    const applied = verifyMigrations(db, migrations);
    // A new store's migrations are quick (its tables are empty): only an upgrade of a store in use says where it is.
    const report = applied.length > 0 ? onMigration : undefined;
    for (const migration of pending(applied)) {
      const steps = migrationSteps(migration.sql);
      steps.forEach((step, i) => {
        if (report && step.label) report({ version: migration.version, name: migration.name, step: i + 1, steps: steps.length, label: step.label });
        db.exec(step.sql);
      });
      db.prepare(`INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)`).run(migration.version, migration.name, checksum(migration));
      db.pragma(`user_version = ${migration.version}`);
    }
  }).immediate();
  db.pragma(`cache_size = ${cache}`);
  db.pragma(`threads = ${threads}`);
}

export const nowIso = () => new Date().toISOString();
