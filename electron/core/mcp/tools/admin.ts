/**
 * The tools that change the registry: register_agent, remove_agent, set_agent_auth. They are `admin`: listed and
 * callable only under `missive mcp serve --allow-admin`, since an AI client that could add an endpoint could make
 * missive send it credentials. No tool takes a secret's value: set_agent_auth binds an auth ref the user already
 * defined (missive auth add), by its name.
 */
import { z } from 'zod';
import { registerAgentWithCard } from '../../agents/register-with-card.js';
import { removeAgent, requireAgent, setAgentAuthRef } from '../../agents/registry.js';
import { agentSummaryText, cardSummary } from '../agent-cards.js';
import { defineTool, type ToolSpec } from '../tool-spec.js';
import type { Core } from '../../handle.js';

/** The rule of every local name (config/schema.ts `identifier`): agent aliases and auth ref names alike. */
const IDENTIFIER = /^[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?$/;
const IDENTIFIER_RULE = 'must be lowercase letters and digits, with - _ . only in the middle, at most 63 characters';

const alias = (what: string) => z.string().regex(IDENTIFIER, IDENTIFIER_RULE).describe(what);
const authRef = z
  .string()
  .regex(IDENTIFIER, IDENTIFIER_RULE)
  .describe('The NAME of an auth ref the user already defined (missive auth list shows them), never a token or password: no tool takes a secret.');

/** The agent as registered now, with what its cached card says. */
async function registeredText(core: Core, name: string, action: string): Promise<{ text: string; summary: ReturnType<typeof cardSummary> }> {
  const summary = cardSummary(await requireAgent(core, name));
  return { text: `${action}\n\n${agentSummaryText(summary)}`, summary };
}

const registerAgent = defineTool({
  name: 'register_agent',
  title: 'Register an A2A agent',
  description: [
    'Registers an A2A agent under an alias: fetches its Agent Card from the URL (a base URL, whose well-known card is',
    "read, or the card's own URL) and stores the agent with its card, so every other tool can reach it. Nothing is",
    'registered when the card cannot be fetched or read. Optionally binds an existing auth ref by name.',
  ].join(' '),
  input: z.strictObject({
    alias: alias('The alias to register it under: the name every other tool takes as `agent`.'),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .describe("The agent's base URL (https://host/path) or its Agent Card's URL (…/.well-known/agent-card.json)."),
    auth_ref: authRef.optional(),
  }),
  annotations: { title: 'Register an A2A agent', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  admin: true,
  async run(args, { core }) {
    const view = await registerAgentWithCard(core, { alias: args.alias, baseUrl: args.url, authRef: args.auth_ref });
    const { text, summary } = await registeredText(core, view.alias, `Registered agent ${view.alias}.`);
    return { content: [{ type: 'text', text }], structuredContent: { agent: view, card: summary } };
  },
});

const removeAgentTool = defineTool({
  name: 'remove_agent',
  title: 'Remove an A2A agent',
  description:
    "Removes a locally registered agent from missive's registry. An agent with tasks in the journal is kept (so their history stays linked), and agents from the config file or a shared store cannot be removed here.",
  input: z.strictObject({ alias: z.string().min(1).max(200).describe('The alias of the agent to remove, as list_agents shows it.') }),
  annotations: { title: 'Remove an A2A agent', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  admin: true,
  async run(args, { core }) {
    const removed = await removeAgent(core, args.alias);
    return { content: [{ type: 'text', text: `Removed agent ${removed.alias}.` }], structuredContent: removed };
  },
});

const setAgentAuth = defineTool({
  name: 'set_agent_auth',
  title: "Set an agent's auth ref",
  description: [
    'Binds a registered agent to an auth ref the user already defined (by its name), or with auth_ref null unbinds it.',
    "The ref's secret stays in the keyring or environment and is sent only to the agent's own origins; this tool never",
    'takes or shows a secret. The user defines auth refs with: missive auth add.',
  ].join(' '),
  input: z.strictObject({
    alias: z.string().min(1).max(200).describe("The agent's alias, as list_agents shows it."),
    auth_ref: authRef
      .nullable()
      .describe('The NAME of an auth ref the user already defined (missive auth list shows them), or null to unbind; never a token or password.'),
  }),
  annotations: { title: "Set an agent's auth ref", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  admin: true,
  async run(args, { core }) {
    const view = await setAgentAuthRef(core, args.alias, args.auth_ref);
    const text = view.auth_ref ? `Agent ${view.alias} now uses auth ref "${view.auth_ref}".` : `Agent ${view.alias} now uses no auth ref.`;
    return { content: [{ type: 'text', text }], structuredContent: { agent: { alias: view.alias, base_url: view.base_url, auth_ref: view.auth_ref } } };
  },
});

export const ADMIN_TOOLS: readonly ToolSpec[] = [registerAgent, removeAgentTool, setAgentAuth];
