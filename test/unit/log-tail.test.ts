/** tail-lines.ts: the last lines of a log file, read from its end: numbered when the whole file was read, UTF-8 intact across chunks, long lines cut. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, tailLines } from '../../electron/core/logs/tail-lines.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const file = (name: string, content: string | Buffer) => {
  dir ??= mkdtempSync(join(tmpdir(), 'missive-tail-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('tailLines', () => {
  it('numbers the lines of a small file and skips blank ones', () => {
    expect(tailLines(file('a.log', 'one\r\n\r\ntwo\nthree'), 10)).toEqual([
      { number: 1, text: 'one' },
      { number: 3, text: 'two' },
      { number: 4, text: 'three' },
    ]);
    expect(tailLines(file('b.log', 'one\ntwo\n'), 1)).toEqual([{ number: 2, text: 'two' }]);
    expect(tailLines(file('c.log', ''), 5)).toEqual([]);
  });

  it('keeps multi-byte characters whole across 64 KiB chunks, without numbers when it stopped early', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i} ${'é→'.repeat(20)}`);
    const tail = tailLines(file('u.log', `${lines.join('\n')}\n`), 1500);
    expect(tail.map((l) => l.text)).toEqual(lines.slice(-1500));
    expect(tail[0]!.number).toBeUndefined();
  });

  it('cuts a very long line and says so', () => {
    const [line] = tailLines(file('long.log', `${'x'.repeat(MAX_LINE_CHARS + 10)}\n`), 1);
    expect(line!.text.startsWith('x'.repeat(MAX_LINE_CHARS))).toBe(true);
    expect(line!.text).toContain(`[line cut at ${MAX_LINE_CHARS} characters]`);
  });
});
