/**
 * The two load models. Open-loop: request i is due at t0 + i/rate, whatever the answers do; each wake-up is computed
 * from t0 (never from the previous wake-up, so timer delays do not add up), every request already due is issued at
 * once, and how late the generator was is tracked (its lag). Closed-loop: C virtual users, each issuing its next
 * request once its last one settled.
 */
import type { LoadTracker } from './tracker.js';
import { sleepAbortable } from './sleep.js';

/** Issues request `index`; `startedAt` is what its latency counts from (the scheduled start in open-loop). */
export type Launch = (index: number, startedAt: number, warm: boolean) => Promise<void>;

/** Open-loop never holds more requests in flight than this: past it, a due request is skipped and counted as an error. */
const MAX_IN_FLIGHT = 10_000;
/** The most requests one wake-up issues before it lets answers in (a generator far behind catches up in steps). */
const MAX_BATCH = 500;

export interface GeneratorState {
  /** How late the generator issued its most delayed request (open-loop), ms. */
  maxLagMs: number;
  /** Requests issued more than LATE_MS after their time. */
  late: number;
  /** performance.now() of the last counted request issued, and when the generator stopped. */
  lastLaunch: number | null;
  /** Open-loop: when the first counted request was due. */
  firstCountedDue: number | null;
  endedAt: number | null;
}

const LATE_MS = 10;
/** How early a timer is asked to wake before a request is due: the rest is waited by yielding to I/O. */
const TIMER_SLACK_MS = 1.5;

const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface OpenLoop {
  t0: number;
  rate: number;
  /** Requests scheduled before this index are the warm-up's. */
  warmupCount: number;
  total: number;
  tracker: LoadTracker;
  launch: Launch;
  signal: AbortSignal;
  state: GeneratorState;
}

export async function openLoop(o: OpenLoop): Promise<void> {
  const interval = 1000 / o.rate;
  let i = 0;
  while (i < o.total && !o.signal.aborted) {
    let batch = 0;
    while (i < o.total && batch < MAX_BATCH) {
      const due = o.t0 + i * interval;
      const now = performance.now();
      if (due > now) break;
      const lag = now - due;
      if (lag > o.state.maxLagMs) o.state.maxLagMs = lag;
      if (lag > LATE_MS) o.state.late++;
      const warm = i < o.warmupCount;
      if (o.tracker.inFlight >= MAX_IN_FLIGHT) {
        if (!warm)
          o.tracker.errors.addOwn(
            'orchestration',
            'in_flight_limit',
            `request ${i} was not sent: ${MAX_IN_FLIGHT} requests were already in flight (the agent is not keeping up)`,
          );
      } else {
        void o.launch(i, due, warm);
        if (!warm) {
          o.state.firstCountedDue ??= due;
          o.state.lastLaunch = now;
        }
      }
      i++;
      batch++;
    }
    if (i >= o.total) break;
    // A timer fires a millisecond or more late, which at 2,000/s is two requests' worth: the last stretch before a
    // request is due is waited by yielding to I/O (setImmediate) and looking again, so requests leave on time.
    const wait = o.t0 + i * interval - performance.now();
    await (batch >= MAX_BATCH || wait <= TIMER_SLACK_MS ? yieldToIo() : sleepAbortable(wait - TIMER_SLACK_MS, o.signal));
  }
  o.state.endedAt = performance.now();
}

export interface ClosedLoop {
  concurrency: number;
  /** Requests started before this time are the warm-up's. */
  countedFrom: number;
  /** Stop starting requests after this time (duration), or after `requests` counted ones. */
  until: number | null;
  requests: number | null;
  /** Never issue more than this many requests, warm-up included (`--max-requests`). */
  maxIssued: number | null;
  launch: Launch;
  signal: AbortSignal;
  state: GeneratorState;
}

export async function closedLoop(c: ClosedLoop): Promise<void> {
  let next = 0;
  let counted = 0;
  const user = async () => {
    for (;;) {
      if (c.signal.aborted) return;
      const now = performance.now();
      if (c.until !== null && now >= c.until) return;
      if (c.maxIssued !== null && next >= c.maxIssued) return;
      const warm = now < c.countedFrom;
      if (!warm) {
        if (c.requests !== null && counted >= c.requests) return;
        counted++;
        c.state.lastLaunch = now;
      }
      await c.launch(next++, now, warm);
    }
  };
  await Promise.all(Array.from({ length: c.concurrency }, user));
  c.state.endedAt = performance.now();
}
