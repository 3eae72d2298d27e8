/**
 * A webhook receiver's store over a SQLite file a test opened itself (`openStore`): the engine-neutral callback store
 * (core/webhook/callback-store.ts) on that file's Storage, one per opened store (a test may reopen the file under the
 * receiver), so a burst's callbacks share one group commit as in the app.
 */
import { callbackStore, type CallbackStore } from '../../electron/core/webhook/callback-store.js';
import { sqliteStorage } from '../../electron/core/store/sqlite/storage.js';
import type { Storage } from '../../electron/core/store/storage.js';
import type { Store } from '../../electron/core/store/store.js';

export function sqliteCallbacks(store: () => Store): CallbackStore {
  const storages = new WeakMap<Store, Storage>();
  return callbackStore(async () => {
    const current = store();
    let storage = storages.get(current);
    if (!storage) storages.set(current, (storage = sqliteStorage(current)));
    return storage;
  });
}
