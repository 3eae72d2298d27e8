/** The store handle the services receive: one database, its repositories, and transaction helpers. */
import { openDatabase, type Db, type OpenOptions } from './db.js';

export interface Store {
  readonly db: Db;
  readonly path: string;
  /** Runs `fn` in one IMMEDIATE transaction, now. */
  transaction<T>(fn: () => T): T;
  /**
   * Group commit: the calls queued until the queue is flushed (`setImmediate`: the rest of the current tick) run in
   * one transaction, each `fn` in its own savepoint, and each promise settles once that transaction has committed.
   * A commit costs about four times the writes of one answer, so fan-outs persist hundreds of answers per commit.
   * A failing `fn` rolls back alone and rejects its own promise; a failing commit rejects the whole group's.
   */
  batch<T>(fn: () => T): Promise<T>;
  /**
   * Group commit for writes that must apply at once and in order (a stream's events): see `GroupWriter`. A commit
   * per event costs more than the event itself at stream rates.
   */
  grouped(): GroupWriter;
  close(): void;
}

/**
 * `write(fn)` runs `fn` now, in its own savepoint. The first write of a tick opens a transaction that commits at the
 * end of the tick (`setImmediate`: everything a burst of network data brings commits together), at `flush()`, or
 * earlier when a `batch` group flushes first, so a killed process loses at most the last tick. A write made while a
 * transaction is already open (another writer's tick, or inside `transaction`) joins it and commits with it. A
 * failing `fn` rolls back alone. Between ticks the write lock is free.
 */
export interface GroupWriter {
  write<T>(fn: () => T): T;
  /** If this writer opened a tick, ends it now: commits the open transaction. Call it when the sequence ends, and before reporting a failure. */
  flush(): void;
}



interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function openStore(path: string, options: OpenOptions = {}): Store {
  const db = openDatabase(path, options);
  // Each group-writer write runs in a savepoint, and SQLite copies every page a savepoint first touches into a
  // sub-journal. On disk (the default past 64 KiB) that was two pwrite calls per page, about 37 per stream event and
  // half the CPU of persisting one. In memory it is a copy. The sub-journal only lives as long as its transaction.
  if (!options.readonly) db.pragma('temp_store = MEMORY');
  let queue: Pending[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const flush = () => {
    scheduled = undefined;
    const items = queue;
    queue = [];
    if (items.length === 0) return;
    // A group writer's tick still open (a stream in this process): commit it first, so this group gets a transaction
    // of its own, committed before its promises settle, instead of joining one that commits later.
    if (db.inTransaction) db.exec('COMMIT');
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      db.transaction(() => {
        for (const item of items) {
          try {
            outcomes.push({ ok: true, value: db.transaction(item.fn)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of items) item.reject(error);
      return;
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };

  return {
    db,
    path,
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    batch: <T>(fn: () => T): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        scheduled ??= setImmediate(flush);
      }),
    grouped: () => groupWriter(db),
    close: () => {
      if (scheduled) clearImmediate(scheduled);
      if (db.open) {
        flush();
        // A group writer's tick that has not come yet: commit it rather than lose it.
        if (db.inTransaction) db.exec('COMMIT');
        db.close();
      }
    },
  };
}

/**
 * `fn` in a savepoint of the open transaction: rolled back alone when it throws. Prepared once per connection (the
 * statements are cached by db.prepare), unlike `db.transaction(fn)`, which builds a wrapper per call.
 */
function inSavepoint<T>(db: Db, fn: () => T): T {
  db.prepare('SAVEPOINT missive_write').run();
  let value: T;
  try {
    value = fn();
  } catch (error) {
    // A failure SQLite answered with a rollback of the whole transaction leaves no savepoint to return to.
    if (db.inTransaction) {
      db.prepare('ROLLBACK TO missive_write').run();
      db.prepare('RELEASE missive_write').run();
    }
    throw error;
  }
  db.prepare('RELEASE missive_write').run();
  return value;
}

function groupWriter(db: Db): GroupWriter {
  let tick: NodeJS.Immediate | undefined;
  const flush = () => {
    if (!tick) return;
    clearImmediate(tick);
    tick = undefined;
    if (db.open && db.inTransaction) db.exec('COMMIT');
  };
  return {
    write<T>(fn: () => T): T {
      // Called inside someone else's transaction (synchronously), the write simply joins it, and commits with it.
      if (!db.inTransaction) {
        db.exec('BEGIN IMMEDIATE');
        tick = setImmediate(flush);
      }
      return inSavepoint(db, fn);
    },
    flush,
  };
}
