/**
 * The storage interface over a PostgreSQL pool (team mode). The pool's connections have `search_path` set to the
 * profile's schema (postgres/connect.ts), so the repositories name tables unqualified; `migratePostgres` has created
 * the schema. Outside `transaction` each call runs on whichever pooled connection is free; inside, every call of `tx`
 * runs on the one connection holding the transaction.
 */
import type { Notification, Pool, PoolClient } from 'pg';
import type { Repositories, Storage } from '../storage.js';
import { queryFailure } from './query-errors.js';
import { agentRepository } from './repos/agents.js';
import { authRefRepository } from './repos/auth-refs.js';
import { callEventReader } from './repos/call-events.js';
import { jobRepository } from './repos/gateway-jobs.js';
import { gatewayPoolRepository } from './repos/gateway-pool.js';
import { conversationRepository } from './repos/conversation.js';
import { contextMethods } from './repos/contexts.js';
import { requestMethods } from './repos/history.js';
import { groupRepository } from './repos/groups.js';
import { journalWriter } from './repos/journal.js';
import { postgresJournalReads } from './repos/journal-reads.js';
import { run, type Query } from './repos/query.js';
import { joinPool } from './pool-membership.js';
import { openTransaction } from './open-transaction.js';
import { postgresUpdateSink } from './update-ticks.js';
import { runSteps } from '../steps.js';

/** The channel every schema's gateway_jobs notifies when a job becomes runnable (migration 0003), the schema as payload. */
const JOBS_CHANNEL = 'missive_jobs';

function repositories(query: Query): Repositories {
  return {
    agents: agentRepository(query),
    authRefs: authRefRepository(query),
    groups: groupRepository(query),
    journal: journalWriter(query),
    jobs: jobRepository(query),
    conversation: conversationRepository(query),
    history: { ...contextMethods(query), ...requestMethods(query) },
  };
}

/**
 * `pool` (its connections' search_path set to `schema`) as a Storage; `location` is what `location` prints (the URL
 * without its password, and the schema). The storage owns the pool: `close()` ends it.
 */
export function postgresStorage(pool: Pool, schema: string, location: string): Storage {
  const onPool: Query = (sql, params) => pool.query(sql, params);
  let closed: Promise<void> | undefined;

  async function transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
    const tx = await openTransaction(pool);
    try {
      const result = await fn(repositories(tx.query));
      await tx.commit();
      return result;
    } finally {
      // Committed: nothing left to roll back. Else (`fn` or the COMMIT failed) nothing of it is written.
      await tx.rollback();
    }
  }

  /** The listeners' stops, so that closing the storage stops them (the pool ends once every client is back). */
  const listening = new Set<() => Promise<void>>();

  /**
   * LISTEN on a connection of its own, held until the returned function stops it. Every schema of the database
   * notifies the one channel (migration 0003), its name as payload: another profile's jobs are not this one's. A lost
   * connection ends the listening quietly (the gateway's scans still find the jobs): its error is kept from crashing
   * the process, and the connection is discarded when the listening stops.
   */
  async function onJobQueued(listener: () => void): Promise<() => Promise<void>> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw queryFailure(error, 'listening for queued jobs');
    }
    let broken: Error | undefined;
    const onNotification = (n: Notification) => {
      if (n.channel === JOBS_CHANNEL && n.payload === schema) listener();
    };
    const onError = (error: Error) => {
      broken ??= error;
      client.removeListener('notification', onNotification);
    };
    client.on('error', onError);
    client.on('notification', onNotification);
    const release = () => {
      client.removeListener('notification', onNotification);
      client.release(broken ?? false);
      // Released: the pool listens for the idle connection's errors again.
      client.removeListener('error', onError);
    };
    try {
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch (error) {
      broken ??= error as Error;
      release();
      throw queryFailure(error, 'listening for queued jobs');
    }
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        listening.delete(stop);
        if (!broken) await client.query(`UNLISTEN ${JOBS_CHANNEL}`).catch((error: Error) => void (broken ??= error));
        release();
      })());
    listening.add(stop);
    return stop;
  }

  const repos = repositories(onPool);
  const gatewayPool = gatewayPoolRepository(onPool);
  return {
    kind: 'postgres',
    location,
    ...repos,
    journalReads: postgresJournalReads(onPool),
    callEvents: callEventReader(onPool),
    read: (steps) => runSteps(repos, steps),
    write: (make) => transaction((tx) => runSteps(tx, make())),
    // The updates of a tick of network data share a transaction, their rows written a kind at a time (update-ticks.ts).
    updates: () =>
      postgresUpdateSink(async () => {
        const tx = await openTransaction(pool);
        return { tx, repos: repositories(tx.query) };
      }),
    transaction,
    membership: (options) => joinPool(gatewayPool, options),
    gateways: async () => ({ kind: 'pool', rows: await gatewayPool.list() }),
    onJobQueued,
    // A write that changes nothing: refused by a read-only server (a standby, default_transaction_read_only) or role.
    checkWritable: async () => void (await run(onPool, 'store.checkWritable', `UPDATE schema_migrations SET version = version WHERE false`)),
    close: () => (closed ??= Promise.all([...listening].map((stop) => stop())).then(() => pool.end())),
  };
}
