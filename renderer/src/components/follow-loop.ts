/**
 * The loop a view follows a task with until it is final: one step (`tasks.follow`: a subscription or one GetTask),
 * then a pause, then the next. Pauses are bounded exponential backoff (shared/backoff.ts): after a poll that found
 * nothing new they grow from 1 s to 15 s and start again at 1 s when the task changed; after a subscription only a
 * short gap (it already waited on the agent); after a failed step from 1 s to 30 s, and after `maxFailures` failures
 * in a row the loop gives up (the view says so and offers Refresh). It stops at once when its signal aborts (the
 * view unmounted, or Refresh started another). Pure: no React, no IPC, no DOM.
 */
import { backoffMs } from '../../../shared/backoff.js';

export interface FollowPolicy {
  pollBaseMs: number;
  pollCapMs: number;
  /** After a subscription step: it held the line while the agent worked, so the next one may open soon. */
  subscribeBaseMs: number;
  subscribeCapMs: number;
  failureBaseMs: number;
  failureCapMs: number;
  /** Failed steps in a row after which the loop stops trying by itself. */
  maxFailures: number;
  /** Steps in all after which the loop stops (a bound, far beyond any task a view stays open on). */
  maxSteps: number;
}

export const FOLLOW_POLICY: FollowPolicy = {
  pollBaseMs: 1000,
  pollCapMs: 15_000,
  subscribeBaseMs: 250,
  subscribeCapMs: 5000,
  failureBaseMs: 1000,
  failureCapMs: 30_000,
  maxFailures: 6,
  maxSteps: 5000,
};

/** How a loop ended: the task is final, the signal aborted, or it gave up (failures in a row, or steps in all). */
export type FollowEnd = 'final' | 'stopped' | 'gave_up';

export interface FollowLoopOptions<T> {
  step: () => Promise<T>;
  isFinal: (value: T) => boolean;
  /** Whether the step followed a subscription (else it polled). */
  subscribed: (value: T) => boolean;
  /** Changes when the task did (its state, its last change): an unchanged poll lengthens the next pause. */
  keyOf: (value: T) => string;
  onValue: (value: T) => void;
  /** A step failed; `willRetry` false: this was the last try. */
  onFailure: (error: unknown, failures: number, willRetry: boolean) => void;
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  policy?: Partial<FollowPolicy>;
}

/** Waits `ms`, or less when the signal aborts. Never rejects. */
export const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

export async function runFollowLoop<T>(options: FollowLoopOptions<T>): Promise<FollowEnd> {
  const policy = { ...FOLLOW_POLICY, ...options.policy };
  const { signal, random } = options;
  const sleep = options.sleep ?? abortableSleep;
  let failures = 0;
  let unchanged = 0;
  let lastKey: string | null = null;
  for (let steps = 0; steps < policy.maxSteps; steps++) {
    if (signal.aborted) return 'stopped';
    let value: T;
    try {
      value = await options.step();
    } catch (error) {
      if (signal.aborted) return 'stopped';
      failures++;
      const willRetry = failures < policy.maxFailures;
      options.onFailure(error, failures, willRetry);
      if (!willRetry) return 'gave_up';
      await sleep(backoffMs(failures - 1, { baseMs: policy.failureBaseMs, capMs: policy.failureCapMs, random }), signal);
      continue;
    }
    if (signal.aborted) return 'stopped';
    failures = 0;
    options.onValue(value);
    if (options.isFinal(value)) return 'final';
    const key = options.keyOf(value);
    unchanged = key === lastKey ? unchanged + 1 : 0;
    lastKey = key;
    const pauseMs = options.subscribed(value)
      ? backoffMs(unchanged, { baseMs: policy.subscribeBaseMs, capMs: policy.subscribeCapMs, random })
      : backoffMs(unchanged, { baseMs: policy.pollBaseMs, capMs: policy.pollCapMs, random });
    await sleep(pauseMs, signal);
  }
  return signal.aborted ? 'stopped' : 'gave_up';
}
