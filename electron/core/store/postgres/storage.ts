/**
 * The storage interface over a PostgreSQL pool (team mode). The pool's connections have `search_path` set to the
 * profile's schema (postgres/connect.ts), so the repositories name tables unqualified; `migratePostgres` has created
 * the schema. Outside `transaction` each call runs on whichever pooled connection is free; inside, every call of `tx`
 * runs on the one connection holding the transaction.
 */
import type { Pool, PoolClient } from 'pg';
import { MissiveError, storageError } from '../../../../shared/errors.js';
import type { Repositories, Storage } from '../storage.js';
import { queryFailure } from './query-errors.js';
import { agentRepository } from './repos/agents.js';
import { authRefRepository } from './repos/auth-refs.js';
import { callEventReader } from './repos/call-events.js';
import { groupRepository } from './repos/groups.js';
import { journalWriter } from './repos/journal.js';
import { postgresJournalReads } from './repos/journal-reads.js';
import type { Query } from './repos/query.js';

function repositories(query: Query): Repositories {
  return {
    agents: agentRepository(query),
    authRefs: authRefRepository(query),
    groups: groupRepository(query),
    journal: journalWriter(query),
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
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw queryFailure(error, 'starting a transaction');
    }
    let open = true;
    // A call through `tx` after the transaction ended would run on a connection handed back to the pool.
    const onClient: Query = (sql, params) => {
      if (!open) return Promise.reject(new MissiveError('internal', 'transaction_closed', 'a store call was made through a transaction that had already ended'));
      return client.query(sql, params);
    };
    let broken: Error | undefined;
    let ended = false;
    try {
      try {
        await client.query('BEGIN');
      } catch (error) {
        throw queryFailure(error, 'starting a transaction');
      }
      const result = await fn(repositories(onClient));
      let commit;
      try {
        commit = await client.query('COMMIT');
      } catch (error) {
        throw queryFailure(error, 'committing a transaction');
      }
      ended = true;
      // A statement failed inside and its error was caught: PostgreSQL answers COMMIT with a ROLLBACK.
      if (commit.command === 'ROLLBACK') {
        throw storageError('transaction_aborted', 'the transaction was rolled back: one of its statements had failed, so nothing of it was written');
      }
      return result;
    } catch (error) {
      if (!ended) await client.query('ROLLBACK').catch((rollback: Error) => void (broken = rollback));
      throw error;
    } finally {
      open = false;
      // A connection whose ROLLBACK failed is in an unknown state: the pool discards it.
      client.release(broken);
    }
  }

  return {
    kind: 'postgres',
    location,
    ...repositories(onPool),
    journalReads: postgresJournalReads(onPool),
    callEvents: callEventReader(onPool),
    transaction,
    close: () => (closed ??= pool.end()),
  };
}
