/**
 * Latency distributions of a load run: HDR histograms (hdr-histogram-js, the histogram autocannon uses; its pure-JS
 * build, so it loads under Electron and Node alike) recording microseconds, summarised in milliseconds, and encoded
 * (compressed base64, the HdrHistogram interchange form) into the report for `--compare` and later analysis.
 */
import * as hdr from 'hdr-histogram-js';
import type { LatencySummary } from './types.js';

export type Histogram = hdr.Histogram;

/** One hour, in microseconds: the longest latency told apart (longer ones are recorded as one hour). */
const HIGHEST_US = 3_600_000_000;

export function newHistogram(): Histogram {
  return hdr.build({
    useWebAssembly: false,
    bitBucketSize: 32,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
  });
}

/** Records a latency given in milliseconds (microsecond resolution). */
export function recordMs(histogram: Histogram, ms: number): void {
  histogram.recordValue(Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000))));
}

const ms = (us: number): number => Math.round(us) / 1000;

export function summarise(histogram: Histogram): LatencySummary {
  if (histogram.totalCount === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  // A percentile is its bucket's highest value, which can lie above the largest value recorded: never shown above max.
  const max = histogram.maxValue;
  const at = (percentile: number) => ms(Math.min(max, histogram.getValueAtPercentile(percentile)));
  return {
    count: histogram.totalCount,
    min: ms(histogram.minNonZeroValue),
    mean: ms(histogram.mean),
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    max: ms(max),
  };
}

export const encodeHistogram = (histogram: Histogram): string => hdr.encodeIntoCompressedBase64(histogram);

/**
 * The last few seconds of a run, for the live view: one bucket a second (requests sent, answers' latency), the newest
 * `seconds` kept. `rotate` is called once a second.
 */
export class RollingWindow {
  private buckets: Array<{ started: number; sent: number; histogram: Histogram }> = [];

  constructor(
    private readonly seconds: number,
    now: number,
  ) {
    this.buckets.push({ started: now, sent: 0, histogram: newHistogram() });
  }

  private get current() {
    return this.buckets[this.buckets.length - 1]!;
  }

  sent(): void {
    this.current.sent++;
  }

  answered(latencyMs: number): void {
    recordMs(this.current.histogram, latencyMs);
  }

  rotate(now: number): void {
    this.buckets.push({ started: now, sent: 0, histogram: newHistogram() });
    if (this.buckets.length > this.seconds + 1) this.buckets.shift();
  }

  /** Requests sent a second, and answers' p50 and p99 (ms; null without answers), over the kept buckets. */
  view(now: number): { rate: number; p50: number | null; p99: number | null } {
    const merged = newHistogram();
    let sent = 0;
    for (const b of this.buckets) {
      sent += b.sent;
      merged.add(b.histogram);
    }
    const span = (now - this.buckets[0]!.started) / 1000;
    const rate = span > 0 ? Math.round((sent / span) * 10) / 10 : 0;
    if (merged.totalCount === 0) return { rate, p50: null, p99: null };
    return { rate, p50: ms(merged.getValueAtPercentile(50)), p99: ms(merged.getValueAtPercentile(99)) };
  }
}
