/**
 * The last lines of a file, read backwards from its end in chunks so a large log costs only what is shown. Bounded:
 * at most `MAX_TAIL_BYTES` are read per file (a first, cut line is dropped) and a line longer than `MAX_LINE_CHARS`
 * is shortened with a marker. Lines are decoded one by one as UTF-8; a trailing CR (CRLF files) is dropped.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export const MAX_TAIL_BYTES = 16 * 1024 * 1024;
export const MAX_LINE_CHARS = 16 * 1024;
const CHUNK = 64 * 1024;

export interface TailLine {
  /** 1-based line number, counted from the start of the file when the whole file was read, else absent. */
  number?: number;
  text: string;
}

const shorten = (line: string) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]` : line);

/** Up to `count` last non-empty lines of the file at `path`, oldest first. */
export function tailLines(path: string, count: number): TailLine[] {
  if (count <= 0) return [];
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const floor = Math.max(0, size - MAX_TAIL_BYTES);
    const chunks: Buffer[] = [];
    let position = size;
    let newlines = 0;
    // Read backwards until there are more newlines than lines wanted (the first one may be cut) or the floor is hit.
    while (position > floor && newlines <= count) {
      const length = Math.min(CHUNK, position - floor);
      position -= length;
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, position);
      for (const byte of chunk) if (byte === 0x0a) newlines++;
      chunks.unshift(chunk);
    }
    const bytes = Buffer.concat(chunks);
    const raw: Buffer[] = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 0x0a) {
        raw.push(bytes.subarray(start, i));
        start = i + 1;
      }
    }
    if (start < bytes.length) raw.push(bytes.subarray(start));
    const whole = position === 0;
    if (!whole) raw.shift(); // the first piece may start mid-line
    const lines = raw.map((b, i) => ({ number: whole ? i + 1 : undefined, text: shorten(b.toString('utf8').replace(/\r$/, '')) }));
    return lines
      .filter((l) => l.text.trim() !== '')
      .slice(-count)
      .map((l) => (l.number === undefined ? { text: l.text } : l));
  } finally {
    closeSync(fd);
  }
}
