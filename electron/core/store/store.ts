/** The store handle the services receive: one database, its repositories, and transaction helpers. */
import { MissiveError, storageError } from '../../../shared/errors.js';
import { checkpointPolicy, openDatabase, type Db, type OpenOptions } from './db.js';

export interface Store {
  readonly db: Db;
  readonly path: string;
  /** Runs `fn` in one IMMEDIATE transaction, now. */
  transaction<T>(fn: () => T): T;
  /**
   * `fn` in one IMMEDIATE transaction (a savepoint inside an open one) that commits when its promise resolves and
   * rolls back when it rejects: the asynchronous storage interface's transaction (sqlite/storage.ts). `fn` may only
   * await this store's own calls, which settle at once: the write lock is held meanwhile. One that waits on I/O (its
   * promise still pending at the next turn of the event loop) is rolled back with `internal::transaction_spanned_io`.
   */
  transactionAsync<T>(fn: () => Promise<T>): Promise<T>;
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
 * failing `fn` rolls back alone. Between ticks the write lock is free. Races: test/unit/store-races.test.ts.
 */
export interface GroupWriter {
  write<T>(fn: () => T): T;
  /**
   * If this writer's writes are in the open tick (its own or one it joined), ends it now: commits the open
   * transaction. Call it when the sequence ends, and before reporting a failure. Throws `storage::tick_rolled_back`
   * (once) if SQLite rolled back a tick holding this writer's writes; `write` throws it too, and `storage::store_closed`
   * after `close()`.
   */
  flush(): void;
  /**
   * A value kept for the rest of the open tick under `key`, shared by the writers of the tick: what the tick has
   * already set (`set`), else `init()` (read from the database). Read it inside `write`.
   */
  get<T>(key: string, init: () => T): T;
  /**
   * Sets the tick's value under `key`, and how to store it: `save` runs once, just before the tick commits, with the
   * last value set. A value every write of a tick changes (an artifact's version) is so written once per tick, not
   * once per write. Set inside `write`: it takes effect when that write succeeds, and is dropped with a failing one.
   * In a transaction that is not a tick (a write that joined `transaction`), it is saved when the write ends.
   */
  set<T>(key: string, value: T, save: (value: T) => void): void;
  /** Saves now, and forgets, the tick's value under `key` (before a write that reads what it would save). */
  settle(key: string): void;
}

/** A value of the open tick and how to store it (GroupWriter.set). */
interface TickValue {
  value: unknown;
  save: (value: unknown) => void;
}

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * What the group writers of one connection share. Their writes of a tick share one transaction (the one the first
 * write of the tick opened), so they share its fate: `lost` holds the ticks SQLite rolled back as a whole (a full
 * disk, an I/O error, a failed COMMIT), each writer with rows in one of them is told once, by a storage error.
 */
interface Ticks {
  /** The number of the tick whose transaction is open, if a group writer opened it. */
  open: number | undefined;
  last: number;
  lost: Set<number>;
  /** Group writes under way (a write's `fn` may call `close()`: a listener that shuts the core down). */
  writing: number;
  /** Called after every commit of a tick or a batch (re-arms the idle checkpoint). */
  committed: () => void;
  /** The values of the open tick (GroupWriter.set), saved before it commits. */
  values: Map<string, TickValue>;
  /** The values the write under way read or set, kept when it succeeds (one map per nested write). */
  staged: Array<Map<string, TickValue | { value: unknown; save?: undefined }>>;
}

/** Saves the tick's values (last set wins) and forgets them. Throws what a save throws: the tick cannot commit. */
function saveValues(ticks: Ticks): void {
  if (ticks.values.size === 0) return;
  const values = ticks.values;
  ticks.values = new Map();
  for (const { value, save } of values.values()) save(value);
}

const tickRolledBack = (cause: unknown) =>
  new MissiveError(
    'storage',
    'tick_rolled_back',
    `SQLite rolled back the whole transaction of this tick (${(cause as Error)?.message ?? String(cause)}): the writes made in it since the last commit are not stored`,
    { cause },
  );
const storeClosed = () => storageError('store_closed', 'the store was closed while this sequence of writes was still running');

/** Ends the open transaction: COMMIT, or, when that fails, records the tick as lost (never throws: it runs from timers). */
function commitOpen(db: Db, ticks: Ticks): void {
  const tick = ticks.open;
  ticks.open = undefined;
  if (!db.open || !db.inTransaction) {
    ticks.values.clear();
    return;
  }
  try {
    saveValues(ticks);
    db.exec('COMMIT');
    ticks.committed();
  } catch {
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
    } catch {
      // Nothing left to undo: SQLite already rolled back, or the connection is gone.
    }
    if (tick !== undefined) ticks.lost.add(tick);
  }
}

