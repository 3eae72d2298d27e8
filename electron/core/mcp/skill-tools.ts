/**
 * Per-skill tools (`missive mcp serve --skill-tools`): each skill of each registered agent's cached card becomes a tool
 * of its own, `ask_<alias>_<skill id>` (skill-names.ts), described by the skill's description and examples, so an AI
 * client sees "ask_billing_refunds" rather than a generic send. Calling one is a send_message to that agent: the same
 * lifecycle (lifecycle.ts: streaming progress, tasks, input_required through elicitation). A card is the agent's own
 * text, read from the cache (no network): agent-cards.ts cleans and caps it before it reaches a name or description.
 */
import { z } from 'zod';
import type { Core } from '../handle.js';
import { agentCardSummaries, type AgentCardSummary, type CardSkill } from './agent-cards.js';
import { skillToolBase, uniqueName } from './skill-names.js';
import { converse } from './lifecycle.js';
import { messageParts } from './message-parts.js';
import { defineTool, type ToolSpec } from './tool-spec.js';

/** The most skill tools one server lists (a client's context is finite; send_message reaches the rest). */
export const MAX_SKILL_TOOLS = 500;
/** The longest description of a skill tool. */
const MAX_DESCRIPTION = 1500;
/** How many of a skill's examples its description quotes. */
const DESCRIBED_EXAMPLES = 3;

const skillInput = z.strictObject({
  text: z.string().min(1).describe('What to ask of the agent, in words (the message it receives).'),
  context_id: z.string().min(1).optional().describe('The context_id of an earlier answer, to continue that conversation.'),
  task_id: z.string().min(1).optional().describe('The task_id of a task to continue (e.g. one in state input_required); give its context_id too.'),
});

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);

/** What the LLM reads to choose the tool: the skill, its examples, whose it is, and what a call does. */
export function skillDescription(agent: AgentCardSummary, skill: CardSkill): string {
  const who = `agent "${agent.alias}"${agent.name && agent.name !== agent.alias ? ` (${agent.name})` : ''}`;
  const what = skill.description || skill.name || skill.id;
  const examples = skill.examples.slice(0, DESCRIBED_EXAMPLES).map((e) => JSON.stringify(e));
  const parts = [
    `${what}${/[.!?…]$/.test(what) ? '' : '.'}`,
    examples.length ? `Examples: ${examples.join('; ')}.` : '',
    skill.tags.length ? `Tags: ${skill.tags.join(', ')}.` : '',
    `Skill "${skill.name || skill.id}" (id ${skill.id}) of the A2A ${who}.`,
    'Sends text to that agent as send_message does and returns its answer; pass the context_id (and task_id) of an earlier answer to continue.',
  ];
  return cut(parts.filter(Boolean).join(' '), MAX_DESCRIPTION);
}

function skillTool(name: string, agent: AgentCardSummary, skill: CardSkill): ToolSpec {
  const title = cut(`Ask ${agent.alias}: ${skill.name || skill.id}`, 120);
  return defineTool({
    name,
    title,
    description: skillDescription(agent, skill),
    input: skillInput,
    annotations: { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    taskSupport: true,
    run: (args, ctx) =>
      converse(ctx, {
        agent: agent.alias,
        captured: messageParts(args.text),
        ...(args.context_id ? { contextId: args.context_id } : {}),
        ...(args.task_id ? { taskId: args.task_id } : {}),
      }),
  });
}

/**
 * The skill tools of every registered agent with a readable cached card, agents by alias and skills in card order;
 * `taken`: the names of the server's other tools, which a skill's name never takes.
 */
export async function skillTools(core: Core, taken: ReadonlySet<string>): Promise<ToolSpec[]> {
  const names = new Set(taken);
  const tools: ToolSpec[] = [];
  for (const agent of await agentCardSummaries(core)) {
    for (const skill of agent.skills) {
      if (tools.length >= MAX_SKILL_TOOLS) return tools;
      tools.push(skillTool(uniqueName(skillToolBase(agent.alias, skill.id), names), agent, skill));
    }
  }
  return tools;
}
