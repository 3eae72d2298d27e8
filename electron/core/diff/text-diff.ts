/** A line diff of two texts as unified-diff hunks (jsdiff's structuredPatch), with 3 lines of context. */
import { structuredPatch } from 'diff';

export interface TextHunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  /** Each line prefixed ' ' (both), '-' (only the old text) or '+' (only the new text). */
  lines: string[];
}

export interface TextDiff {
  changed: boolean;
  hunks: TextHunk[];
}

/** Both sides end with a line break before diffing, so a missing final newline is never a difference of its own. */
const asLines = (text: string | null) => (text === null || text === '' ? '' : text.endsWith('\n') ? text : `${text}\n`);

export function diffText(a: string | null, b: string | null): TextDiff {
  const patch = structuredPatch('a', 'b', asLines(a), asLines(b), undefined, undefined, { context: 3 });
  const hunks = patch.hunks.map((h) => ({
    old_start: h.oldStart,
    old_lines: h.oldLines,
    new_start: h.newStart,
    new_lines: h.newLines,
    lines: h.lines.filter((l) => !l.startsWith('\\')),
  }));
  return { changed: hunks.length > 0, hunks };
}
