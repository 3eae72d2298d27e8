/** The webhook receiver's commit groups: callbacks of a burst spread over loop turns share one Store.batch group. */
import { describe, expect, it } from 'vitest';
import { commitGroups } from '../../electron/core/store/sqlite/commit-group.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A Store.batch stand-in: the calls of one tick form one transaction, each `fn` in its own savepoint (the rows it
 * wrote are dropped when it throws), then all settle. `row` writes a row; `commits` is the rows kept by each
 * transaction, `calls` the number of batch calls in each.
 */
function fakeBatch() {
  const commits: unknown[][] = [];
  const calls: number[] = [];
  let rows: unknown[] = [];
  let queue: Array<() => void> = [];
  const batch = <T>(fn: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0)
        setImmediate(() => {
          const items = queue;
          queue = [];
          calls.push(items.length);
          rows = [];
          for (const item of items) item();
          commits.push(rows);
        });
      queue.push(() => {
        const savepoint = rows.length;
        try {
          resolve(fn());
        } catch (error) {
          rows.length = savepoint;
          reject(error);
        }
      });
    });
  const row = <T>(value: T): T => {
    rows.push(value);
    return value;
  };
  return { batch, row, commits, calls, groups: () => commits.map((kept) => kept.length) };
}

describe('commitGroups', () => {
  it('keeps a group open while each turn brings more writes, and hands it to batch at the first quiet turn', async () => {
    const { batch, row, groups, calls } = fakeBatch();
    const write = commitGroups(batch);
    const results: Array<Promise<number>> = [];
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 5; i++) results.push(write(() => row(t * 10 + i)));
      await turn();
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24]);
    expect(groups()).toEqual([15]);
    // The group went to batch as one write: one savepoint for the 15, not one each.
    expect(calls).toEqual([1]);
  });

  it('commits a lone write without waiting on a timer, and a failing write rejects alone', async () => {
    const { batch, row, commits, calls } = fakeBatch();
    const write = commitGroups(batch);
    await expect(write(() => row('alone'))).resolves.toBe('alone');
    const failing = write(() => {
      row('failing');
      throw new Error('bad row');
    });
    const fine = write(() => row('fine'));
    const after = write(() => row('after'));
    await expect(failing).rejects.toThrow('bad row');
    await expect(fine).resolves.toBe('fine');
    await expect(after).resolves.toBe('after');
    // The group's savepoint rolled back whole, then each write went again in its own: only the failing one is missing.
    expect(calls).toEqual([1, 1, 3]);
    expect(commits.flat()).toEqual(['alone', 'fine', 'after']);
  });

  it('closes a group after maxTurns turns of steady arrivals', async () => {
    const { batch, row, groups } = fakeBatch();
    const write = commitGroups(batch, { maxTurns: 3 });
    const pending: Array<Promise<number>> = [];
    for (let t = 0; t < 12; t++) {
      pending.push(write(() => row(t)));
      await turn();
    }
    expect(await Promise.all(pending)).toEqual(Array.from({ length: 12 }, (_, t) => t));
    expect(groups().length).toBeGreaterThanOrEqual(3);
    expect(groups().reduce((a, b) => a + b, 0)).toBe(12);
  });

  it('hands a group on as soon as it holds maxSize writes', async () => {
    const { batch, row, groups } = fakeBatch();
    const write = commitGroups(batch, { maxSize: 4 });
    await Promise.all(Array.from({ length: 5 }, (_, i) => write(() => row(i))));
    expect(groups()).toEqual([4, 1]);
  });

  it('rejects the write when batch itself throws (no store), without an uncaught error', async () => {
    const write = commitGroups(() => {
      throw new Error('no store');
    });
    await expect(write(() => 1)).rejects.toThrow('no store');
  });
});