export function openStore(path: string, options: OpenOptions = {}): Store {
  const db = openDatabase(path, options);
  // Each group-writer write runs in a savepoint, and SQLite copies every page a savepoint first touches into a
  // sub-journal. On disk (the default past 64 KiB) that was two pwrite calls per page, about 37 per stream event and
  // half the CPU of persisting one. In memory it is a copy. The sub-journal only lives as long as its transaction.
  if (!options.readonly) db.pragma('temp_store = MEMORY');
  let queue: Pending[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const idle = idleCheckpoint(db, checkpointPolicy(options).idleCheckpointMs);
  const ticks: Ticks = { open: undefined, last: 0, lost: new Set(), writing: 0, committed: idle.arm, values: new Map(), staged: [] };

  const flush = () => {
    scheduled = undefined;
    const items = queue;
    queue = [];
    if (items.length === 0) return;
    if (!db.open) {
      for (const item of items) item.reject(storeClosed());
      return;
    }
    // A group writer's tick still open (a stream in this process): commit it first, so this group gets a transaction
    // of its own, committed before its promises settle, instead of joining one that commits later.
    commitOpen(db, ticks);
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
    idle.arm();
    items.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };

  return {
    db,
    path,
    transaction: <T>(fn: () => T): T => {
      // Inside an open tick (it nests as a savepoint), `fn` reads what the tick's writers set, not what they would save.
      if (db.inTransaction) saveValues(ticks);
      return db.transaction(fn).immediate();
    },
    transactionAsync: async <T>(fn: () => Promise<T>): Promise<T> => {
      const nested = db.inTransaction;
      if (nested) {
        saveValues(ticks);
        db.exec('SAVEPOINT missive_async');
      } else db.exec('BEGIN IMMEDIATE');
      let spannedIo = false;
      const guard = setImmediate(() => (spannedIo = true));
      try {
        const value = await fn();
        if (spannedIo) throw new MissiveError('internal', 'transaction_spanned_io', 'a SQLite transaction waited on I/O while it held the write lock');
        if (nested) db.exec('RELEASE missive_async');
        else {
          db.exec('COMMIT');
          idle.arm();
        }
        return value;
      } catch (error) {
        if (db.open && db.inTransaction) db.exec(nested ? 'ROLLBACK TO missive_async; RELEASE missive_async' : 'ROLLBACK');
        throw error;
      } finally {
        clearImmediate(guard);
      }
    },
    batch: <T>(fn: () => T): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        scheduled ??= setImmediate(flush);
      }),
    grouped: () => groupWriter(db, ticks),
    close: () => {
      if (scheduled) clearImmediate(scheduled);
      scheduled = undefined;
      idle.stop();
      if (!db.open) return;
      // Closed from inside a group write (its `fn` called us): that write cannot finish, so it is rolled back alone,
      // like any failing write, and what the tick wrote before it is committed below.
      for (; ticks.writing > 0; ticks.writing--) {
        if (!db.inTransaction) break;
        db.exec('ROLLBACK TO missive_write; RELEASE missive_write');
      }
      ticks.staged.length = 0;
      try {
        // Queued batches, then a group writer's tick that has not come yet: committed rather than lost.
        flush();
        commitOpen(db, ticks);
      } finally {
        db.close();
      }
    },
  };
}

const IDLE_CHECKPOINT_RETRIES = 10;

/**
 * A `wal_checkpoint(TRUNCATE)` once writes have been quiet for `ms` (re-armed by every commit): a long stream leaves
 * its WAL (up to a checkpoint's worth, far more while a reader holds an old snapshot) on disk, and every reader
 * searches it. Never waits: busy (a reader on an old snapshot, another process writing) means it tries again after
 * another quiet spell, IDLE_CHECKPOINT_RETRIES times at most, then after the next commit.
 */
