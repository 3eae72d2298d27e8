/**
 * PostgreSQL's sink for a sequence of updates (Storage.updates): the updates one tick of network data brings share a
 * transaction, and what they write most is held in memory and written a kind at a time, one statement each: their
 * journal rows (one insert of many rows), each artifact's appended chunks (one chunk row and its head, as on SQLite,
 * sqlite/update-sink.ts) and each task's last status. Before, each update was a transaction of its own: six round
 * trips for an appended chunk.
 *
 * What is held is written before any other statement of the tick, so every read sees it, and when the tick ends (the
 * event loop's turn after the last update, once none runs or waits; at the latest at TICK_BOUNDS), just before the
 * COMMIT. A tick locks a task's row before its artifacts' (taskOfArtifactStep). An update that needs a statement
 * (a context first seen, a dedupe key, an artifact's head, a whole task) runs its statements in a savepoint of the
 * tick's transaction. A failing update rolls back to it and drops what it added to memory, so it fails alone, as on
 * SQLite. Updates run one after another; the next tick begins after the commit.
 *
 * A tick that cannot commit is lost whole (the connection went, or PostgreSQL refused a held row): the sink's next
 * update and its flush reject, once, and the caller's stream fails with it (`lostTick`).
 */
import { MissiveError, storageError } from '../../../../shared/errors.js';
import { isStoreOutage } from '../outage.js';
import { queryFailure } from './query-errors.js';
import { eventValues } from '../rows/events.js';
import { nowIso } from '../rows/clock.js';
import { receivedParts, withChunk, type AppendedArtifact, type TaskStatusWrite } from '../rows/conversation.js';
import { appendChunkParams, CONVERSATION, saveHeadParams } from '../statements/conversation.js';
import { call, runStep, runSteps } from '../steps.js';
import type { Repositories, Step, Steps, TickValues, UpdateSink } from '../storage.js';
import type { OpenTransaction } from './open-transaction.js';
import { appendRows } from './repos/journal.js';
import { run } from './repos/query.js';

/** The tick's transaction and the repositories on it. */
export interface TickTransaction {
  tx: OpenTransaction;
  repos: Repositories;
}

/** A held journal row (the values of `eventValues`), newest first. */
interface HeldRow {
  values: unknown[];
  earlier: HeldRow | null;
}

/** An artifact the tick appends to: read (its row locked) in this tick; `current` false once settled. */
interface HeldArtifact extends AppendedArtifact {
  taskId: string;
  artifactId: string;
  current: boolean;
}

interface HeldStatus {
  write: TaskStatusWrite;
  save: (write: TaskStatusWrite) => Steps<void>;
}

/** What the tick holds, never changed in place: a failing update goes back to the value it started from. */
interface Held {
  rows: HeldRow | null;
  artifacts: ReadonlyMap<string, HeldArtifact>;
  statuses: ReadonlyMap<string, HeldStatus>;
  /** The tasks whose rows the tick has locked (a failing update's savepoint unlocks those it locked). */
  lockedTasks: ReadonlySet<string>;
}

const NOTHING: Held = { rows: null, artifacts: new Map(), statuses: new Map(), lockedTasks: new Set() };

/**
 * The task a step locks an artifact of. The tick locks the task's row first: a tick locks what its updates touch until
 * it commits, and a task's row before its artifacts' (a status written early, then an artifact's head, against a head
 * read early and a status written last) could otherwise deadlock two ticks of one task (two hosts, a stream and a
 * subscription).
 */
function taskOfArtifactStep(step: Step): string | undefined {
  if (step.op === 'artifactHead') return step.args[0];
  if (step.op === 'writeArtifact') return step.args[0].taskId;
  return undefined;
}

/**
 * A tick also ends once it is this old or holds this many updates, even while updates keep waiting their turn: updates
 * that each wait on a statement (a subscription's dedupe keys) let the loop turn with the next one always waiting, and
 * the tick would never commit.
 */
