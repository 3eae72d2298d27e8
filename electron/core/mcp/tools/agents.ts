/** The registry's agents as tools: list_agents (cached cards, no network) and inspect_agent (the card, fetched if asked). */
import { z } from 'zod';
import type { InspectView } from '../../agents/discovery.js';
import { inspectAgentCard } from '../../agents/extended-card.js';
import { agentCardSummaries, agentSummaryText, CARD_TEXT_LIMITS, cleanCardText } from '../agent-cards.js';
import { defineTool, type ToolSpec } from '../tool-spec.js';

const listAgents = defineTool({
  name: 'list_agents',
  title: 'List A2A agents',
  description: [
    "Lists the A2A agents registered in missive, with what each one's cached Agent Card says: alias (the name every other",
    'tool takes as `agent`), base URL, name and description, skills (id, name, description, tags, examples) and',
    'capabilities (streaming, push notifications). Reads the cards cached locally, without contacting any agent; an agent',
    'whose card was never fetched is listed without skills (inspect_agent with refresh: true fetches it). Call this first',
    'to pick the agent for send_message, or the members of a group for bcast/round.',
  ].join(' '),
  input: z.strictObject({}),
  annotations: { title: 'List A2A agents', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(_args, { core }) {
    const agents = await agentCardSummaries(core);
    const text = agents.length
      ? [`${agents.length} registered agent(s):`, '', ...agents.map(agentSummaryText)].join('\n')
      : 'No agents are registered. The user registers them with: missive agent add <alias> <url>';
    return { content: [{ type: 'text', text }], structuredContent: { agents } };
  },
});

const yesNo = (value: unknown) => (value === true ? 'yes' : 'no');
const card = (value: unknown, max: number = CARD_TEXT_LIMITS.description) => cleanCardText(value, max);

/** A readable account of `agent inspect`'s view: the card, the interface missive would use and why, trust and skills. */
export function inspectText(v: InspectView): string {
  const caps = v.card.capabilities as { streaming?: unknown; pushNotifications?: unknown };
  const selected = v.selected_interface;
  const lines = [
    `agent: ${v.agent.alias} → ${card(v.card.name, CARD_TEXT_LIMITS.name)}${v.card.version ? ` v${card(v.card.version, 60)}` : ''}`,
    ...(v.card.description ? [`description: ${card(v.card.description)}`] : []),
    `card: A2A ${v.card.format} from ${v.cache.url} (${v.cache.status}${v.cache.fetched_at ? `, fetched ${v.cache.fetched_at}` : ''})`,
    `streaming: ${yesNo(caps.streaming)}; push notifications: ${yesNo(caps.pushNotifications)}`,
    `input modes: ${v.card.default_input_modes.map((m) => card(m, 60)).join(', ') || '-'}; output modes: ${v.card.default_output_modes.map((m) => card(m, 60)).join(', ') || '-'}`,
    selected
      ? `interface: ${selected.binding} ${selected.url} (A2A ${selected.protocol_version}, ${selected.dialect} dialect): ${selected.reason}`
      : `interface: none missive can call: ${v.negotiation.error?.message ?? 'no mutual binding'}`,
    `credentials: ${v.origin_pinning.configured.length ? `${v.origin_pinning.configured.join(', ')} (${v.origin_pinning.decision})` : 'none configured'}`,
    `card signature: ${v.signature.status}`,
  ];
  if (v.card_warnings.length) {
    lines.push('', 'card warnings (the card stays usable):');
    for (const w of v.card_warnings) lines.push(`  ${w.severity === 'warning' ? '!' : '-'} ${w.code}: ${card(w.message, 300)}`);
  }
  const skills = v.card.skills as Array<Record<string, unknown>>;
  lines.push('', skills.length ? 'skills:' : 'skills: none listed');
  for (const s of skills.slice(0, CARD_TEXT_LIMITS.skills)) {
    const examples = (Array.isArray(s.examples) ? s.examples : []).slice(0, CARD_TEXT_LIMITS.examples).map((e) => JSON.stringify(card(e, 300)));
    lines.push(`  - ${card(s.id, 120)}${s.name ? ` (${card(s.name, 120)})` : ''}${s.description ? `: ${card(s.description)}` : ''}`);
    if (examples.length) lines.push(`    examples: ${examples.join('; ')}`);
  }
  return lines.join('\n');
}

const inspectAgent = defineTool({
  name: 'inspect_agent',
  title: 'Inspect an A2A agent',
  description: [
    "Shows one registered agent's Agent Card in full: name, description, version, capabilities, input and output modes,",
    'every skill, the interface (binding, URL, A2A version) missive would talk to and why, whether its credentials would',
    "be sent there, the card's signature status and any warnings. Reads the cached card unless refresh is true, which",
    'revalidates it with the agent first (a conditional fetch). Use it before sending to an agent you do not know, or',
    'when list_agents shows no card.',
  ].join(' '),
  input: z.strictObject({
    agent: z.string().min(1).describe("The agent's alias, as list_agents shows it."),
    refresh: z.boolean().optional().describe('Revalidate the cached card with the agent first (default false: cached card, no network unless none is cached).'),
    extended: z
      .boolean()
      .optional()
      .describe("Also fetch the agent's extended Agent Card (GetExtendedAgentCard, sent with the agent's own credentials), for agents that advertise one."),
  }),
  annotations: { title: 'Inspect an A2A agent', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { core }) {
    const view = await inspectAgentCard(core, args.agent, { refresh: args.refresh, extended: args.extended });
    let text = inspectText(view);
    if (view.extended_card) {
      const added = view.extended_card.added_skills.map((id) => card(id, 120));
      text += `\n\nextended card: ${card(view.extended_card.card.name, 120)}; skills it adds: ${added.join(', ') || 'none'}`;
    }
    return { content: [{ type: 'text', text }], structuredContent: view as unknown as Record<string, unknown> };
  },
});

export const AGENT_TOOLS: readonly ToolSpec[] = [listAgents, inspectAgent];
