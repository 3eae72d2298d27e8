/** The embedded demo agents behind the desktop app's "Start demo agents": started once, registered each time asked. */
import type { Core } from '../handle.js';
import { fetchDemoCards, registerDemoAgents, startDemoAgents, type DemoAgents } from '../demo/demo.js';

export interface DemoHost {
  start(): Promise<{ agents: Array<{ alias: string; base_url: string }> }>;
  close(): Promise<void>;
}

export function createDemoHost(core: Core): DemoHost {
  let demo: DemoAgents | null = null;
  return {
    async start() {
      demo ??= await startDemoAgents();
      await registerDemoAgents(core, demo);
      await fetchDemoCards(core, demo);
      return { agents: demo.agents.map((a) => ({ alias: a.alias, base_url: a.agent.baseUrl })) };
    },
    async close() {
      const running = demo;
      demo = null;
      await running?.close();
    },
  };
}
