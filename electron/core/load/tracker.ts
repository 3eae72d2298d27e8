/**
 * What a load run has seen so far: counts, latency histograms, outcomes and failures, and the rolling window of the
 * live view. Warm-up requests are sent but not counted (only `warmup` and the live view see them).
 */
import type { RequestResult } from './request.js';
import { ErrorTallies } from './tally.js';
import { encodeHistogram, newHistogram, recordMs, RollingWindow, summarise, type Histogram } from './histograms.js';
import type { LoadReport, LoadSnapshot } from './types.js';

/** The live view's window: the last five seconds. */
const WINDOW_SECONDS = 5;

export class LoadTracker {
  readonly counts = { sent: 0, answered: 0, succeeded: 0, failed: 0, warmup: 0 };
  inFlight = 0;
  readonly errors = new ErrorTallies();
  readonly outcomes: Record<string, number> = {};
  private readonly answer = newHistogram();
  private readonly firstEvent = newHistogram();
  private readonly betweenEvents = newHistogram();
  private readonly finalState = newHistogram();
  private readonly window: RollingWindow;
  /** performance.now() of the last settled request. */
  lastSettled: number;

  constructor(
    readonly startedAt: number,
    readonly countedFrom: number,
  ) {
    this.window = new RollingWindow(WINDOW_SECONDS, startedAt);
    this.lastSettled = countedFrom;
  }

  /** A request leaves; `warm` when it started during the warm-up. */
  sent(warm: boolean): void {
    if (warm) this.counts.warmup++;
    else this.counts.sent++;
    this.inFlight++;
    this.window.sent();
  }

  succeeded(warm: boolean, startedAt: number, result: RequestResult): void {
    this.settle();
    this.window.answered(result.answeredAt - startedAt);
    if (warm) return;
    this.counts.answered++;
    this.counts.succeeded++;
    recordMs(this.answer, result.answeredAt - startedAt);
    const [first] = result.events;
    if (first !== undefined) recordMs(this.firstEvent, first - startedAt);
    for (let i = 1; i < result.events.length; i++) recordMs(this.betweenEvents, result.events[i]! - result.events[i - 1]!);
    if (result.finalAt !== null) recordMs(this.finalState, result.finalAt - startedAt);
    this.outcomes[result.outcome] = (this.outcomes[result.outcome] ?? 0) + 1;
  }

  failed(warm: boolean, error: unknown, secrets: readonly string[]): void {
    this.settle();
    if (warm) return;
    this.counts.answered++;
    this.counts.failed++;
    this.errors.add(error, secrets);
  }

  private settle(): void {
    this.inFlight--;
    this.lastSettled = performance.now();
  }

  snapshot(now: number): LoadSnapshot {
    this.window.rotate(now);
    const view = this.window.view(now);
    return {
      elapsed_ms: Math.round(now - this.startedAt),
      warming_up: now < this.countedFrom,
      sent: this.counts.sent + this.counts.warmup,
      answered: this.counts.answered,
      in_flight: this.inFlight,
      rate: view.rate,
      p50: view.p50,
      p99: view.p99,
      errors: this.errors.count,
    };
  }

  /** The latency part of the report (stream and final-state distributions only when the run had them) and the encoded histograms. */
  latency(stream: boolean, untilFinal: boolean): Pick<LoadReport, 'latency' | 'histograms'> {
    const latency: LoadReport['latency'] = { answer: summarise(this.answer) };
    const histograms: Record<string, string> = { answer: encodeHistogram(this.answer) };
    const add = (name: 'first_event' | 'between_events' | 'final_state', h: Histogram) => {
      latency[name] = summarise(h);
      histograms[name] = encodeHistogram(h);
    };
    if (stream) {
      add('first_event', this.firstEvent);
      add('between_events', this.betweenEvents);
    }
    if (untilFinal) add('final_state', this.finalState);
    return { latency, histograms };
  }
}
