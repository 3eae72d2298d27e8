/**
 * A long-running process's view of a store outage (electron/core/store/outage.ts) and the retries of a write that must
 * not be lost to one (electron/core/jobs/store-retry.ts): one "away" and one "back" per outage, retries backing off
 * within bounds (jobs/backoff.ts), other failures not taken for an outage.
 */
import { describe, expect, it } from 'vitest';
import { MissiveError, storageError } from '../../shared/errors.js';
import { isStoreOutage, watchStoreOutage, type OutageAway, type OutageBack } from '../../electron/core/store/outage.js';
import { backoffMs } from '../../electron/core/jobs/backoff.js';
import { retryWhileStoreAway } from '../../electron/core/jobs/store-retry.js';

const unreachable = () => storageError('store_unreachable', 'the PostgreSQL store could not be used for jobs.claimDue (ECONNREFUSED)');

describe('watchStoreOutage', () => {
  it('tells the first failure once and the first success once, with how long it lasted', () => {
    let clock = 1_000_000;
    const aways: OutageAway[] = [];
    const backs: OutageBack[] = [];
    const watch = watchStoreOutage({ retryDelayMs: () => 100, away: (o) => aways.push(o), back: (o) => backs.push(o), now: () => clock });
    watch.succeeded();
    expect(backs).toEqual([]);
    for (let i = 0; i < 50; i++) expect(watch.failed(unreachable())).toBe(true);
    expect(watch.away).toBe(true);
    expect(aways).toEqual([{ since: new Date(1_000_000).toISOString(), code: 'missive::storage::store_unreachable', message: unreachable().message }]);
    clock += 12_300;
    watch.succeeded();
    watch.succeeded();
    expect(watch.away).toBe(false);
    expect(backs).toEqual([{ since: new Date(1_000_000).toISOString(), away_ms: 12_300, failures: 49 }]);
    // A second outage is told again.
    watch.failed(unreachable());
    expect(aways).toHaveLength(2);
  });

  it('takes a report ({code}) as well as an error, and other failures for no outage', () => {
    const aways: OutageAway[] = [];
    const watch = watchStoreOutage({ retryDelayMs: () => 1, away: (o) => aways.push(o), back: () => undefined });
    expect(watch.failed(storageError('constraint', 'refused'))).toBe(false);
    expect(watch.failed(new MissiveError('transport', 'connection_refused', 'agent down'))).toBe(false);
    expect(watch.failed(new Error('bug'))).toBe(false);
    expect(aways).toEqual([]);
    expect(watch.failed(unreachable().toReport())).toBe(true);
    expect(isStoreOutage({ code: 'missive::storage::store_connect_failed' })).toBe(true);
    expect(isStoreOutage(null)).toBe(false);
  });

  it('retries further and further apart, with jitter, never past the cap (the gateway: 8 intervals, at most 30 s)', () => {
    const interval = 2000;
    const cap = Math.min(interval * 8, 30_000);
    const delays: number[][] = [0, 1].map((r) => {
      const watch = watchStoreOutage({
        retryDelayMs: (failures) => backoffMs(failures, { baseMs: interval, capMs: cap, random: () => r }),
        away: () => undefined,
        back: () => undefined,
      });
      watch.failed(unreachable());
      const seen = [watch.nextRetryMs()];
      for (let i = 0; i < 10; i++) {
        watch.failed(unreachable());
        seen.push(watch.nextRetryMs());
      }
      return seen;
    });
    const [low, high] = delays as [number[], number[]];
    // The first try one interval after the failure, then doubling up to the cap; jitter picks a point in the upper half.
    expect(high.slice(0, 5)).toEqual([2000, 4000, 8000, 16000, 16000]);
    expect(low.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 8000]);
    for (let i = 0; i < high.length; i++) {
      expect(high[i]).toBeLessThanOrEqual(cap);
      expect(low[i]).toBeGreaterThanOrEqual(high[i]! / 2);
    }
  });
});

describe('retryWhileStoreAway', () => {
  it('tries a write again while the store is away, then returns what it wrote once', async () => {
    let tries = 0;
    const failures: string[] = [];
    const value = await retryWhileStoreAway(
      async () => {
        tries++;
        if (tries < 4) throw unreachable();
        return 'written';
      },
      { signal: new AbortController().signal, baseMs: 1, onFailure: (e) => failures.push(e.code) },
    );
    expect(value).toBe('written');
    expect(tries).toBe(4);
    expect(failures).toEqual(Array(3).fill('missive::storage::store_unreachable'));
  });

  it('gives up at once on another failure, and when the gateway stops', async () => {
    let tries = 0;
    await expect(
      retryWhileStoreAway(
        async () => {
          tries++;
          throw storageError('constraint', 'refused');
        },
        { signal: new AbortController().signal, baseMs: 1 },
      ),
    ).rejects.toThrow('refused');
    expect(tries).toBe(1);
    const stop = new AbortController();
    const pending = retryWhileStoreAway(
      async () => {
        stop.abort();
        throw unreachable();
      },
      { signal: stop.signal, baseMs: 60_000 },
    );
    await expect(pending).rejects.toThrow('could not be used');
  });
});
