/**
 * Tool names for agents' skills: `ask_<alias>_<skill id>` within MCP's rules (1–64 characters of `A-Za-z0-9_.-`),
 * lowercase, and unique: a name already taken (a static tool, an earlier skill) gets the smallest free suffix `_2`,
 * `_3`…, so the same registry and cards always give the same names. The id is an agent's own text: accents are
 * dropped, every other character outside the rule becomes `_`.
 */

/** MCP's longest tool name. */
export const MAX_TOOL_NAME = 64;

/** `text` in the tool-name alphabet: lowercase ASCII letters, digits, `_`, `.`, `-`; runs of anything else are one `_`. */
export function nameSegment(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '');
}

/** The name a skill's tool would have before any collision is resolved. */
export function skillToolBase(alias: string, skillId: string): string {
  const name = `ask_${nameSegment(alias) || 'agent'}_${nameSegment(skillId) || 'skill'}`;
  return name.slice(0, MAX_TOOL_NAME).replace(/[_.-]+$/, '');
}

/** `base`, or `base_<n>` (cut to fit) with the smallest n ≥ 2 not in `taken`; the name returned is added to `taken`. */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`;
    name = `${base.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
  }
  taken.add(name);
  return name;
}
