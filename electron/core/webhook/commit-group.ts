/**
 * Groups the callbacks' writes into fewer commits. `Store.batch` alone commits once per loop turn, and callbacks that
 * arrive a turn apart (many connections, each posting its next callback once its 202 is back) fall into separate
 * commits that never merge: at 16 connections, groups of about 5. Here a group stays open while each turn brings more
 * callbacks, and goes to `batch` (one transaction, each write in its own savepoint) at the first turn that brings
 * none, after `maxTurns` turns, or at `maxSize` writes. Nothing waits on a timer: a lone callback commits two loop
 * turns later than with `batch` alone (one turn to see no more arrive, one for `batch`), without the process idling.
 */
export interface CommitGroupOptions {
  maxTurns?: number;
  maxSize?: number;
}

export const DEFAULT_GROUP_TURNS = 8;
export const DEFAULT_GROUP_SIZE = 512;

/** `write(fn)` settles as `batch(fn)` does (once its group's transaction has committed), in a group as large as arrivals allow. */
export function commitGroups(batch: <T>(fn: () => T) => Promise<T>, options: CommitGroupOptions = {}): <T>(fn: () => T) => Promise<T> {
  const maxTurns = options.maxTurns ?? DEFAULT_GROUP_TURNS;
  const maxSize = options.maxSize ?? DEFAULT_GROUP_SIZE;
  let open: Array<() => void> = [];
  let seen = 0;
  let turns = 0;
  let scheduled = false;

  const close = () => {
    const group = open;
    open = [];
    seen = 0;
    turns = 0;
    // Handed to batch in one go: one transaction for the whole group.
    for (const submit of group) submit();
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
      open.push(() => {
        try {
          batch(fn).then(resolve, reject);
        } catch (error) {
          // `batch` itself failed (the store could not be opened): this write fails, the rest of the group goes on.
          reject(error);
        }
      });
      if (open.length >= maxSize) return close();
      if (!scheduled) {
        scheduled = true;
        setImmediate(turn);
      }
    });
}
