/**
 * A structural diff of two JSON values (the data parts of two outputs): every leaf or subtree that was added,
 * removed or changed, by its path (`$[0].config.a`). Objects are compared key by key (sorted), arrays index by index.
 */

export interface JsonChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  /** The value on side a (absent for `added`). */
  a?: unknown;
  /** The value on side b (absent for `removed`). */
  b?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const keyPath = (path: string, key: string) => (IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/** Changes from `a` to `b`, in path order; none when they are equal as JSON. */
export function diffJson(a: unknown, b: unknown, path = '$'): JsonChange[] {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => {
      const at = keyPath(path, k);
      if (!(k in b)) return [{ path: at, kind: 'removed' as const, a: a[k] }];
      if (!(k in a)) return [{ path: at, kind: 'added' as const, b: b[k] }];
      return diffJson(a[k], b[k], at);
    });
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: JsonChange[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const at = `${path}[${i}]`;
      if (i >= b.length) out.push({ path: at, kind: 'removed', a: a[i] });
      else if (i >= a.length) out.push({ path: at, kind: 'added', b: b[i] });
      else out.push(...diffJson(a[i], b[i], at));
    }
    return out;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path, kind: 'changed', a, b }];
}
