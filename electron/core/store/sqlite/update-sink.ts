/**
 * SQLite's sink for a sequence of updates (Storage.updates): each update in a savepoint of the store's group writer,
 * committed with what the same tick of network data brings (a commit per event costs more than the event at stream
 * rates; Store.grouped). Within a tick, the status updates of a task and the chunks appended to an artifact write the
 * task's and the artifact's row once, when the tick commits (the tick's values, GroupWriter.set), and the chunks one
 * `artifact_chunks` row holding their parts in order and their number (`pieces`, schema v15). Its updates are
 * narrow journal rows, and the run of each agent and context is written once, when the tick commits (schema v14).
 */
import type { Db } from '../db.js';
import type { GroupWriter, Store } from '../store.js';
import type { TickValues, UpdateSink } from '../storage.js';
import type { NewEvent } from '../rows/events.js';
import type { ArtifactWrite } from '../rows/conversation.js';
import { appendArtifactChunk, artifactHead, saveArtifactHead } from '../repos/conversation.js';
import { receivedParts, withChunk, type AppendedArtifact } from '../rows/conversation.js';
import { runStepsSync } from './run-steps.js';
import { done } from '../steps.js';
import { appendEvent, appendUpdateRow } from '../repos/events.js';
import { extendRun, runKey, type UpdateRun } from '../rows/update-runs.js';
import { RUNS } from '../statements/update-runs.js';

const taskKey = (taskId: string) => `task ${taskId}`;
const artifactKey = (taskId: string, artifactId: string) => `artifact ${taskId} ${artifactId}`;

/** Saves a tick's appends to an artifact: its received chunks as one chunk row (their parts in order), then its row. */
function saveAppended(db: Db, taskId: string, artifactId: string, { head, received }: AppendedArtifact): void {
  if (received) appendArtifactChunk(db, taskId, artifactId, receivedParts(received), received.count);
  saveArtifactHead(db, taskId, artifactId, head);
}

/**
 * Journals `event` as a narrow row and extends its agent's and context's run in `runs` (a tick's values, or a burst's
 * map); a dedupe key seen before inserts nothing.
 */
function appendNarrow(
  db: Db,
  event: NewEvent,
  knownSecrets: readonly string[] | undefined,
  runs: { get(key: string): UpdateRun | null; set(key: string, run: UpdateRun): void },
): void {
  const appended = appendUpdateRow(db, event, knownSecrets);
  if (!appended) return;
  const key = runKey(event.agentAlias, event.contextId);
  runs.set(key, extendRun(runs.get(key), appended.sequence, event));
}

/** The values of `writer`'s open tick, written through `db` when it commits. */
export function tickValues(writer: Pick<GroupWriter, 'get' | 'set' | 'settle'>, db: Db): TickValues {
  const save = saveRun(db);
  return {
    // The row now; its run (first and last sequence, types, count) once, when the tick commits.
    appendUpdate: (event, knownSecrets) =>
      appendNarrow(db, event, knownSecrets, {
        get: (key) => writer.get<UpdateRun | null>(key, () => null),
        set: (key, run) => writer.set(key, run, save),
      }),
    appendChunk: (write) => done(appendChunk(write)),
    setStatus(write, save) {
      writer.set(taskKey(write.taskId), write, (last: typeof write) => runStepsSync(db, save(last)));
    },
    settleTask: (taskId) => writer.settle(taskKey(taskId)),
    settleArtifact: (taskId, artifactId) => writer.settle(artifactKey(taskId, artifactId)),
  };

  function appendChunk(write: ArtifactWrite): number | null {
    const { taskId, artifactId } = write;
    const key = artifactKey(taskId, artifactId);
    const open = writer.get<AppendedArtifact | null>(key, () => {
      const head = artifactHead(db, taskId, artifactId);
      return head ? { head, received: null } : null;
    });
    if (!open) {
      writer.settle(key);
      return null;
    }
    // The tick's chunks of the artifact become one chunk row, and its row (version, header) is written once, when
    // the tick commits. Each write adds a link rather than changing the list, so a failing write drops only its own.
    const next = withChunk(open, write);
    writer.set(key, next, (saved: AppendedArtifact) => saveAppended(db, taskId, artifactId, saved));
    return next.head.version;
  }
}

/**
 * The tick of one burst of webhook callbacks (Storage.write `burst`, one savepoint of a group commit): their updates
 * are narrow rows, and the run of each agent and context is written as the burst's savepoint ends, so it rolls back
 * with the rows. Task and artifact rows are written at once, as without a tick (a burst holds few updates of a task).
 */
export function burstTicks(db: Db): { within<T>(fn: () => T): T; tick(): TickValues | undefined } {
  let runs: Map<string, UpdateRun> | undefined;
  const save = saveRun(db);
  const tick: TickValues = {
    appendUpdate(event, knownSecrets) {
      // Outside a burst's savepoint there is no run to record it in: a whole row, which every index holds.
      const burst = runs;
      if (!burst) appendEvent(db, event, knownSecrets);
      else appendNarrow(db, event, knownSecrets, { get: (key) => burst.get(key) ?? null, set: (key, run) => void burst.set(key, run) });
    },
    appendChunk: () => done(null),
    setStatus: (write, saveStatus) => runStepsSync(db, saveStatus(write)),
    settleTask: () => undefined,
    settleArtifact: () => undefined,
  };
  return {
    within<T>(fn: () => T): T {
      runs = new Map();
      try {
        const value = fn();
        for (const run of runs.values()) save(run);
        return value;
      } finally {
        runs = undefined;
      }
    },
    tick: () => (runs ? tick : undefined),
  };
}

/** Writes a tick's run of updates (journal_runs). */
const saveRun =
  (db: Db) =>
  (run: UpdateRun): void =>
    void db.prepare(RUNS.insert.sqlite).run(run.last, run.first, run.agentAlias, run.contextId, run.types, run.count);

export function sqliteUpdateSink(store: Store): UpdateSink {
  const writer = store.grouped();
  const tick = tickValues(writer, store.db);
  return {
    apply: async (make) => writer.write(() => runStepsSync(store.db, make(tick))),
    flush: async () => writer.flush(),
    open: () => store.db.open,
  };
}
