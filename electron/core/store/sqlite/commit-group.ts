/**
 * Groups the callbacks' writes into fewer commits. `Store.batch` alone commits once per loop turn, and callbacks that
 * arrive a turn apart (many connections, each posting its next callback once its 202 is back) fall into separate
 * commits that never merge: at 16 connections, groups of about 5. Here a group stays open while each turn brings more
 * callbacks, and goes to `batch` at the first turn that brings none, after `maxTurns` turns, or at `maxSize` writes.
 * Nothing waits on a timer: a lone callback commits two loop turns later than with `batch` alone (one turn to see no
 * more arrive, one for `batch`), without the process idling.
 *
 * A group goes to `batch` as one write: one savepoint for all its callbacks, not one each (a savepoint per write cost
 * about as much as a callback's JSON parsing and validation together). When any write of the group throws, the
 * savepoint rolls the whole group back and each write goes to `batch` again on its own, in its own savepoint, so
 * the failing one fails alone and the others commit, as when every write had its own savepoint. A write's `fn` must
 * therefore touch nothing but the database (it may run twice, the first run rolled back).
 */
export interface CommitGroupOptions {
  maxTurns?: number;
  maxSize?: number;
}

export const DEFAULT_GROUP_TURNS = 8;
export const DEFAULT_GROUP_SIZE = 512;

type Batch = <T>(fn: () => T) => Promise<T>;

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** `write(fn)` settles as `batch(fn)` does (once its group's transaction has committed), in a group as large as arrivals allow. */
export function commitGroups(batch: Batch, options: CommitGroupOptions = {}): <T>(fn: () => T) => Promise<T> {
  const maxTurns = options.maxTurns ?? DEFAULT_GROUP_TURNS;
  const maxSize = options.maxSize ?? DEFAULT_GROUP_SIZE;
  let open: Pending[] = [];
  let seen = 0;
  let turns = 0;
  let scheduled = false;

  /** One write in its own savepoint: how a group's writes go again after the group failed. */
  const alone = (write: Pending) => {
    try {
      batch(write.fn).then(write.resolve, write.reject);
    } catch (error) {
      // `batch` itself failed (the store could not be opened): this write fails, the rest of the group goes on.
      write.reject(error);
    }
  };

  const close = () => {
    const group = open;
    open = [];
    seen = 0;
    turns = 0;
    if (group.length <= 1) return group.forEach(alone);
    let grouped: Promise<unknown[]>;
    try {
      grouped = batch(() => group.map((write) => write.fn()));
    } catch {
      return group.forEach(alone);
    }
    grouped.then(
      (values) => group.forEach((write, i) => write.resolve(values[i])),
      // Nothing of the group was kept: each write again, alone, to find out which failed and keep the others.
      () => group.forEach(alone),
    );
  };

  const turn = () => {
    scheduled = false;
    if (open.length > seen && ++turns < maxTurns) {
      seen = open.length;
      scheduled = true;
      setImmediate(turn);
      return;
    }
    close();
  };

  return <T>(fn: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      open.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (open.length >= maxSize) return close();
      if (!scheduled) {
        scheduled = true;
        setImmediate(turn);
      }
    });
}
