/**
 * The loop a view follows a task with (renderer/src/components/follow-loop.ts): it ends when the task is final, at
 * once when its signal aborts (the view unmounted), and after a bounded number of failures in a row; its pauses are
 * backoff that grows while nothing changes and starts again when the task did. Steps and sleeps are recorded, not timed.
 */
import { describe, expect, it } from 'vitest';
import { FOLLOW_POLICY, runFollowLoop, type FollowLoopOptions } from '../../renderer/src/components/follow-loop.js';

interface Step {
  state: string;
  at: string;
  via: 'subscription' | 'poll';
}

/** A loop over scripted steps (a value, or an Error to throw), recording each pause; `random` 1: the top of each backoff window. */
function scripted(script: Array<Step | Error>, extra: Partial<FollowLoopOptions<Step>> = {}) {
  const pauses: number[] = [];
  const values: string[] = [];
  const failures: Array<{ failures: number; willRetry: boolean }> = [];
  const stop = new AbortController();
  let i = 0;
  const options: FollowLoopOptions<Step> = {
    signal: stop.signal,
    step: async () => {
      const next = script[Math.min(i++, script.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
    isFinal: (v) => ['completed', 'failed', 'cancelled', 'rejected'].includes(v.state),
    subscribed: (v) => v.via === 'subscription',
    keyOf: (v) => `${v.state} ${v.at}`,
    onValue: (v) => values.push(v.state),
    onFailure: (_e, n, willRetry) => failures.push({ failures: n, willRetry }),
    sleep: async (ms) => void pauses.push(ms),
    random: () => 1,
    ...extra,
  };
  return { run: () => runFollowLoop(options), pauses, values, failures, stop, steps: () => i };
}

const working = (at: string, via: Step['via'] = 'poll'): Step => ({ state: 'working', at, via });

describe('following a task', () => {
  it('polls with growing pauses while nothing changes, starts again at the base when the task changed, and ends when it is final', async () => {
    const loop = scripted([working('t1'), working('t1'), working('t1'), working('t1'), working('t2'), { state: 'completed', at: 't3', via: 'poll' }]);
    expect(await loop.run()).toBe('final');
    expect(loop.values).toEqual(['working', 'working', 'working', 'working', 'working', 'completed']);
    expect(loop.pauses).toEqual([1000, 2000, 4000, 8000, 1000]);
  });

  it('caps the pause between polls at 15 s', async () => {
    const loop = scripted([...Array.from({ length: 8 }, () => working('t1')), { state: 'failed', at: 't2', via: 'poll' }]);
    expect(await loop.run()).toBe('final');
    expect(Math.max(...loop.pauses)).toBe(FOLLOW_POLICY.pollCapMs);
  });

  it('resubscribes after a short gap when a subscription step ended with the task still working', async () => {
    const loop = scripted([working('t1', 'subscription'), working('t2', 'subscription'), { state: 'completed', at: 't3', via: 'subscription' }]);
    expect(await loop.run()).toBe('final');
    expect(loop.pauses).toEqual([250, 250]);
  });

  it('backs off after failures, resets once a step works, and gives up after 6 failures in a row', async () => {
    const down = new Error('agent unreachable');
    const loop = scripted([down, down, working('t1'), down, down, down, down, down, down, working('t9')]);
    expect(await loop.run()).toBe('gave_up');
    expect(loop.failures.map((f) => f.failures)).toEqual([1, 2, 1, 2, 3, 4, 5, 6]);
    expect(loop.failures.at(-1)!.willRetry).toBe(false);
    expect(loop.pauses).toEqual([1000, 2000, 1000, 1000, 2000, 4000, 8000, 16_000]);
    // The step after the sixth failure never ran.
    expect(loop.steps()).toBe(9);
  });

  it('stops at once when its signal aborts (the view unmounted): no step after that, no value reported', async () => {
    const holder: { stop?: AbortController } = {};
    const loop = scripted([working('t1'), working('t2')], {
      sleep: async () => holder.stop!.abort(),
    });
    holder.stop = loop.stop;
    expect(await loop.run()).toBe('stopped');
    expect(loop.steps()).toBe(1);
    expect(loop.values).toEqual(['working']);
  });

  it('drops the answer of a step that was in flight when the view unmounted', async () => {
    const loop = scripted([working('t1')]);
    const stop = loop.stop;
    const late = scripted([working('t1')], {
      signal: stop.signal,
      step: async () => {
        stop.abort();
        return working('t1');
      },
    });
    expect(await late.run()).toBe('stopped');
    expect(late.values).toEqual([]);
  });

  it('is bounded in steps', async () => {
    const loop = scripted([working('t1')], { policy: { maxSteps: 5 } });
    expect(await loop.run()).toBe('gave_up');
    expect(loop.steps()).toBe(5);
  });
});
