/**
 * Field-by-field comparison of a rebuilt summary with a stored one. The stored summary names the fields: every leaf
 * it holds is compared with the rebuilt value at the same path (`members[1].task_id`); an array's length is a field
 * of its own, so a member present on one side only is reported too.
 */

export interface FieldDifference {
  field: string;
  rebuilt: unknown;
  stored: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function compareSummaries(rebuilt: unknown, stored: unknown, path = ''): FieldDifference[] {
  if (Array.isArray(stored)) {
    const other = Array.isArray(rebuilt) ? rebuilt : [];
    const out: FieldDifference[] = [];
    if (other.length !== stored.length)
      out.push({ field: `${path}.length`, rebuilt: Array.isArray(rebuilt) ? other.length : (rebuilt ?? null), stored: stored.length });
    for (let i = 0; i < Math.min(other.length, stored.length); i++) out.push(...compareSummaries(other[i], stored[i], `${path}[${i}]`));
    return out;
  }
  if (isObject(stored)) {
    const other = isObject(rebuilt) ? rebuilt : {};
    return Object.keys(stored).flatMap((key) => compareSummaries(other[key], stored[key], path ? `${path}.${key}` : key));
  }
  const a = rebuilt ?? null;
  const b = stored ?? null;
  return a === b ? [] : [{ field: path, rebuilt: a, stored: b }];
}
