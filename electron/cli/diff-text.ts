/**
 * Human text of `missive diff`: per pair a unified diff of the text (`---`/`+++` headers, `@@` hunks, lines marked
 * ' ', '-', '+') and the data parts' JSON changes (`~` changed, `+` added, `-` removed). Every line of outside text is
 * escaped (terminal-text.ts), so an agent's output cannot forge a diff line or move the cursor.
 */
import type { DiffPair, DiffResult, DiffSide } from '../core/diff/diff.js';
import { terminalLine } from './terminal-text.js';

const json = (v: unknown) => terminalLine(JSON.stringify(v) ?? 'null');
const sideLabel = (s: DiffSide) => `${terminalLine(s.alias)}  (context ${terminalLine(s.context_id)}, ${s.status}${s.text_source ? `, ${s.text_source}` : ''})`;

function pairText(p: DiffPair): string[] {
  if (!p.changed) return [`= ${terminalLine(p.label)}: no differences`];
  const lines = [`--- a: ${sideLabel(p.a)}`, `+++ b: ${sideLabel(p.b)}`];
  for (const h of p.text.hunks) {
    lines.push(`@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`);
    for (const l of h.lines) lines.push(`${l[0]}${terminalLine(l.slice(1))}`);
  }
  if (!p.text.changed && p.a.status !== p.b.status) lines.push(`status: ${p.a.status} → ${p.b.status}`);
  if (p.data.changed) {
    lines.push('data parts (JSON):');
    for (const c of p.data.changes) {
      if (c.kind === 'changed') lines.push(`~ ${terminalLine(c.path)}: ${json(c.a)} → ${json(c.b)}`);
      else if (c.kind === 'added') lines.push(`+ ${terminalLine(c.path)}: ${json(c.b)}`);
      else lines.push(`- ${terminalLine(c.path)}: ${json(c.a)}`);
    }
  }
  return lines;
}

export function diffText(r: DiffResult): string {
  const head =
    r.mode === 'rounds'
      ? `diff of rounds ${terminalLine(r.a.context_id)} and ${terminalLine(r.b.context_id)}: ${r.counts.changed} of ${r.counts.pairs} member(s) changed`
      : `diff of ${terminalLine(r.a.member ?? '')} and ${terminalLine(r.b.member ?? '')} in context ${terminalLine(r.a.context_id)}`;
  return [head, ...r.pairs.flatMap((p) => ['', ...pairText(p)])].join('\n');
}
