/** Fleets of embedded SDK agents for collective tests, and a registered agent whose port is closed. */
import { createServer } from 'node:net';
import { startEmbeddedAgent, type EmbeddedAgent, type EmbeddedAgentOptions } from '../../electron/core/demo/embedded-agent.js';
import type { Sandbox } from './cli.js';

export async function startAgents(specs: Record<string, EmbeddedAgentOptions>): Promise<{ agents: Record<string, EmbeddedAgent>; close(): Promise<void> }> {
  const entries = await Promise.all(Object.entries(specs).map(async ([alias, spec]) => [alias, await startEmbeddedAgent({ name: alias, ...spec })] as const));
  const agents = Object.fromEntries(entries);
  return { agents, close: async () => void (await Promise.all(entries.map(([, a]) => a.close()))) };
}

/** A loopback URL nothing listens on (the port was just released). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Registers each agent and fetches its card once, so collectives start from a warm cache. */
export async function register(box: Sandbox, agents: Record<string, { baseUrl: string }>, extra: string[] = []): Promise<void> {
  for (const [alias, agent] of Object.entries(agents)) {
    const res = await box.run(['agent', 'add', alias, agent.baseUrl, ...extra]);
    if (res.code !== 0) throw new Error(`agent add ${alias}: ${res.stderr}`);
    await box.run(['agent', 'inspect', alias]);
  }
}
