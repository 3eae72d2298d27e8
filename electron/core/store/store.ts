/** The store handle the services receive: one database, its repositories, and transaction helpers. */
import { openDatabase, type Db, type OpenOptions } from './db.js';

export interface Store {
  readonly db: Db;
  readonly path: string;
  /** Runs `fn` in one IMMEDIATE transaction, now. */
  transaction<T>(fn: () => T): T;
  /**
   * Group commit: `fn` runs in its own savepoint inside one transaction shared with every other `batch` call of the
   * same tick, and the promise settles once that transaction has committed. A commit costs about four times the
   * writes of one answer, so fan-outs persist hundreds of answers per commit. A failing `fn` rolls back alone.
   */
  batch<T>(fn: () => T): Promise<T>;
  close(): void;
}

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function openStore(path: string, options: OpenOptions = {}): Store {
  const db = openDatabase(path, options);
  let queue: Pending[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const flush = () => {
    scheduled = undefined;
    const items = queue;
    queue = [];
    if (items.length === 0) return;
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
    close: () => {
      if (scheduled) clearImmediate(scheduled);
      if (db.open) {
        flush();
        db.close();
      }
    },
  };
}
