/**
 * A line diff as the user reads it: every line marked `+` (added), `-` (removed) or ` ` (unchanged) and coloured
 * accordingly, so the change reads without colour too. Built on jsdiff: `diffLines` for texts, `diffJson` for JSON
 * values (keys sorted, indented, so only real changes show).
 */
import { diffJson, diffLines, type Change } from 'diff';

/** The changes between two texts, line by line. */
export const textChanges = (before: string, after: string): Change[] => diffLines(before, after);

/** The changes between two JSON values (anything that is not an object is compared as its JSON text). */
export function jsonChanges(before: unknown, after: unknown): Change[] {
  const side = (v: unknown): string | object => (typeof v === 'object' && v !== null ? v : `${JSON.stringify(v ?? null)}\n`);
  return diffJson(side(before), side(after));
}

interface Line {
  kind: 'added' | 'removed' | 'same';
  text: string;
}

function linesOf(changes: Change[]): Line[] {
  const lines: Line[] = [];
  for (const c of changes) {
    const kind = c.added ? 'added' : c.removed ? 'removed' : 'same';
    const parts = c.value.split('\n');
    if (parts.at(-1) === '') parts.pop();
    for (const text of parts) lines.push({ kind, text });
  }
  return lines;
}

const MARK = { added: '+', removed: '-', same: ' ' } as const;

export function DiffView({ changes, label, testId }: { changes: Change[]; label: string; testId?: string }) {
  const lines = linesOf(changes);
  const added = lines.filter((l) => l.kind === 'added').length;
  const removed = lines.filter((l) => l.kind === 'removed').length;
  return (
    <figure className="diff" data-testid={testId}>
      <figcaption>
        {label}: <span className="diff-count-added">+{added}</span> <span className="diff-count-removed">-{removed}</span>
        {added + removed === 0 ? <span className="muted"> (identical)</span> : null}
      </figcaption>
      <pre className="diff-lines" aria-label={label}>
        {lines.map((l, i) => (
          <div key={i} className={`diff-line diff-${l.kind}`}>
            <span className="diff-mark">{MARK[l.kind]}</span>
            {l.text}
          </div>
        ))}
      </pre>
    </figure>
  );
}
