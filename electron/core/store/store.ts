/** The store handle the services receive: one database, its repositories and a transaction helper. */
import { openDatabase, type Db, type OpenOptions } from './db.js';

export interface Store {
  readonly db: Db;
  readonly path: string;
  transaction<T>(fn: () => T): T;
  close(): void;
}

export function openStore(path: string, options: OpenOptions = {}): Store {
  const db = openDatabase(path, options);
  return {
    db,
    path,
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    close: () => {
      if (db.open) db.close();
    },
  };
}
