/**
 * Applies a sequence of A2A updates (a stream's events, a task subscription's) as they arrive, each with what the
 * caller writes along with it (a stream links its request to the task). SQLite: each in a savepoint of the store's
 * group writer, committed with what the same tick of network data brings (a commit per event costs more than the event
 * at stream rates; Store.grouped). PostgreSQL: each in a transaction of its own, committed before the next is read.
 */
import type { Core } from '../handle.js';
import type { StreamRecord } from '../a2a/stream-response.js';
import { runSteps, runStepsSync, type Steps } from '../store/steps.js';
import type { Storage } from '../store/storage.js';
import { applyUpdate, applyUpdateSteps, type AppliedUpdate, type UpdateSource } from './apply-update.js';

export interface UpdateWriter {
  /** Applies `record` (and `along`, in the same transaction); a failure leaves nothing of either. */
  apply(record: StreamRecord, source: Omit<UpdateSource, 'tick'>, along?: (applied: AppliedUpdate) => Steps<void>): Promise<AppliedUpdate>;
  /** Commits what is still open (SQLite's tick): call when the sequence ends, and before journaling a failure. */
  flush(): void;
  /** Whether the store is still open to journal in (the app may close it under a long stream). */
  open(): boolean;
}

export function updateWriter(core: Core, storage: Storage): UpdateWriter {
  if (storage.kind === 'postgres') {
    return {
      apply: (record, source, along) =>
        storage.transaction((tx) =>
          runSteps(
            tx,
            (function* () {
              const applied = yield* applyUpdateSteps(source, record);
              if (along) yield* along(applied);
              return applied;
            })(),
          ),
        ),
      flush: () => {},
      open: () => true,
    };
  }
  const store = core.store();
  const writer = store.grouped();
  return {
    apply: async (record, source, along) =>
      writer.write(() => {
        const applied = applyUpdate(store.db, { ...source, tick: writer }, record);
        if (along) runStepsSync(store.db, along(applied));
        return applied;
      }),
    flush: () => writer.flush(),
    open: () => store.db.open,
  };
}
