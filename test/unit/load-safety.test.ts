/** `missive load`'s pure rules: the planned count, the confirmation and --max-requests, the rate flag, --compare's reading. */
import { describe, expect, it } from 'vitest';
import { checkLoadSafety, isYes, plannedRequests } from '../../electron/core/load/safety.js';
import { compareReports, parseLoadReport } from '../../electron/core/load/compare.js';
import { parseRate } from '../../electron/cli/load-options.js';
import { describeModel } from '../../electron/core/load/model-name.js';
import type { LoadReport } from '../../electron/core/load/types.js';

const go = { maxRequests: 100_000, yes: false, interactive: false, where: 'billing at http://agent.example' };

describe('load safety', () => {
  it('counts rate × (warm-up + duration), or N; a timed closed-loop run is not known in advance', () => {
    expect(plannedRequests({ model: { kind: 'open', rate: 200 }, durationMs: 60_000, warmupMs: 0 })).toBe(12_000);
    expect(plannedRequests({ model: { kind: 'open', rate: 200 }, durationMs: 10_000, warmupMs: 5_000 })).toBe(3_000);
    expect(plannedRequests({ model: { kind: 'closed', concurrency: 4 }, requests: 50, warmupMs: 0 })).toBe(50);
    expect(plannedRequests({ model: { kind: 'closed', concurrency: 4 }, durationMs: 10_000, warmupMs: 0 })).toBeNull();
  });

  it('up to 1,000 goes; above asks on a terminal, is refused naming --yes off one, goes with --yes', () => {
    expect(checkLoadSafety({ ...go, planned: 1_000 })).toEqual({ kind: 'go' });
    expect(() => checkLoadSafety({ ...go, planned: 12_000 })).toThrow(/not sending ~12,000 requests to billing at http:\/\/agent\.example/);
    expect(checkLoadSafety({ ...go, planned: 12_000, interactive: true })).toEqual({
      kind: 'ask',
      question: 'about to send ~12,000 requests to billing at http://agent.example: continue? [y/N] ',
    });
    expect(checkLoadSafety({ ...go, planned: 12_000, yes: true })).toEqual({ kind: 'go' });
    // A timed closed-loop run is bounded only by --max-requests.
    expect(() => checkLoadSafety({ ...go, planned: null })).toThrow(/as many requests as it answers \(at most 100,000\)/);
    expect(checkLoadSafety({ ...go, planned: null, maxRequests: 1_000 })).toEqual({ kind: 'go' });
  });

  it('above --max-requests is refused even with --yes, naming the flag', () => {
    expect(() => checkLoadSafety({ ...go, planned: 100_001, yes: true })).toThrow('this run plans 100,001 requests, above --max-requests 100,000');
  });

  it('only y or yes is a yes', () => {
    expect(['y', 'Y\n', 'yes', ' yes \n'].every(isYes)).toBe(true);
    expect(['', 'n', 'no', 'sure', 'yy', '\ny'].some(isYes)).toBe(false);
  });
});

describe('load flags', () => {
  it('reads a rate per second or per minute and names the model', () => {
    expect(parseRate('200/s')).toBe(200);
    expect(parseRate('200')).toBe(200);
    expect(parseRate('30/m')).toBe(0.5);
    for (const bad of ['fast', '-1', '0', '10/h', '1e3']) expect(() => parseRate(bad)).toThrow(/rate/);
    expect(describeModel({ kind: 'open', rate: 0.5 })).toBe('open-loop at 0.5/s');
    expect(describeModel({ kind: 'closed', concurrency: 1 })).toBe('closed-loop, 1 virtual user');
    expect(describeModel({ kind: 'closed', concurrency: 8 })).toBe('closed-loop, 8 virtual users');
  });
});

const summary = (p50: number) => ({ count: 10, min: 1, mean: p50, p50, p90: p50, p99: p50 * 2, p999: p50 * 2, max: p50 * 3 });
const report = (p50: number): LoadReport => ({
  target: 'echo',
  agents: ['echo'],
  model: { kind: 'open', rate: 10, description: 'open-loop at 10/s' },
  operation: 'send',
  binding: 'json-rpc',
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 1000,
  warmup_ms: 0,
  requests: { sent: 10, answered: 10, succeeded: 10, failed: 0, warmup: 0 },
  rate: { target: 10, achieved: 10 },
  latency: { answer: summary(p50) },
  histograms: {},
  errors: [],
  outcomes: { message: 10 },
  generator: { max_lag_ms: 0, saturated: false },
});

describe('load --compare', () => {
  it('reads the --json envelope or the bare report, and gives each change in percent', () => {
    const envelope = JSON.stringify({ schema_version: 'missive.output.v1', ok: true, kind: 'load_report', data: report(12.1) });
    const previous = parseLoadReport(envelope, 'before.json');
    expect(parseLoadReport(JSON.stringify(report(12.1)), 'bare.json').target).toBe('echo');
    const p50 = compareReports(previous, report(14.3)).changes.find((c) => c.metric === 'answer p50');
    expect(p50).toEqual({ metric: 'answer p50', unit: 'ms', before: 12.1, after: 14.3, change_pct: 18.2 });
  });

  it('refuses what is not a load report, saying what it is', () => {
    expect(() => parseLoadReport('{"kind":"bcast_result","data":{}}', 'x.json')).toThrow('--compare x.json holds a bcast_result document, not a load report');
    expect(() => parseLoadReport('{"target":"echo"}', 'y.json')).toThrow(/--compare y\.json is not a load report \(model/);
    expect(() => parseLoadReport('not json', 'z.txt')).toThrow('--compare z.txt is not JSON');
  });
});
