/**
 * A transaction on a pooled connection of its own, open until it is committed or rolled back: what `Storage.transaction`
 * runs a function in, and what an update sink's tick holds across updates (update-ticks.ts).
 */
import type { Pool, PoolClient } from 'pg';
import { MissiveError, storageError } from '../../../../shared/errors.js';
import { queryFailure } from './query-errors.js';
import type { Query } from './repos/query.js';

export interface OpenTransaction {
  /** Runs a statement in the transaction; rejects once it has ended (the connection is back in the pool). */
  query: Query;
  /**
   * Commits. A statement that failed inside (its error caught) made PostgreSQL answer COMMIT with a ROLLBACK:
   * `storage::transaction_aborted`. A COMMIT that fails leaves the transaction to `rollback`.
   */
  commit(): Promise<void>;
  /** Rolls back what is still open and hands the connection back (discarded when it is broken); never rejects. */
  rollback(): Promise<void>;
}

export async function openTransaction(pool: Pool): Promise<OpenTransaction> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw queryFailure(error, 'starting a transaction');
  }
  let open = true;
  let ended = false;
  let broken: Error | undefined;
  // While it is checked out the pool does not listen for the connection's errors: a connection the server ends
  // (pg_terminate_backend, a restart, a failover) would emit an 'error' nobody handles and end the process. Kept
  // here instead: the statement under way fails on its own, and the pool discards the connection on release.
  const onError = (error: Error) => void (broken ??= error);
  client.on('error', onError);
  const release = () => {
    if (!open) return;
    open = false;
    // A connection whose ROLLBACK failed is in an unknown state: the pool discards it.
    client.release(broken);
    // Released: the pool listens for the idle connection's errors again.
    client.removeListener('error', onError);
  };
  try {
    await client.query('BEGIN');
  } catch (error) {
    broken ??= error as Error;
    release();
    throw queryFailure(error, 'starting a transaction');
  }
  return {
    // A call after the transaction ended would run on a connection handed back to the pool.
    query: (sql, params) =>
      open
        ? client.query(sql, params)
        : Promise.reject(new MissiveError('internal', 'transaction_closed', 'a store call was made through a transaction that had already ended')),
    async commit() {
      let commit;
      try {
        commit = await client.query('COMMIT');
      } catch (error) {
        throw queryFailure(error, 'committing a transaction');
      }
      ended = true;
      release();
      if (commit.command === 'ROLLBACK') {
        throw storageError('transaction_aborted', 'the transaction was rolled back: one of its statements had failed, so nothing of it was written');
      }
    },
    async rollback() {
      if (!open) return;
      if (!ended) await client.query('ROLLBACK').catch((error: Error) => void (broken = error));
      release();
    },
  };
}