export const TICK_BOUNDS = { updates: 1000, ms: 250 };
const SAVEPOINT = 'missive_update';

const artifactKey = (taskId: string, artifactId: string) => `${taskId}\u0000${artifactId}`;
const withEntry = <V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> => new Map(map).set(key, value);

/**
 * What a lost tick is reported as. The store going away (a restart, a failover, a connection the server ended) stays
 * `storage::store_unreachable`, so that a gateway treats it as the outage it is and resumes the job; anything else the
 * store refused is `storage::tick_rolled_back`. Either way the message says the tick's updates are not stored.
 */
function lostTick(cause: unknown): MissiveError {
  const failure = queryFailure(cause, 'committing a tick of updates');
  const lost = 'the updates received since the last commit are not stored';
  if (isStoreOutage(failure)) return storageError('store_unreachable', `${failure.message}: ${lost}`, failure.help);
  return new MissiveError('storage', 'tick_rolled_back', `PostgreSQL did not commit this tick of updates (${failure.message}): ${lost}`, { cause });
}

/** Whether `held` has anything to write. */
const holdsWrites = (held: Held) => held.rows !== null || held.statuses.size > 0 || [...held.artifacts.values()].some((a) => a.received !== null);

export function postgresUpdateSink(begin: () => Promise<TickTransaction>): UpdateSink {
  let held: Held = NOTHING;
  let open: TickTransaction | undefined;
  /** The running update has opened its savepoint. */
  let inSavepoint = false;
  /** Updates and tick ends, one after another. */
  let queue: Promise<unknown> = Promise.resolve();
  let tickEnd: NodeJS.Immediate | undefined;
  let lost: MissiveError | undefined;
  /** Updates running or waiting their turn. */
  let applying = 0;
  /** The updates applied in the open tick, and when its first began. */
  let tickUpdates = 0;
  let tickStart = 0;

  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const done = queue.then(work);
    queue = done.catch(() => undefined);
    return done;
  };

  const takeLost = () => {
    const error = lost;
    lost = undefined;
    return error;
  };

  /** Writes what the tick holds, on its transaction, and forgets it (the heads read stay, their rows locked). */
  async function writeHeld({ tx, repos }: TickTransaction): Promise<void> {
    if (!holdsWrites(held)) return;
    const { rows, artifacts, statuses } = held;
    held = {
      ...held,
      rows: null,
      artifacts: new Map([...artifacts].filter(([, a]) => a.current).map(([k, a]) => [k, { ...a, received: null }])),
      statuses: new Map(),
    };
    if (rows) {
      const values: unknown[][] = [];
      for (let row: HeldRow | null = rows; row; row = row.earlier) values.push(row.values);
      await appendRows(tx.query, values.reverse());
    }
    for (const { taskId, artifactId, head, received } of artifacts.values()) {
      if (!received) continue;
      const what = 'conversation.appendChunks';
      await run(tx.query, what, CONVERSATION.appendChunk, appendChunkParams(taskId, artifactId, JSON.stringify(receivedParts(received)), received.count));
      await run(tx.query, what, CONVERSATION.saveHead, saveHeadParams(taskId, artifactId, head, nowIso()));
    }
    for (const { write, save } of statuses.values()) await runSteps(repos, save(write));
  }

  /** The tick's transaction, ready for a statement of the running update: its savepoint open, what is held written. */
  async function forStatement(): Promise<TickTransaction> {
    open ??= await begin();
    if (!inSavepoint) {
      await open.tx.query(`SAVEPOINT ${SAVEPOINT}`);
      inSavepoint = true;
    }
    await writeHeld(open);
    return open;
  }

  const tick: TickValues = {
    appendUpdate(event, knownSecrets) {
      held = { ...held, rows: { values: eventValues(event, knownSecrets).values, earlier: held.rows } };
    },
    *appendChunk(write) {
      const key = artifactKey(write.taskId, write.artifactId);
      let artifact = held.artifacts.get(key);
      if (!artifact?.current) {
        // Read in the tick's transaction (its row locked till the commit), after what the tick holds is written.
        const head = yield* call('artifactHead', write.taskId, write.artifactId);
        if (!head) return null;
        artifact = { taskId: write.taskId, artifactId: write.artifactId, head, received: null, current: true };
      }
      const next: HeldArtifact = { ...artifact, ...withChunk(artifact, write) };
      held = { ...held, artifacts: withEntry(held.artifacts, key, next) };
      return next.head.version;
    },
    setStatus(write, save) {
      held = { ...held, statuses: withEntry(held.statuses, write.taskId, { write, save }) };
    },
    // Every statement writes what is held first, so a write that reads a task's row sees its held status.
    settleTask: () => undefined,
    settleArtifact(taskId, artifactId) {
      const key = artifactKey(taskId, artifactId);
      const artifact = held.artifacts.get(key);
      // Its chunks are still written before the next statement; its head is read again by the next append.
      if (artifact?.current) held = { ...held, artifacts: withEntry(held.artifacts, key, { ...artifact, current: false }) };
    },
  };

  async function applyNow<T>(make: (tick: TickValues) => Steps<T>): Promise<T> {
    const earlier = takeLost();
    if (earlier) throw earlier;
    if (tickUpdates++ === 0) tickStart = performance.now();
    const before = held;
    inSavepoint = false;
    try {
      const steps = make(tick);
      let next = steps.next();
      while (!next.done) {
        const { tx, repos } = await forStatement();
        const taskId = taskOfArtifactStep(next.value);
        if (taskId !== undefined && !held.lockedTasks.has(taskId)) {
          await run(tx.query, 'conversation.lockTask', `SELECT 1 FROM tasks WHERE task_id = $1 FOR UPDATE`, [taskId]);
          held = { ...held, lockedTasks: new Set(held.lockedTasks).add(taskId) };
        }
        next = steps.next(await runStep(repos, next.value));
      }
      if (inSavepoint) await open!.tx.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
      return next.value;
    } catch (error) {
      held = before;
      if (inSavepoint && open) {
        try {
          await open.tx.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
          await open.tx.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
        } catch (rollback) {
          // The transaction cannot go back to the update's start: the tick is lost, this update's error stands.
          await loseTick(rollback);
        }
      }
      throw error;
    } finally {
      inSavepoint = false;
    }
  }

  /**
   * Ends the tick on the event loop's next turn, unless an update is running or waiting then: an update that waits on
   * a statement lets the loop turn, and the updates behind it are still the same tick's.
   */
  function endSoon(): void {
    tickEnd ??= setImmediate(() => {
      tickEnd = undefined;
      const full = tickUpdates >= TICK_BOUNDS.updates || performance.now() - tickStart >= TICK_BOUNDS.ms;
      // Queued behind the updates already waiting: those are still this tick's.
      if (applying === 0 || full) void enqueue(endTick);
    });
  }

  async function loseTick(cause: unknown): Promise<void> {
    const ending = open;
    open = undefined;
    held = NOTHING;
    lost ??= lostTick(cause);
    await ending?.tx.rollback();
  }

  /** Writes what is held and commits; the heads read are forgotten (their rows unlocked). */
  async function endTick(): Promise<void> {
    let ending = open;
    open = undefined;
    tickUpdates = 0;
    try {
      if (!ending && !holdsWrites(held)) return;
      ending ??= await begin();
      await writeHeld(ending);
      await ending.tx.commit();
    } catch (error) {
      lost ??= lostTick(error);
      await ending?.tx.rollback();
    } finally {
      held = NOTHING;
    }
  }

  return {
    apply(make) {
      applying++;
      return enqueue(async () => {
        try {
          return await applyNow(make);
        } finally {
          applying--;
          endSoon();
        }
      });
    },
    flush: () =>
      enqueue(async () => {
        if (tickEnd) clearImmediate(tickEnd);
        tickEnd = undefined;
        await endTick();
        const earlier = takeLost();
        if (earlier) throw earlier;
      }),
    open: () => true,
  };
}
