/** The embedded demo: real SDK agents on 127.0.0.1, registered in a profile, inspected on every binding they serve. */
import { createCore, type CoreOptions } from '../context.js';
import type { Core } from '../handle.js';
import { configError } from '../../../shared/errors.js';
import { addAgent } from '../agents/registry.js';
import { agentCapabilities, inspectAgent, loadCard } from '../agents/discovery.js';
import { createGroup, deleteGroup } from '../collectives/groups.js';
import { round } from '../collectives/round.js';
import { streamMessage } from '../messaging/stream.js';
import { startEmbeddedAgent, type EmbeddedAgent, type EmbeddedAgentOptions } from './embedded-agent.js';
import { isSharedStore } from '../store/selection.js';

export const DEMO_AGENTS: Array<{ alias: string; member: boolean } & EmbeddedAgentOptions> = [
  { alias: 'demo-echo', member: true, name: 'Demo Echo', behaviour: 'echo', grpc: true, skills: [{ id: 'echo', name: 'Echo', tags: ['text', 'demo'] }] },
  {
    alias: 'demo-tasks',
    member: true,
    name: 'Demo Task Runner',
    behaviour: 'task',
    pushNotifications: true,
    failOnRequest: true,
    skills: [
      {
        id: 'summarise',
        name: 'Summarise',
        tags: ['text', 'artifacts'],
        description: 'A completed task with a text artifact; a message starting with "fail" gets a failed task.',
      },
    ],
  },
  {
    alias: 'demo-stream',
    member: true,
    name: 'Demo Streamer',
    behaviour: 'chunks',
    chunks: 4,
    skills: [{ id: 'write', name: 'Writer', tags: ['text', 'streaming'] }],
  },
  {
    alias: 'demo-slow',
    member: true,
    name: 'Demo Slow Worker',
    behaviour: 'slow',
    delayMs: 400,
    pushNotifications: true,
    skills: [
      {
        id: 'think',
        name: 'Thinker',
        tags: ['text', 'slow'],
        description: 'Works 400 ms, or as long as the message says ("take 60s", at most 10m); cancellable meanwhile.',
      },
    ],
  },
  { alias: 'demo-reducer', member: false, name: 'Demo Reducer', behaviour: 'reducer', skills: [{ id: 'reduce', name: 'Reducer', tags: ['text', 'reduce'] }] },
];

export const DEMO_GROUP = 'demo';

export interface DemoAgents {
  agents: Array<{ alias: string; agent: EmbeddedAgent }>;
  close(): Promise<void>;
}

export async function startDemoAgents(): Promise<DemoAgents> {
  const agents: DemoAgents['agents'] = [];
  const started = await Promise.all(DEMO_AGENTS.map((spec) => startEmbeddedAgent(spec)));
  DEMO_AGENTS.forEach((spec, i) => agents.push({ alias: spec.alias, agent: started[i]! }));
  return { agents, close: async () => void (await Promise.all(agents.map((a) => a.agent.close()))) };
}

/**
 * The demo's agents live in the one process that runs it, on one host: registered in a store other hosts share, they
 * would be dead addresses to everyone else. The demo refuses a PostgreSQL store before it starts or writes anything.
 */
export function refuseSharedStore(core: Core): void {
  if (!isSharedStore(core.storeSelection)) return;
  throw configError(
    'store_unsupported',
    `the demo does not run on a shared PostgreSQL store (${core.storeSelection.display}): its agents live in one process on one host`,
    "Unset MISSIVE_STORE_URL (and [store] url, --store) to run the demo on the profile's local SQLite store.",
  );
}

/** Registers (or re-points) the demo agents in the core's profile, and (re)creates the `demo` group of workers. */
export async function registerDemoAgents(core: Core, demo: DemoAgents): Promise<void> {
  refuseSharedStore(core);
  const storage = await core.storage();
  for (const { alias, agent } of demo.agents) {
    if (await storage.agents.get(alias)) await storage.agents.repoint(alias, agent.baseUrl);
    else await addAgent(core, { alias, baseUrl: agent.baseUrl, tags: ['demo'], notes: 'embedded missive demo agent' });
  }
  if (await storage.groups.get(DEMO_GROUP)) await deleteGroup(core, DEMO_GROUP);
  await createGroup(core, DEMO_GROUP, { members: DEMO_AGENTS.filter((a) => a.member).map((a) => a.alias), notes: 'the embedded demo workers' });
}

/** Fetches (or revalidates) every demo agent's card, so routing and capability views work before any call. */
export async function fetchDemoCards(core: Core, demo: DemoAgents): Promise<void> {
  for (const { alias } of demo.agents) await loadCard(core, alias, true);
}

export interface DemoStep {
  step: string;
  alias?: string;
  detail: Record<string, unknown>;
}

/** Runs the demo tour, reporting each step as it completes. */
export async function runDemo(options: CoreOptions, onStep: (step: DemoStep) => void): Promise<{ home: string; steps: DemoStep[] }> {
  const core = createCore(options);
  try {
    refuseSharedStore(core);
  } catch (error) {
    core.close();
    throw error;
  }
  const demo = await startDemoAgents();
  const steps: DemoStep[] = [];
  const report = (s: DemoStep) => (steps.push(s), onStep(s));
  try {
    report({ step: 'agents.started', detail: { agents: demo.agents.map((a) => ({ alias: a.alias, base_url: a.agent.baseUrl })) } });
    await registerDemoAgents(core, demo);
    report({ step: 'agents.registered', detail: { state: core.paths.state } });
    for (const { alias, agent } of demo.agents) {
      for (const binding of ['http+json', 'json-rpc', ...(agent.grpcTarget ? (['grpc'] as const) : [])] as const) {
        const view = await inspectAgent(core, alias, { refresh: binding === 'http+json', binding });
        report({ step: 'agent.inspected', alias, detail: { name: view.card.name, cache: view.cache.status, selected_interface: view.selected_interface } });
      }
      const caps = await agentCapabilities(core, alias);
      report({ step: 'agent.capabilities', alias, detail: { labels: caps.labels } });
    }
    const streamed = await streamMessage(core, { agent: 'demo-stream', text: 'a short poem about agents', cwd: options.cwd ?? process.cwd() });
    report({ step: 'stream', alias: 'demo-stream', detail: { result: streamed } });
    const result = await round(core, {
      group: DEMO_GROUP,
      inputs: { text: 'What is one thing every agent should do well?', cwd: options.cwd ?? process.cwd() },
      reduce: { reducerAgent: 'demo-reducer' },
      cwd: options.cwd ?? process.cwd(),
      onStep: (step, r) => report({ step: `round.${step}`, detail: { result: r } }),
    });
    report({ step: 'round.done', detail: { status: result.status, context_id: result.context_id, exit_code: result.exit_code } });
    return { home: core.paths.state, steps };
  } finally {
    core.close();
    await demo.close();
  }
}
