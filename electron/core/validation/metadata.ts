/** `--metadata K=V` items (agents, messages) → a metadata object. */
import { usageError } from '../../../shared/errors.js';

/** `K=V`; the value is parsed as JSON when it can be, else kept as text. An item without `=` is a usage error. */
export function parseMetadata(items: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw usageError('invalid_metadata', `--metadata "${item}" is not K=V`);
    const raw = item.slice(eq + 1);
    try {
      out[item.slice(0, eq)] = JSON.parse(raw);
    } catch {
      out[item.slice(0, eq)] = raw;
    }
  }
  return out;
}
