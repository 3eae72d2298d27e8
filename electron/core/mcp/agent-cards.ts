/**
 * The registered agents as an MCP client reads them: alias, base URL, and what each one's CACHED card says (name,
 * description, skills, streaming and push support), read from the store without any network call. A card is an
 * agent's own text, so it is untrusted here: control and formatting characters are removed and every field is capped
 * before it reaches a tool result, a tool's description or a tool's name (skill-tools.ts).
 */
import type { Core } from '../handle.js';
import { parseCard } from '../a2a/card.js';
import type { AgentRow } from '../store/rows/agents.js';

/** The longest text kept of a card's description fields, of a skill's name, tag and example, and how many of each. */
export const CARD_TEXT_LIMITS = { description: 1000, name: 120, tag: 60, example: 300, tags: 20, examples: 10, skills: 100 } as const;

/**
 * `value` as one line of plain text: C0/C1 controls, line separators, bidirectional overrides and zero-width
 * characters become spaces (or vanish), runs of spaces collapse, and anything longer than `max` is cut with an ellipsis.
 */
export function cleanCardText(value: unknown, max: number): string {
  if (typeof value !== 'string') return '';
  const flat = value
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= max) return flat;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(flat[end - 1] ?? '')) end--;
  return `${flat.slice(0, end).trimEnd()}…`;
}

export interface CardSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
}

export interface AgentCardSummary {
  alias: string;
  base_url: string;
  tags: string[];
  /** Whether a card is cached; `card_error` says why a cached one cannot be read. */
  card_cached: boolean;
  card_error: string | null;
  name: string | null;
  description: string | null;
  version: string | null;
  capabilities: { streaming: boolean; push_notifications: boolean };
  input_modes: string[];
  output_modes: string[];
  skills: CardSkill[];
  card_fetched_at: string | null;
}

const strings = (value: unknown, each: number, count: number): string[] =>
  (Array.isArray(value) ? value : [])
    .slice(0, count)
    .map((item) => cleanCardText(item, each))
    .filter(Boolean);

function skillOf(raw: Record<string, unknown>): CardSkill {
  return {
    id: cleanCardText(raw.id, CARD_TEXT_LIMITS.name),
    name: cleanCardText(raw.name, CARD_TEXT_LIMITS.name),
    description: cleanCardText(raw.description, CARD_TEXT_LIMITS.description),
    tags: strings(raw.tags, CARD_TEXT_LIMITS.tag, CARD_TEXT_LIMITS.tags),
    examples: strings(raw.examples, CARD_TEXT_LIMITS.example, CARD_TEXT_LIMITS.examples),
  };
}

/** What `row`'s cached card says, parsed as every command parses it; no card, or an unreadable one, leaves it empty. */
export function cardSummary(row: AgentRow): AgentCardSummary {
  const base: AgentCardSummary = {
    alias: row.alias,
    base_url: row.baseUrl,
    tags: row.tags,
    card_cached: row.card !== null,
    card_error: null,
    name: null,
    description: null,
    version: null,
    capabilities: { streaming: false, push_notifications: false },
    input_modes: [],
    output_modes: [],
    skills: [],
    card_fetched_at: row.card?.fetchedAt ?? null,
  };
  if (!row.card) return base;
  try {
    const { wire } = parseCard(row.card.json, `the cached card of "${row.alias}"`);
    return {
      ...base,
      name: cleanCardText(wire.name, CARD_TEXT_LIMITS.name) || null,
      description: cleanCardText(wire.description, CARD_TEXT_LIMITS.description) || null,
      version: cleanCardText(wire.version, CARD_TEXT_LIMITS.tag) || null,
      capabilities: { streaming: wire.capabilities?.streaming === true, push_notifications: wire.capabilities?.pushNotifications === true },
      input_modes: strings(wire.defaultInputModes, CARD_TEXT_LIMITS.tag, CARD_TEXT_LIMITS.tags),
      output_modes: strings(wire.defaultOutputModes, CARD_TEXT_LIMITS.tag, CARD_TEXT_LIMITS.tags),
      skills: (wire.skills ?? [])
        .slice(0, CARD_TEXT_LIMITS.skills)
        .map((skill) => skillOf(skill as Record<string, unknown>))
        .filter((skill) => skill.id),
    };
  } catch (error) {
    return { ...base, card_error: cleanCardText((error as Error).message, CARD_TEXT_LIMITS.description) };
  }
}

/** Every registered agent's summary, by alias. */
export async function agentCardSummaries(core: Core): Promise<AgentCardSummary[]> {
  const rows = await (await core.storage()).agents.list();
  return rows.map(cardSummary).sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
}

/** A readable block for one agent: `alias — name: description`, its capabilities and each skill with its examples. */
export function agentSummaryText(a: AgentCardSummary): string {
  const head = `${a.alias}  ${a.base_url}`;
  if (!a.card_cached) return `${head}\n  card: not fetched yet (inspect_agent with refresh: true fetches it)`;
  if (a.card_error) return `${head}\n  card: cannot be read: ${a.card_error}`;
  const lines = [
    head,
    `  ${a.name ?? '(unnamed)'}${a.version ? ` v${a.version}` : ''}${a.description ? `: ${a.description}` : ''}`,
    `  streaming: ${a.capabilities.streaming ? 'yes' : 'no'}; push notifications: ${a.capabilities.push_notifications ? 'yes' : 'no'}`,
  ];
  if (!a.skills.length) lines.push('  skills: none listed');
  for (const skill of a.skills) {
    const tags = skill.tags.length ? ` [${skill.tags.join(', ')}]` : '';
    lines.push(
      `  - skill ${skill.id}${skill.name && skill.name !== skill.id ? ` (${skill.name})` : ''}${tags}${skill.description ? `: ${skill.description}` : ''}`,
    );
    if (skill.examples.length) lines.push(`    examples: ${skill.examples.map((e) => JSON.stringify(e)).join('; ')}`);
  }
  return lines.join('\n');
}
