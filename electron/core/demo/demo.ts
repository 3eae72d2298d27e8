/** The embedded demo: real SDK agents on 127.0.0.1, registered in a profile, inspected on both bindings. */
import { createCore, type Core, type CoreOptions } from '../context.js';
import { addAgent } from '../agents/registry.js';
import { agentCapabilities, inspectAgent } from '../agents/discovery.js';
import { getAgent, repointAgent } from '../store/repos/agents.js';
import { startEmbeddedAgent, type EmbeddedAgent, type EmbeddedAgentOptions } from './embedded-agent.js';

export const DEMO_AGENTS: Array<{ alias: string } & EmbeddedAgentOptions> = [
  { alias: 'demo-echo', name: 'Demo Echo', behaviour: 'echo', skills: [{ id: 'echo', name: 'Echo', tags: ['text', 'demo'] }] },
  { alias: 'demo-tasks', name: 'Demo Task Runner', behaviour: 'task', skills: [{ id: 'summarise', name: 'Summarise', tags: ['text', 'artifacts'] }] },
];

export interface DemoAgents {
  agents: Array<{ alias: string; agent: EmbeddedAgent }>;
  close(): Promise<void>;
}

export async function startDemoAgents(): Promise<DemoAgents> {
  const agents: DemoAgents['agents'] = [];
  for (const spec of DEMO_AGENTS) agents.push({ alias: spec.alias, agent: await startEmbeddedAgent(spec) });
  return { agents, close: async () => void (await Promise.all(agents.map((a) => a.agent.close()))) };
}

/** Registers (or re-points) the demo agents in the core's profile. */
export function registerDemoAgents(core: Core, demo: DemoAgents): void {
  const db = core.store().db;
  for (const { alias, agent } of demo.agents) {
    if (getAgent(db, alias)) repointAgent(db, alias, agent.baseUrl);
    else addAgent(core, { alias, baseUrl: agent.baseUrl, tags: ['demo'], notes: 'embedded missive demo agent' });
  }
}

export interface DemoStep {
  step: string;
  alias?: string;
  detail: Record<string, unknown>;
}

/** Runs the demo tour, reporting each step as it completes. */
export async function runDemo(options: CoreOptions, onStep: (step: DemoStep) => void): Promise<{ home: string; steps: DemoStep[] }> {
  const demo = await startDemoAgents();
  const steps: DemoStep[] = [];
  const report = (s: DemoStep) => (steps.push(s), onStep(s));
  const core = createCore(options);
  try {
    report({ step: 'agents.started', detail: { agents: demo.agents.map((a) => ({ alias: a.alias, base_url: a.agent.baseUrl })) } });
    registerDemoAgents(core, demo);
    report({ step: 'agents.registered', detail: { state: core.paths.state } });
    for (const { alias } of demo.agents) {
      for (const binding of ['http+json', 'json-rpc'] as const) {
        const view = await inspectAgent(core, alias, { refresh: binding === 'http+json', binding });
        report({ step: 'agent.inspected', alias, detail: { name: view.card.name, cache: view.cache.status, selected_interface: view.selected_interface } });
      }
      const caps = await agentCapabilities(core, alias);
      report({ step: 'agent.capabilities', alias, detail: { labels: caps.labels } });
    }
    return { home: core.paths.state, steps };
  } finally {
    core.close();
    await demo.close();
  }
}
