/** Human text of collective results (bcast/scatter tables, barrier, reduce, one round step), for every command that shows them. */
import { unsatisfiedNames, type BarrierResult } from '../core/collectives/barrier.js';
import type { FanOutResult } from '../core/collectives/fan-out.js';
import { gatherMarkdown, type GatherResult } from '../core/collectives/gather.js';
import type { ReduceResult } from '../core/collectives/reduce.js';
import { table } from './human.js';

/** A bcast or scatter result: one row per member, then the counts and the shared context. */
export const fanOutText = (r: FanOutResult) =>
  [
    table(
      ['RANK', 'AGENT', ...(r.kind === 'scatter' ? ['INPUT'] : []), 'STATUS', 'STATE', 'LATENCY', 'TASK / ERROR'],
      r.members.map((m) => [
        String(m.rank),
        m.alias,
        ...(r.kind === 'scatter' ? [String(m.input_index)] : []),
        m.status,
        m.state ?? (m.response_shape === 'message' ? 'message' : '-'),
        m.latency_ms === null ? '-' : `${m.latency_ms} ms`,
        m.error ? m.error.message : (m.task_id ?? '-'),
      ]),
    ),
    '',
    `${r.kind} ${r.status}: ${r.counts.succeeded} succeeded, ${r.counts.failed} failed, ${r.counts.timeout} timed out, ${r.counts.skipped} skipped in ${r.elapsed_ms} ms`,
    `context ${r.request.context_id}${r.request.context_created ? ' (new)' : ''}`,
  ].join('\n');

/** A barrier result: one row per member (with why it is not satisfied), then whether the quorum was met and who kept it from it. */
export const barrierText = (r: BarrierResult) => {
  const names = unsatisfiedNames(r);
  return [
    table(
      ['RANK', 'AGENT', 'STATUS', 'STATE', 'TASK', 'POLLS', 'REASON'],
      r.members.map((m) => [String(m.rank), m.alias, m.status, m.state ?? '-', m.task_id ?? '-', String(m.polls), m.reason ?? '-']),
    ),
    '',
    `barrier ${r.status}: ${r.quorum.satisfied} of ${r.quorum.required} required satisfied after ${r.attempts} round(s), ${r.elapsed_ms} ms`,
    ...(r.quorum.from === 'bcast' && r.quorum.required < r.quorum.members
      ? [`quorum: the ${r.quorum.required} member(s) the bcast reached, of ${r.quorum.members} (--required changes it)`]
      : []),
    ...(names ? [names] : []),
  ].join('\n');
};

/** A reduce result: the reduced text, then how it was reduced and where it was recorded. */
export const reduceText = (r: ReduceResult) =>
  [
    r.reduced_text,
    '',
    `— ${r.strategy} by ${r.reducer.method}${r.reducer.agent ? ` (${r.reducer.agent})` : ''} over ${r.counts.inputs} of ${r.counts.members} member(s); recorded as message ${r.persistence.reduced_message_id}`,
  ].join('\n');

/** The text of one round step's result, by step name (bcast, barrier, gather, reduce). */
export function stepText(step: string, r: unknown): string {
  if (step === 'bcast') return fanOutText(r as FanOutResult);
  if (step === 'barrier') return barrierText(r as BarrierResult);
  if (step === 'gather') return gatherMarkdown(r as GatherResult);
  return reduceText(r as ReduceResult);
}
