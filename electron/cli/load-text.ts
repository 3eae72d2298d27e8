/** Human text of a `missive load` report: what ran, the latency table, errors, outcomes and the comparison. */
import type { LoadComparison, MetricChange } from '../core/load/compare.js';
import type { LatencySummary, LoadReport } from '../core/load/types.js';
import { keyValues, table } from './human.js';
import { describeModel } from '../core/load/model-name.js';

/** The `--json` document: the report, and the comparison when --compare was given. */
export type LoadResult = LoadReport & { comparison?: LoadComparison };

/** Milliseconds with the precision that matters at their size: 0.412, 4.12, 41.2, 412. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  const digits = value < 1 ? 3 : value < 10 ? 2 : value < 100 ? 1 : 0;
  return value.toFixed(digits);
}

const count = (n: number) => n.toLocaleString('en-US');
export const perSecond = (n: number) => `${Number.isInteger(n) || n >= 100 ? n.toFixed(0) : n.toFixed(1)}/s`;
export const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(milliseconds % 1000 === 0 ? 0 : 1)} s`;

const SERIES: Array<[keyof LoadReport['latency'], string]> = [
  ['answer', 'answer'],
  ['first_event', 'first event'],
  ['between_events', 'between events'],
  ['final_state', 'final state'],
];

function latencyTable(latency: LoadReport['latency']): string {
  const rows = SERIES.flatMap(([key, name]) => {
    const s: LatencySummary | undefined = latency[key];
    return s ? [[name, count(s.count), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.p999), ms(s.max)]] : [];
  });
  return table(['LATENCY (ms)', 'COUNT', 'P50', 'P90', 'P99', 'P99.9', 'MAX'], rows);
}

function changeText(c: MetricChange): string[] {
  const value = (n: number) => (c.unit === 'ms' ? ms(n) : c.unit === '/s' ? perSecond(n).slice(0, -2) : String(n));
  const unit = c.unit === 'requests' ? '' : ` ${c.unit}`;
  const pct = c.change_pct === null ? (c.after === c.before ? '=' : 'new') : `${c.change_pct > 0 ? '+' : ''}${c.change_pct}%`;
  return [c.metric, `${value(c.before)} → ${value(c.after)}${unit}`, pct];
}

/** The previous run's model in a few words, when the report says enough; else its own description. */
function previousModel(m: LoadComparison['previous']['model']): string {
  if (m.kind === 'open' && m.rate !== undefined) return describeModel({ kind: 'open', rate: m.rate });
  if (m.kind === 'closed' && m.concurrency !== undefined) return describeModel({ kind: 'closed', concurrency: m.concurrency });
  return m.description;
}

export function comparisonText(c: LoadComparison): string {
  return [
    `compared with the run of ${c.previous.started_at} (${c.previous.target}, ${previousModel(c.previous.model)}):`,
    table(['METRIC', 'BEFORE → AFTER', 'CHANGE'], c.changes.map(changeText)),
  ].join('\n');
}

/** The final report a person reads. */
export function loadReportText(r: LoadResult): string {
  const req = r.requests;
  const length = `${seconds(r.duration_ms)}${r.warmup_ms ? ` after a ${seconds(r.warmup_ms)} warm-up` : ''}`;
  const outcomes = Object.entries(r.outcomes).map(([k, v]) => `${k} ${count(v)}`);
  const errors = table(
    ['ERROR', 'COUNT', 'FIRST EXAMPLE'],
    r.errors.map((e) => [e.key, count(e.count), e.first_example]),
  );
  return [
    `load ${r.target}: ${describeModel(r.model)}, ${r.operation} over ${r.binding}, ${length}`,
    '',
    keyValues([
      ['model', r.model.description],
      ['agents', r.agents],
      ['started', r.started_at],
      [
        'requests',
        `${count(req.sent)} sent, ${count(req.answered)} answered, ${count(req.succeeded)} succeeded, ${count(req.failed)} failed${req.warmup ? ` (${count(req.warmup)} more in the warm-up, not counted)` : ''}`,
      ],
      [
        'rate',
        r.rate.target === null
          ? `${perSecond(r.rate.achieved)} achieved (closed-loop: no target)`
          : `${perSecond(r.rate.achieved)} achieved of ${perSecond(r.rate.target)} target`,
      ],
      ['outcomes', outcomes.length ? outcomes.join(', ') : '-'],
      [
        'generator',
        `max lag ${ms(r.generator.max_lag_ms)} ms${r.generator.saturated ? ' — SATURATED: the generator fell behind its schedule, the numbers are not reliable' : ''}`,
      ],
    ]),
    '',
    latencyTable(r.latency),
    ...(errors ? ['', errors] : []),
    ...(r.comparison ? ['', comparisonText(r.comparison)] : []),
  ].join('\n');
}
