/**
 * Applies a sequence of A2A updates (a stream's events, a task subscription's) as they arrive, each with what the
 * caller writes along with it (a stream links its request to the task), through the store's update sink
 * (Storage.updates: how they commit is the engine's decision).
 */
import type { StreamRecord } from '../a2a/stream-response.js';
import type { Steps } from '../store/steps.js';
import type { Storage } from '../store/storage.js';
import { applyUpdateSteps, type AppliedUpdate, type UpdateSource } from './apply-update.js';

export interface UpdateWriter {
  /** Applies `record` (and `along`, in the same transaction); a failure leaves nothing of either. */
  apply(record: StreamRecord, source: UpdateSource, along?: (applied: AppliedUpdate) => Steps<void>): Promise<AppliedUpdate>;
  /** Commits what is still open (the tick): call when the sequence ends, and before journaling a failure. */
  flush(): Promise<void>;
  /** Whether the store is still open to journal in (the app may close it under a long stream). */
  open(): boolean;
}

export function updateWriter(storage: Storage): UpdateWriter {
  const sink = storage.updates();
  return {
    apply: (record, source, along) =>
      sink.apply(function* (tick) {
        const applied = yield* applyUpdateSteps(source, record, tick);
        if (along) yield* along(applied);
        return applied;
      }),
    flush: () => sink.flush(),
    open: () => sink.open(),
  };
}
