/** Ids rewritten in A2A JSON (a replayed answer's recorded ids, a proxied answer's agent ids), all the way down. */
import type { JsonObject } from '../a2a/operations.js';

/** `body` with every string replaced by `rewrite(key, text)`, `key` being its field's name (an array's items carry the array's). */
export function rewriteStrings(body: JsonObject, rewrite: (key: string | null, text: string) => string): JsonObject {
  const walk = (value: unknown, key: string | null): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, key));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, walk(v, k)]));
    return typeof value === 'string' ? rewrite(key, value) : value;
  };
  return walk(body, null) as JsonObject;
}