function idleCheckpoint(db: Db, ms: number): { arm: () => void; stop: () => void } {
  if (!(ms > 0)) return { arm: () => {}, stop: () => {} };
  let timer: NodeJS.Timeout | undefined;
  let retries = 0;
  const run = () => {
    if (!db.open) return;
    let busy = db.inTransaction;
    if (!busy) {
      const timeout = db.pragma('busy_timeout', { simple: true }) as number;
      try {
        db.pragma('busy_timeout = 0');
        busy = (db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0]?.busy !== 0;
      } catch {
        busy = true;
      } finally {
        if (db.open) db.pragma(`busy_timeout = ${timeout}`);
      }
    }
    // A reader holding an old snapshot (an export paging, another process): try again a few quiet spells later.
    if (busy && retries++ < IDLE_CHECKPOINT_RETRIES) timer?.refresh();
  };
  return {
    arm: () => {
      retries = 0;
      if (timer) timer.refresh();
      else timer = setTimeout(run, ms).unref();
    },
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * `fn` in a savepoint of the open transaction: rolled back alone when it throws. Prepared once per connection (the
 * statements are cached by db.prepare), unlike `db.transaction(fn)`, which builds a wrapper per call.
 */
function inSavepoint<T>(db: Db, ticks: Ticks, fn: () => T): T {
  db.prepare('SAVEPOINT missive_write').run();
  ticks.writing++;
  const staged: Ticks['staged'][number] = new Map();
  ticks.staged.push(staged);
  let value: T;
  try {
    value = fn();
    keepStaged(ticks, staged);
    // Joined a transaction that is not a tick: nothing saves the values before its commit, so they are saved now.
    if (ticks.open === undefined && ticks.staged.length === 0) saveValues(ticks);
  } catch (error) {
    unstage(ticks, staged);
    // A failure SQLite answered with a rollback of the whole transaction leaves no savepoint to return to.
    if (db.open && db.inTransaction && ticks.writing > 0) {
      db.prepare('ROLLBACK TO missive_write').run();
      db.prepare('RELEASE missive_write').run();
    }
    throw error;
  } finally {
    // close() inside `fn` already unwound every savepoint and counted them out.
    if (ticks.writing > 0) ticks.writing--;
  }
  if (!db.open) throw storeClosed();
  db.prepare('RELEASE missive_write').run();
  return value;
}

/** Ends a write's staging (close() may have dropped it already). */
function unstage(ticks: Ticks, staged: Ticks['staged'][number]): void {
  const at = ticks.staged.indexOf(staged);
  if (at >= 0) ticks.staged.splice(at, 1);
}

/** A write succeeded: what it set becomes the tick's (or its enclosing write's); what it only read is dropped. */
function keepStaged(ticks: Ticks, staged: Ticks['staged'][number]): void {
  unstage(ticks, staged);
  const into = ticks.staged.at(-1);
  for (const [key, entry] of staged) {
    if (!entry.save) continue;
    if (into) into.set(key, entry);
    else ticks.values.set(key, entry as TickValue);
  }
}

function groupWriter(db: Db, ticks: Ticks): GroupWriter {
  let timer: NodeJS.Immediate | undefined;
  /** The tick holding this writer's writes not yet known to be committed. */
  let pending: number | undefined;
  /** Throws once if SQLite rolled back the tick that held this writer's writes. */
  const checkLost = () => {
    if (pending === undefined || !ticks.lost.has(pending)) return;
    const lost = pending;
    pending = undefined;
    throw tickRolledBack(new Error(`tick ${lost} was rolled back by another write of the same tick`));
  };
  const endTick = () => {
    timer = undefined;
    commitOpen(db, ticks);
  };
  return {
    write<T>(fn: () => T): T {
      if (!db.open) throw storeClosed();
      checkLost();
      // Called inside someone else's transaction (synchronously), the write simply joins it, and commits with it.
      if (!db.inTransaction) {
        db.exec('BEGIN IMMEDIATE');
        ticks.open = ++ticks.last;
        if (timer) clearImmediate(timer);
        timer = setImmediate(endTick);
      }
      if (ticks.open !== undefined) pending = ticks.open;
      try {
        return inSavepoint(db, ticks, fn);
      } catch (error) {
        if (!db.open) throw error instanceof MissiveError ? error : storeClosed();
        // SQLite rolled back the whole transaction: every write of this tick is gone, this writer's and the others'.
        if (!db.inTransaction && ticks.open !== undefined) {
          ticks.lost.add(ticks.open);
          ticks.open = undefined;
          pending = undefined;
          throw tickRolledBack(error);
        }
        throw error;
      }
    },
    get<T>(key: string, init: () => T): T {
      for (let i = ticks.staged.length - 1; i >= 0; i--) {
        const entry = ticks.staged[i]!.get(key);
        if (entry) return entry.value as T;
      }
      const kept = ticks.values.get(key);
      if (kept) return kept.value as T;
      const value = init();
      ticks.staged.at(-1)?.set(key, { value });
      return value;
    },
    set<T>(key: string, value: T, save: (value: T) => void): void {
      const staged = ticks.staged.at(-1);
      if (!staged) throw new Error('GroupWriter.set must be called inside write()');
      staged.set(key, { value, save: save as (value: unknown) => void });
    },
    settle(key: string): void {
      // The newest entry (the innermost write's, then the tick's) is the one to save; every entry goes.
      let newest: { value: unknown; save?: (value: unknown) => void } | undefined;
      for (const map of [...ticks.staged].reverse().concat(ticks.values as Ticks['staged'][number])) {
        newest ??= map.get(key);
        map.delete(key);
      }
      newest?.save?.(newest.value);
    },
    flush() {
      if (timer) clearImmediate(timer);
      timer = undefined;
      // This writer's writes are in the open tick (its own or one it joined): commit it now.
      if (pending !== undefined && pending === ticks.open) commitOpen(db, ticks);
      checkLost();
      pending = undefined;
    },
  };
}
