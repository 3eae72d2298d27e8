/** Small helpers for human-readable output. Cells and values are single-line fields: see terminal-text.ts. */
import { terminalLine } from './terminal-text.js';

export function table(headers: string[], raw: string[][]): string {
  if (raw.length === 0) return '';
  const rows = raw.map((r) => r.map((c) => terminalLine(String(c ?? ''))));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export function keyValues(pairs: Array<[string, unknown]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(
      ([k, v]) =>
        `${k.padEnd(width)}  ${v === null || v === '' ? '-' : Array.isArray(v) ? v.map((x) => terminalLine(String(x))).join(', ') || '-' : terminalLine(String(v))}`,
    )
    .join('\n');
}
