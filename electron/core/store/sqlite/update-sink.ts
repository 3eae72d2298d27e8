/**
 * SQLite's sink for a sequence of updates (Storage.updates): each update in a savepoint of the store's group writer,
 * committed with what the same tick of network data brings (a commit per event costs more than the event at stream
 * rates; Store.grouped). Within a tick, the status updates of a task and the chunks appended to an artifact write the
 * task's and the artifact's row once, when the tick commits (the tick's values, GroupWriter.set).
 */
import type { Db } from '../db.js';
import type { GroupWriter, Store } from '../store.js';
import type { TickValues, UpdateSink } from '../storage.js';
import { appendArtifactChunk, artifactHead, saveArtifactHead } from '../repos/conversation.js';
import { appendedHead, partsOf, type ArtifactHead } from '../rows/conversation.js';
import { runStepsSync } from './run-steps.js';

const taskKey = (taskId: string) => `task ${taskId}`;
const artifactKey = (taskId: string, artifactId: string) => `artifact ${taskId} ${artifactId}`;

/** The values of `writer`'s open tick, written through `db` when it commits. */
export function tickValues(writer: Pick<GroupWriter, 'get' | 'set' | 'settle'>, db: Db): TickValues {
  return {
    appendChunk(write) {
      const { taskId, artifactId } = write;
      const key = artifactKey(taskId, artifactId);
      const head = writer.get(key, () => artifactHead(db, taskId, artifactId));
      if (!head) {
        writer.settle(key);
        return null;
      }
      // The chunk row now; the artifact row (version, header) once, when the tick commits.
      appendArtifactChunk(db, taskId, artifactId, partsOf(write));
      const next = appendedHead(head, write);
      writer.set(key, next, (saved: ArtifactHead) => saveArtifactHead(db, taskId, artifactId, saved));
      return next.version;
    },
    setStatus(write, save) {
      writer.set(taskKey(write.taskId), write, (last: typeof write) => runStepsSync(db, save(last)));
    },
    settleTask: (taskId) => writer.settle(taskKey(taskId)),
    settleArtifact: (taskId, artifactId) => writer.settle(artifactKey(taskId, artifactId)),
  };
}

export function sqliteUpdateSink(store: Store): UpdateSink {
  const writer = store.grouped();
  const tick = tickValues(writer, store.db);
  return {
    apply: async (make) => writer.write(() => runStepsSync(store.db, make(tick))),
    flush: () => writer.flush(),
    open: () => store.db.open,
  };
}
