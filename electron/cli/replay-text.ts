/**
 * Human text of `missive events replay`: one line per step (match or MISMATCH, the step, its group and operation id,
 * the rebuilt summary in a few words, who ran it), then each differing field, rebuilt against stored.
 */
import type { ReplayResult, ReplayStep } from '../core/replay/replay.js';
import { terminalLine } from './terminal-text.js';
import { actorText } from './actor-text.js';

const value = (v: unknown) => terminalLine(JSON.stringify(v) ?? 'null');

/** The rebuilt summary in a few words: outcome counts, quorum, gathered members, reduce strategy and inputs. */
function gist(s: ReplayStep): string {
  const r = s.rebuilt as Record<string, unknown>;
  const counts = (c: Record<string, number> | undefined) =>
    Object.entries(c ?? {})
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ') || 'no members';
  if (s.step === 'bcast' || s.step === 'scatter') return `${r.status ?? 'unfinished'}: ${counts(r.counts as Record<string, number> | undefined)}`;
  if (s.step === 'barrier') return `quorum ${r.satisfied}/${r.required ?? '?'} ${r.quorum_met ? 'met' : 'not met'}`;
  if (s.step === 'gather') return counts(r.counts as Record<string, number> | undefined);
  return `${r.status}: ${r.strategy ?? '?'} by ${r.reducer ?? '?'}, ${r.inputs} input(s)`;
}

export function replayText(r: ReplayResult): string {
  const lines = [`replay of context ${terminalLine(r.context_id)}: ${r.counts.matched} of ${r.counts.steps} step(s) match`];
  for (const s of r.steps) {
    const mark = s.match ? 'match' : 'MISMATCH';
    lines.push(
      `  ${mark.padEnd(8)} ${s.step.padEnd(7)} ${terminalLine(s.group ?? '-')}  ${terminalLine(gist(s))}  ${s.operation_id}${s.actor ? `  by ${actorText(s.actor)}` : ''}${s.complete ? '' : '  (incomplete in the journal)'}`,
    );
    for (const d of s.differences) lines.push(`             ${terminalLine(d.field)}: rebuilt ${value(d.rebuilt)}, stored ${value(d.stored)}`);
  }
  return lines.join('\n');
}
