/**
 * Where the webhook receiver writes, whichever engine holds the store (opened when first written to). A callback's
 * writes may share a commit with the callbacks that keep arriving (WriteMode `burst`): SQLite (one receiver per
 * profile's file) groups a burst into one commit; PostgreSQL (a pool of receivers behind a load balancer, on any
 * hosts) commits each callback in a transaction of its own, and the rows two receivers write to one task serialize on
 * the task's and the artifact's row locks, so none is lost or doubled. Either way the 202 goes out once the callback's
 * transaction has committed.
 */
import type { NewEvent } from '../store/rows/events.js';
import type { Steps } from '../store/steps.js';
import type { Storage, TickValues } from '../store/storage.js';

export interface CallbackStore {
  /**
   * Runs a callback's writes; settles once they have committed. `steps` may run twice (a failed group goes again).
   * `tick`: SQLite's burst, where its updates are narrow rows (Storage.write).
   */
  persist<T>(steps: (tick?: TickValues) => Steps<T>): Promise<T>;
  /** Journals one event on its own (a rejected callback, a summary of them); settles once it has committed. */
  append(event: NewEvent): Promise<void>;
  /** Resolves when the store accepts writes now (GET /readyz). */
  checkWritable(): Promise<void>;
}

export function callbackStore(storage: () => Promise<Storage>): CallbackStore {
  return {
    persist: async (steps) => (await storage()).write(steps, 'burst'),
    // Awaited: the insert's failure is the caller's to handle, never a stray rejection that ends the process.
    append: async (event) => {
      await (await storage()).journal.append(event);
    },
    checkWritable: async () => (await storage()).checkWritable(),
  };
}
