/** `missive demo`: embedded SDK agents, registered and inspected in a throw-away MISSIVE_HOME (or the one given). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { fetchDemoCards, runDemo, startDemoAgents, registerDemoAgents, type DemoStep } from '../../core/demo/demo.js';
import type { Action } from '../command-context.js';
import type { StreamResult } from '../../core/messaging/stream.js';
import { stepText } from '../collective-text.js';
import { table } from '../human.js';
import { terminalBlock } from '../terminal-text.js';

const describe = (s: DemoStep): string => {
  switch (s.step) {
    case 'agents.started':
      return `started ${(s.detail.agents as Array<{ alias: string; base_url: string }>).map((a) => `${a.alias} at ${a.base_url}`).join(', ')}`;
    case 'agents.registered':
      return `registered them in ${s.detail.state}`;
    case 'agent.inspected': {
      const iface = s.detail.selected_interface as { binding: string; url: string; protocol_version: string };
      return `${s.alias}: card "${s.detail.name}" (${s.detail.cache}) → ${iface.binding} ${iface.url} (A2A ${iface.protocol_version})`;
    }
    case 'agent.capabilities':
      return `${s.alias}: capabilities ${(s.detail.labels as string[]).join(', ')}`;
    case 'stream': {
      const r = s.detail.result as StreamResult;
      return `${s.alias}: streamed ${r.events} events (${r.counts.artifact_update} artifact chunks), task ${r.task?.state ?? '-'}`;
    }
    case 'round.done':
      return `round ${s.detail.status} in context ${s.detail.context_id}`;
    default:
      if (s.step.startsWith('round.')) {
        const step = s.step.slice('round.'.length);
        return `round: ${step}\n${stepText(step, s.detail.result)
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}`;
      }
      return s.step;
  }
};

export function registerDemoCommand(program: Command, action: Action): void {
  const demo = program.command('demo').description('start embedded A2A demo agents and tour the product with them');

  demo.action(
    action(async ({ core, out, deps }) => {
      const env = deps.env.MISSIVE_HOME ? deps.env : { ...deps.env, MISSIVE_HOME: mkdtempSync(join(tmpdir(), 'missive-demo-')) };
      const human = out.mode === 'human';
      const result = await runDemo({ ...core.options, env, cwd: deps.cwd, secrets: core.secrets }, (step) => {
        if (human) deps.io.stdout(`• ${terminalBlock(describe(step))}\n`);
        else if (out.mode === 'ndjson') out.result('demo_step', step, () => '');
      });
      out.result(
        'demo_result',
        { missive_home: env.MISSIVE_HOME, steps: result.steps },
        (d) => `\ndone. The demo state is in MISSIVE_HOME=${d.missive_home}\nkeep the agents up for manual tries with:  missive demo serve`,
      );
    }),
  );

  demo
    .command('serve')
    .description('keep the demo agents running (Ctrl-C to stop), registered in the current profile with their cards fetched')
    .action(
      action(async ({ core, out, deps }) => {
        const agents = await startDemoAgents();
        try {
          await registerDemoAgents(core, agents);
          await fetchDemoCards(core, agents);
        } catch (error) {
          await agents.close();
          throw error;
        }
        out.result('demo_serve', { agents: agents.agents.map((a) => ({ alias: a.alias, base_url: a.agent.baseUrl })), state: core.paths.state }, (d) =>
          [
            table(
              ['alias', 'base url'],
              d.agents.map((a: { alias: string; base_url: string }) => [a.alias, a.base_url]),
            ),
            `registered in ${d.state}; press Ctrl-C to stop`,
          ].join('\n'),
        );
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        await agents.close();
        if (deps.io.isTTY) deps.io.stdout('stopped\n');
      }),
    );
}
