/**
 * The SQLite store under a core's storage, for tests and benchmarks that read or poison the file's rows directly (the
 * services never see the engine: core/store/sqlite/storage.ts `sqliteStoreOf`).
 */
import type { Core } from '../../electron/core/handle.js';
import { sqliteStoreOf } from '../../electron/core/store/sqlite/storage.js';
import type { Store } from '../../electron/core/store/store.js';

export const sqliteStore = async (core: Pick<Core, 'storage'>): Promise<Store> => sqliteStoreOf(await core.storage());
