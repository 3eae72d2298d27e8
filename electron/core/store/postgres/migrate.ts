/**
 * The PostgreSQL store's schema: one schema per profile, created on first use, with its own `schema_migrations` ledger
 * (version, name, sha256 of the SQL, when) as SQLite's store has (db.ts). Migrations apply in one transaction under a
 * transaction-level advisory lock keyed on the schema, so hosts starting at once migrate once: the second waits, then
 * finds them applied. A schema migrated by a newer missive (`storage::schema_too_new`) and an edited migration
 * (`storage::migration_checksum`) are refused, as on SQLite.
 *
 * Statements name the schema explicitly (or SET LOCAL search_path inside the transaction): the pool's own
 * search_path names a schema that may not exist yet.
 */
import type { Pool, PoolClient } from 'pg';
import { storageError } from '../../../../shared/errors.js';
import type { Migration } from '../migration.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import { queryFailure, sqlState } from './query-errors.js';

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

/** `name` as a quoted SQL identifier. */
export const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The sha256 of a migration's SQL (hex), as the ledger records it. node:crypto is loaded only when a store migrates. */
export const postgresChecksum = (migration: Migration): string =>
  process.getBuiltinModule('node:crypto').createHash('sha256').update(migration.sql).digest('hex');

export interface LedgerRow {
  version: number;
  name: string;
  checksum: string;
}

/** The advisory lock key of one schema's migrations (advisory locks are database-wide). */
const lockKey = (schema: string) => `missive.migrate:${schema}`;

/** The schema's ledger, or null when the schema or its ledger does not exist yet. */
async function readLedger(db: Pick<Pool, 'query'>, schema: string): Promise<LedgerRow[] | null> {
  try {
    const result = await db.query<LedgerRow>(`SELECT version, name, checksum FROM ${quoteIdentifier(schema)}.schema_migrations ORDER BY version`);
    return result.rows;
  } catch (error) {
    // 3F000: no such schema; 42P01: no such table.
    if (sqlState(error) === '3F000' || sqlState(error) === '42P01') return null;
    throw queryFailure(error, 'reading the schema ledger');
  }
}

/** Refuses versions this missive does not know and migrations edited since they were applied. */
function verify(schema: string, applied: LedgerRow[], migrations: Migration[]): void {
  for (const row of applied) {
    const known = migrations.find((m) => m.version === row.version);
    if (!known) {
      throw storageError(
        'schema_too_new',
        `PostgreSQL schema ${schema} is at version ${row.version}, newer than this missive understands (${migrations.length})`,
        'Upgrade missive on this host: another host with a newer missive migrated the shared store.',
      );
    }
    if (postgresChecksum(known) !== row.checksum) {
      throw storageError('migration_checksum', `migration ${row.version} (${row.name}) of PostgreSQL schema ${schema} was changed after it was applied`);
    }
  }
}

const upToDate = (applied: LedgerRow[], migrations: Migration[]) => migrations.every((m) => applied.some((row) => row.version === m.version));

/**
 * Creates `schema` if needed and applies the migrations it lacks. Cheap when nothing is to do (one read of the
 * ledger, no lock); otherwise one transaction under the schema's advisory lock.
 */
export async function migratePostgres(pool: Pool, schema: string, migrations: Migration[] = POSTGRES_MIGRATIONS): Promise<void> {
  const ledger = await readLedger(pool, schema);
  if (ledger) {
    verify(schema, ledger, migrations);
    if (upToDate(ledger, migrations)) return;
  }
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw queryFailure(error, 'migrating the store');
  }
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey(schema)]);
    // Only a missing schema is created: CREATE SCHEMA needs the CREATE privilege on the database even with IF NOT EXISTS.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
    await client.query(`SET LOCAL search_path TO ${quoteIdentifier(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      checksum TEXT NOT NULL,
      applied_at TEXT NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    )`);
    // Read again under the lock: another host may have migrated while this one waited.
    const applied = (await client.query<LedgerRow>('SELECT version, name, checksum FROM schema_migrations ORDER BY version')).rows;
    verify(schema, applied, migrations);
    for (const migration of migrations) {
      if (applied.some((row) => row.version === migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        postgresChecksum(migration),
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: Error) => void (broken = rollback));
    throw queryFailure(error, `migrating PostgreSQL schema ${schema}`);
  } finally {
    client.release(broken);
  }
}

export interface PostgresSchemaStatus {
  /** The newest migration applied (0: the schema or its ledger does not exist yet; it is created on first use). */
  version: number;
  /** The version this missive applies. */
  expected: number;
  /** Why this missive would refuse the schema (newer than it knows, or an edited migration); null otherwise. */
  problem: string | null;
}

/** The schema's state for `doctor`, changing nothing. Unreachable stores throw (storage::store_unreachable). */
export async function postgresSchemaStatus(pool: Pool, schema: string, migrations: Migration[] = POSTGRES_MIGRATIONS): Promise<PostgresSchemaStatus> {
  const ledger = (await readLedger(pool, schema)) ?? [];
  const version = ledger.reduce((max, row) => Math.max(max, row.version), 0);
  try {
    verify(schema, ledger, migrations);
    return { version, expected: migrations.length, problem: null };
  } catch (error) {
    return { version, expected: migrations.length, problem: (error as Error).message };
  }
}
