/** The webhook receiver's commit groups: callbacks of a burst spread over loop turns share one Store.batch group. */
import { describe, expect, it } from 'vitest';
import { commitGroups } from '../../electron/core/webhook/commit-group.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A Store.batch stand-in: the calls of one tick form a group (recorded by size), each `fn` runs alone, then all settle. */
function fakeBatch() {
  const groups: number[] = [];
  let queue: Array<() => void> = [];
  const batch = <T>(fn: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0)
        setImmediate(() => {
          const items = queue;
          queue = [];
          groups.push(items.length);
          for (const item of items) item();
        });
      queue.push(() => {
        try {
          resolve(fn());
        } catch (error) {
          reject(error);
        }
      });
    });
  return { batch, groups };
}

describe('commitGroups', () => {
  it('keeps a group open while each turn brings more writes, and hands it to batch at the first quiet turn', async () => {
    const { batch, groups } = fakeBatch();
    const write = commitGroups(batch);
    const results: Array<Promise<number>> = [];
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 5; i++) results.push(write(() => t * 10 + i));
      await turn();
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24]);
    expect(groups).toEqual([15]);
  });

  it('commits a lone write without waiting on a timer, and a failing write rejects alone', async () => {
    const { batch, groups } = fakeBatch();
    const write = commitGroups(batch);
    await expect(write(() => 'alone')).resolves.toBe('alone');
    const failing = write(() => {
      throw new Error('bad row');
    });
    const fine = write(() => 'fine');
    await expect(failing).rejects.toThrow('bad row');
    await expect(fine).resolves.toBe('fine');
    expect(groups).toEqual([1, 2]);
  });

  it('closes a group after maxTurns turns of steady arrivals', async () => {
    const { batch, groups } = fakeBatch();
    const write = commitGroups(batch, { maxTurns: 3 });
    const pending: Array<Promise<number>> = [];
    for (let t = 0; t < 12; t++) {
      pending.push(write(() => t));
      await turn();
    }
    expect(await Promise.all(pending)).toEqual(Array.from({ length: 12 }, (_, t) => t));
    expect(groups.length).toBeGreaterThanOrEqual(3);
    expect(groups.reduce((a, b) => a + b, 0)).toBe(12);
  });

  it('hands a group on as soon as it holds maxSize writes', async () => {
    const { batch, groups } = fakeBatch();
    const write = commitGroups(batch, { maxSize: 4 });
    await Promise.all(Array.from({ length: 5 }, (_, i) => write(() => i)));
    expect(groups).toEqual([4, 1]);
  });

  it('rejects the write when batch itself throws (no store), without an uncaught error', async () => {
    const write = commitGroups(() => {
      throw new Error('no store');
    });
    await expect(write(() => 1)).rejects.toThrow('no store');
  });
});
