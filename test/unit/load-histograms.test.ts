/** The latency summary a load report shows: percentiles from an HDR histogram, never above the largest latency seen. */
import { describe, expect, it } from 'vitest';
import { newHistogram, recordMs, summarise } from '../../electron/core/load/histograms.js';

describe('load latency summary', () => {
  it('never shows a percentile above max, though HDR buckets round a value up', () => {
    const histogram = newHistogram();
    for (let i = 0; i < 99; i++) recordMs(histogram, 0.1);
    recordMs(histogram, 93.701);
    const summary = summarise(histogram);
    expect(summary.max).toBe(93.701);
    expect(summary.p999).toBeLessThanOrEqual(summary.max);
    expect(summary.p99).toBe(0.1);
    expect(summary.count).toBe(100);
  });
});
