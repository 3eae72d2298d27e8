/** Small helpers for human-readable output. */
export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export function keyValues(pairs: Array<[string, unknown]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === '' ? '-' : Array.isArray(v) ? v.join(', ') || '-' : String(v)}`)
    .join('\n');
}
