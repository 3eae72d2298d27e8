/** When a mock replays each recorded event (electron/core/mock/replay-executor.ts replayOffsets), per latency mode. */
import { describe, expect, it } from 'vitest';
import { MAX_REPLAYED_GAP_MS, replayOffsets } from '../../electron/core/mock/replay-executor.js';
import type { RecordedEvent } from '../../electron/core/mock/recording.js';

const events = (...offsets: number[]): RecordedEvent[] => offsets.map((offset_ms) => ({ offset_ms, kind: 'status_update', body: {} }));

describe('replayOffsets', () => {
  it('replays recorded offsets as they were, none at once, and a fixed gap after the first', () => {
    expect(replayOffsets(events(0, 40, 45, 300), 'recorded')).toEqual([0, 40, 45, 300]);
    expect(replayOffsets(events(0, 40, 45, 300), 'none')).toEqual([0, 0, 0, 0]);
    expect(replayOffsets(events(0, 40, 45, 300), 50)).toEqual([0, 50, 100, 150]);
  });

  it('cuts each recorded gap to the bound: a recording (a shared-store row, a file) cannot hold a request for days', () => {
    const year = 365 * 24 * 3600 * 1000;
    expect(replayOffsets(events(year, year + 10, 2 * year), 'recorded')).toEqual([MAX_REPLAYED_GAP_MS, MAX_REPLAYED_GAP_MS + 10, 2 * MAX_REPLAYED_GAP_MS + 10]);
  });

  it('never goes back in time nor waits on an offset that is not a number', () => {
    expect(replayOffsets(events(100, 50, Number.NaN, 120), 'recorded')).toEqual([100, 100, 100, 120]);
  });
});
