import type { Migration } from '../../migration.js';
import * as init from './0001-init.js';
import * as journalReads from './0002-journal-reads.js';
import * as jobQueue from './0003-job-queue.js';
import * as actors from './0004-actors.js';
import * as updateRuns from './0005-update-runs.js';
import * as chunkPieces from './0006-chunk-pieces.js';

/**
 * The PostgreSQL store's migrations: ordered, append-only, their own versions and checksums (ledger in each profile's
 * schema, postgres/migrate.ts). Never edit an applied migration: its checksum is verified on every open.
 * Version 1 is SQLite's schema v12 in one step.
 */
export const POSTGRES_MIGRATIONS: Migration[] = [
  { version: 1, name: init.name, sql: init.sql },
  { version: 2, name: journalReads.name, sql: journalReads.sql },
  { version: 3, name: jobQueue.name, sql: jobQueue.sql },
  { version: 4, name: actors.name, sql: actors.sql },
  { version: 5, name: updateRuns.name, sql: updateRuns.sql },
  { version: 6, name: chunkPieces.name, sql: chunkPieces.sql },
];
