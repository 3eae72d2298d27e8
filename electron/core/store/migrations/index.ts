import * as init from './0001-init.js';
import * as artifactChunks from './0002-artifact-chunks.js';
import * as originPinning from './0003-origin-pinning.js';
import * as eventsUnknownTasks from './0004-events-unknown-tasks.js';
import * as journalIndexes from './0005-journal-indexes.js';
import * as requestHistoryIndexes from './0006-request-history-indexes.js';
import * as authFlows from './0007-auth-flows.js';
import * as clientTls from './0008-client-tls.js';
import * as cardKeys from './0009-card-keys.js';
import * as durableJobs from './0010-durable-jobs.js';
import * as appendOnlyJournal from './0011-append-only-journal.js';
import * as gatewayLease from './0012-gateway-lease.js';
import * as actors from './0013-actors.js';
import * as updateRuns from './0014-update-runs.js';
import * as chunkPieces from './0015-chunk-pieces.js';

import type { Migration } from '../migration.js';

export type { Migration };

/** Ordered, append-only. Never edit an applied migration: its checksum is verified on every open. */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: init.name, sql: init.sql },
  { version: 2, name: artifactChunks.name, sql: artifactChunks.sql },
  { version: 3, name: originPinning.name, sql: originPinning.sql },
  { version: 4, name: eventsUnknownTasks.name, sql: eventsUnknownTasks.sql },
  { version: 5, name: journalIndexes.name, sql: journalIndexes.sql },
  { version: 6, name: requestHistoryIndexes.name, sql: requestHistoryIndexes.sql },
  { version: 7, name: authFlows.name, sql: authFlows.sql },
  { version: 8, name: clientTls.name, sql: clientTls.sql },
  { version: 9, name: cardKeys.name, sql: cardKeys.sql },
  { version: 10, name: durableJobs.name, sql: durableJobs.sql },
  { version: 11, name: appendOnlyJournal.name, sql: appendOnlyJournal.sql },
  { version: 12, name: gatewayLease.name, sql: gatewayLease.sql },
  { version: 13, name: actors.name, sql: actors.sql },
  { version: 14, name: updateRuns.name, sql: updateRuns.sql },
  { version: 15, name: chunkPieces.name, sql: chunkPieces.sql },
];
