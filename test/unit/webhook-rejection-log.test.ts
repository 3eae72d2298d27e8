/**
 * The webhook receiver's rejection log (core/webhook/rejection-log.ts): what a flood of refused callbacks may cost the
 * journal and the process. Per source and window: the first rejection of each status a row, the rest one summary; at
 * most `maxSources` sources told apart (the rest in one "other sources" summary); at most `maxPending` single rows
 * written at once; a write the store refuses is counted, never thrown, and a refused summary waits for the next window.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NewEvent } from '../../electron/core/store/rows/events.js';
import { createRejectionLog, type Rejection } from '../../electron/core/webhook/rejection-log.js';

const WINDOW = 60_000;
const rejection = (source: string | null, status = 401): Rejection => ({
  source,
  status,
  reason: `reason ${status}`,
  payload: { status, remote_address: source },
});
const payloads = (events: NewEvent[], type: string) => events.filter((e) => e.type === type).map((e) => e.payload as Record<string, any>);

beforeEach(() => void vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] }));
afterEach(() => void vi.useRealTimers());

describe('the webhook rejection log', () => {
  it('journals the first rejection of each status per source and window, and one summary per source when the window closes', async () => {
    const written: NewEvent[] = [];
    const log = createRejectionLog({ append: async (e) => void written.push(e) });
    for (let i = 0; i < 500; i++) await log.record(rejection('10.0.0.1', i % 5 ? 401 : 400));
    for (let i = 0; i < 20; i++) await log.record(rejection('10.0.0.2'));
    expect(payloads(written, 'a2a.push.rejected')).toEqual([
      { status: 400, remote_address: '10.0.0.1' },
      { status: 401, remote_address: '10.0.0.1' },
      { status: 401, remote_address: '10.0.0.2' },
    ]);
    expect(payloads(written, 'a2a.push.rejected_summary')).toEqual([]);

    await vi.advanceTimersByTimeAsync(WINDOW);
    expect(payloads(written, 'a2a.push.rejected_summary')).toMatchObject([
      {
        source: '10.0.0.1',
        other_sources: false,
        total: 498,
        rejections: [
          { status: 400, count: 99, reason: 'reason 400' },
          { status: 401, count: 399 },
        ],
      },
      { source: '10.0.0.2', other_sources: false, total: 19, rejections: [{ status: 401, count: 19 }] },
    ]);
    // A new window: the first rejection of a status is a row again.
    await log.record(rejection('10.0.0.1'));
    expect(payloads(written, 'a2a.push.rejected')).toHaveLength(4);
    await log.close();
    expect(payloads(written, 'a2a.push.rejected_summary')).toHaveLength(2);
  });

  it('tells at most maxSources sources apart: the others share one "other sources" summary', async () => {
    const written: NewEvent[] = [];
    const log = createRejectionLog({ append: async (e) => void written.push(e), maxSources: 4 });
    for (let n = 0; n < 1000; n++) for (let i = 0; i < 3; i++) await log.record(rejection(`10.1.${n >> 8}.${n & 255}`));
    // The first four sources get a row each, the 996 others one row together.
    expect(payloads(written, 'a2a.push.rejected')).toHaveLength(5);
    await log.close();
    const summaries = payloads(written, 'a2a.push.rejected_summary');
    expect(summaries).toHaveLength(5);
    expect(summaries.filter((s) => !s.other_sources).map((s) => s.total)).toEqual([2, 2, 2, 2]);
    expect(summaries.filter((s) => s.other_sources)).toMatchObject([{ source: null, total: 996 * 3 - 1 }]);
    expect(summaries.reduce((n, s) => n + s.total, 0) + 5).toBe(3000);
  });

  it('writes at most maxPending single rows at once; the rejections beyond are only counted', async () => {
    const held: Array<() => void> = [];
    const written: NewEvent[] = [];
    const log = createRejectionLog({ append: (e) => new Promise<void>((resolve) => held.push(() => resolve(void written.push(e)))), maxPending: 3 });
    const recorded = Array.from({ length: 50 }, (_, i) => log.record(rejection(`10.2.0.${i}`)));
    expect(held).toHaveLength(3);
    held.splice(0).forEach((release) => release());
    await Promise.all(recorded);
    let closed = false;
    void log.close().then(() => (closed = true));
    // The summaries go one at a time.
    for (let i = 0; i < 200 && !closed; i++) {
      await vi.advanceTimersByTimeAsync(0);
      expect(held.length).toBeLessThanOrEqual(1);
      held.splice(0).forEach((release) => release());
    }
    expect(closed).toBe(true);
    expect(payloads(written, 'a2a.push.rejected')).toHaveLength(3);
    expect(payloads(written, 'a2a.push.rejected_summary').reduce((n, s) => n + s.total, 0)).toBe(47);
  });

  it('counts a rejection whose row the store refused, keeps a refused summary for the next window, and never rejects', async () => {
    let failing = true;
    const written: NewEvent[] = [];
    const lost: string[] = [];
    const log = createRejectionLog({
      append: async (e) => {
        if (failing) throw new Error('the store is down');
        written.push(e);
      },
      onLost: (m) => void lost.push(m),
    });
    await expect(log.record(rejection('10.3.0.1'))).resolves.toBeUndefined();
    await log.record(rejection('10.3.0.1'));
    await vi.advanceTimersByTimeAsync(WINDOW);
    expect(written).toEqual([]);

    failing = false;
    await log.record(rejection('10.3.0.1', 413));
    await vi.advanceTimersByTimeAsync(WINDOW);
    expect(payloads(written, 'a2a.push.rejected')).toEqual([{ status: 413, remote_address: '10.3.0.1' }]);
    const [summary] = payloads(written, 'a2a.push.rejected_summary');
    // Both 401s (the first refused as a row, the second counted), carried over from the window the store was down.
    expect(summary).toMatchObject({ source: '10.3.0.1', total: 2, rejections: [{ status: 401, count: 2 }] });
    expect(Date.parse(summary!.window_end) - Date.parse(summary!.window_start)).toBe(2 * WINDOW);

    // Still down when the receiver stops: said once, not thrown.
    failing = true;
    await log.record(rejection('10.3.0.1', 413));
    await expect(log.close()).resolves.toBeUndefined();
    expect(lost).toEqual(['1 rejected callback could not be journaled: the store refused their summary']);
  });
});
