/**
 * `missive load --compare previous.json`: a report written earlier (by `--json` or `--report FILE`, the
 * `missive.output.v1` envelope of kind `load_report`, or the bare report) read back, checked, and set against this
 * run metric by metric. Pure: the caller reads the file.
 */
import { z } from 'zod';
import { usageError } from '../../../shared/errors.js';
import type { LatencySummary, LoadReport } from './types.js';

const summary = z.object({
  count: z.number(),
  min: z.number(),
  mean: z.number(),
  p50: z.number(),
  p90: z.number(),
  p99: z.number(),
  p999: z.number(),
  max: z.number(),
});

/** What a comparison reads of a previous report: the rest may come from another version of missive. */
const previousReport = z.looseObject({
  target: z.string(),
  model: z.looseObject({ kind: z.enum(['open', 'closed']), rate: z.number().optional(), concurrency: z.number().optional(), description: z.string() }),
  started_at: z.string(),
  requests: z.looseObject({ sent: z.number(), answered: z.number(), failed: z.number() }),
  rate: z.looseObject({ target: z.number().nullable(), achieved: z.number() }),
  latency: z.looseObject({
    answer: summary,
    first_event: summary.optional(),
    between_events: summary.optional(),
    final_state: summary.optional(),
  }),
});

export type PreviousReport = z.infer<typeof previousReport>;

export interface MetricChange {
  /** `answer p50`, `first_event p99`, `achieved rate`, `failed`, `error rate`. */
  metric: string;
  unit: 'ms' | '/s' | 'requests' | '%';
  before: number;
  after: number;
  /** (after − before) / before × 100, one decimal; null when before is 0. */
  change_pct: number | null;
}

export interface LoadComparison {
  previous: { target: string; model: PreviousReport['model']; started_at: string };
  changes: MetricChange[];
}

const HELP = 'Pass a file written by `missive load … --json > FILE` or `missive load … --report FILE`.';

/** The previous report in `text` (read from `name`), or a usage error saying what the file is not. */
export function parseLoadReport(text: string, name: string): PreviousReport {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw usageError('invalid_load_report', `--compare ${name} is not JSON, so not a load report`, HELP);
  }
  const envelope = z.looseObject({ kind: z.string(), data: z.unknown() }).safeParse(doc);
  if (envelope.success && envelope.data.kind !== 'load_report')
    throw usageError('invalid_load_report', `--compare ${name} holds a ${envelope.data.kind} document, not a load report`, HELP);
  const parsed = previousReport.safeParse(envelope.success ? envelope.data.data : doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? ` (${issue.path.join('.')}: ${issue.message})` : '';
    throw usageError('invalid_load_report', `--compare ${name} is not a load report${where}`, HELP);
  }
  return parsed.data;
}

const PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'max'] as const;
const SERIES = ['answer', 'first_event', 'between_events', 'final_state'] as const;

function change(metric: string, unit: MetricChange['unit'], before: number, after: number): MetricChange {
  const pct = before === 0 ? null : Math.round(((after - before) / before) * 1000) / 10;
  return { metric, unit, before, after, change_pct: pct };
}

const errorRate = (r: { sent: number; failed: number }) => (r.sent === 0 ? 0 : Math.round((r.failed / r.sent) * 10_000) / 100);

/** Each metric both reports hold, before and after. */
export function compareReports(previous: PreviousReport, current: LoadReport): LoadComparison {
  const changes: MetricChange[] = [];
  for (const series of SERIES) {
    const before: LatencySummary | undefined = previous.latency[series];
    const after = current.latency[series];
    if (!before || !after) continue;
    for (const p of PERCENTILES) changes.push(change(`${series} ${p}`, 'ms', before[p], after[p]));
  }
  changes.push(change('achieved rate', '/s', previous.rate.achieved, current.rate.achieved));
  changes.push(change('failed', 'requests', previous.requests.failed, current.requests.failed));
  changes.push(change('error rate', '%', errorRate(previous.requests), errorRate(current.requests)));
  return { previous: { target: previous.target, model: previous.model, started_at: previous.started_at }, changes };
}
