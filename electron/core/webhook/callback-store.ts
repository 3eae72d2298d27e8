/**
 * Where the webhook receiver writes, whichever engine holds the store. SQLite (one receiver per profile's file):
 * a callback's writes join its burst's group commit (commit-group.ts, then Store.batch), one commit for many callbacks.
 * PostgreSQL (a pool of receivers behind a load balancer, on any hosts): each callback commits in a transaction of its
 * own, and the rows two receivers write to one task serialize on the task's and the artifact's row locks
 * (postgres/repos/conversation.ts), so none is lost or doubled. Either way the 202 goes out once the callback's
 * transaction has committed.
 */
import type { Core } from '../handle.js';
import { appendEvent, type NewEvent } from '../store/repos/events.js';
import type { Store } from '../store/store.js';
import { checkWritable } from '../store/sqlite/storage.js';
import { runSteps, runStepsSync, type Steps } from '../store/steps.js';
import { commitGroups } from './commit-group.js';

export interface CallbackStore {
  /** Runs a callback's writes; settles once they have committed. `steps` may run twice (a failed group goes again). */
  persist<T>(steps: () => Steps<T>): Promise<T>;
  /** Journals one event on its own (a rejected callback, a summary of them); settles once it has committed. */
  append(event: NewEvent): Promise<void>;
  /** Resolves when the store accepts writes now (GET /readyz). */
  checkWritable(): Promise<void>;
}

export function callbackStore(core: Core): CallbackStore {
  if (core.storeSelection.kind === 'sqlite') return sqliteCallbackStore(() => core.store());
  return {
    persist: async (steps) => (await core.storage()).transaction((tx) => runSteps(tx, steps())),
    // Awaited: the insert's failure is the caller's to handle, never a stray rejection that ends the process.
    append: async (event) => {
      await (await core.storage()).journal.append(event);
    },
    checkWritable: async () => (await core.storage()).checkWritable(),
  };
}

/** A SQLite store's (opened when first written to). */
export function sqliteCallbackStore(store: () => Store): CallbackStore {
  const grouped = commitGroups((fn) => store().batch(fn));
  return {
    persist: (steps) => grouped(() => runStepsSync(store().db, steps())),
    append: async (event) => void appendEvent(store().db, event),
    checkWritable: async () => checkWritable(store()),
  };
}
