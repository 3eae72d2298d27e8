/**
 * The embedded demo agents as the README tour uses them: demo-slow works for as long as its message says and can be
 * cancelled meanwhile, a push config on its working task gets callbacks, demo-tasks fails on request, and
 * `missive demo serve` leaves every card cached, so `route explain` is right straight after it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_AGENTS, startDemoAgents, type DemoAgents } from '../../electron/core/demo/demo.js';
import { sandbox, until, type Sandbox } from '../support/cli.js';

let demo: DemoAgents;
let box: Sandbox;
beforeAll(async () => void (demo = await startDemoAgents()));
afterAll(() => demo.close());
beforeEach(async () => {
  box = sandbox();
  for (const { alias, agent } of demo.agents) expect((await box.run(['agent', 'add', alias, agent.baseUrl])).code).toBe(0);
});
afterEach(() => box.dispose());

describe('demo-slow: a task that can be cancelled', () => {
  it('keeps working for the duration its message names, and `task cancel` ends it cancelled', async () => {
    const sent = await box.run(['send', 'demo-slow', 'take 60s', '--return-immediately', '--json']);
    expect(sent.code).toBe(0);
    const taskId = sent.json().data.task.task_id as string;
    expect(sent.json().data.task.state).toBe('working');
    // Well past demo-slow's usual 400 ms, the task still works: a bounded wait times out (exit 82).
    const waited = await box.run(['task', 'wait', taskId, '--interval', '100ms', '--timeout', '1200ms', '--json']);
    expect(waited.code).toBe(82);
    const cancelled = await box.run(['task', 'cancel', taskId, '--json']);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json().data.task).toMatchObject({ task_id: taskId, state: 'cancelled' });
    const after = await box.run(['task', 'get', taskId, '--remote', '--json']);
    expect(after.json().data.task.state).toBe('cancelled');
  });

  it('still answers at once to messages that name no duration, and says so on its card', async () => {
    const sent = await box.run(['send', 'demo-slow', 'status?', '--json']);
    expect(sent.json().data.task.state).toBe('completed');
    const inspected = (await box.run(['agent', 'inspect', 'demo-slow', '--json'])).json().data;
    expect(JSON.stringify(inspected.card)).toMatch(/take 60s/);
    expect(DEMO_AGENTS.find((a) => a.alias === 'demo-slow')?.member).toBe(true);
  });
});

describe('push on the demo agents', () => {
  let receiver: Server;
  let url: string;
  const bodies: unknown[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        bodies.push(JSON.parse(body));
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/a2a/push`;
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  it('calls back the updates of a working demo-slow task once `push create` registered the receiver', async () => {
    const taskId = (await box.run(['send', 'demo-slow', 'take 60s', '--return-immediately', '--json'])).json().data.task.task_id as string;
    const created = await box.run(['push', 'create', 'demo-slow', taskId, '--url', url]);
    expect(created.code).toBe(0);
    expect((await box.run(['task', 'cancel', taskId])).code).toBe(0);
    const states = () => bodies.map((b) => JSON.stringify(b)).filter((b) => b.includes(taskId));
    await until('a callback for the cancelled task', () => states().some((b) => /CANCELED|canceled/.test(b)));
  });
});

describe('demo-tasks: a failure on request', () => {
  it('fails a task whose message starts with "fail", and completes the others', async () => {
    const failed = (await box.run(['send', 'demo-tasks', 'fail: the report is missing', '--json'])).json().data;
    expect(failed.task.state).toBe('failed');
    const ok = (await box.run(['send', 'demo-tasks', 'summarise the failure', '--json'])).json().data;
    expect(ok.task.state).toBe('completed');
  });
});

describe('route explain before any card is cached', () => {
  it('says which candidates have no card and how to cache one', async () => {
    expect((await box.run(['group', 'create', 'fresh', '--member', 'demo-echo', '--member', 'demo-slow'])).code).toBe(0);
    expect((await box.run(['agent', 'inspect', 'demo-echo'])).code).toBe(0);
    const route = await box.run(['route', 'explain', 'fresh', '--policy', 'capability-match', '--need', 'streaming']);
    expect(route.code).toBe(0);
    expect(route.stdout).toContain('no cached card for demo-slow: `missive agent inspect <alias>` caches one, or add --refresh-capabilities');
    const refreshed = await box.run(['route', 'explain', 'fresh', '--policy', 'capability-match', '--need', 'streaming', '--refresh-capabilities']);
    expect(refreshed.stdout).toContain('chosen: demo-echo, demo-slow');
    expect(refreshed.stdout).not.toContain('no cached card');
  });
});

describe('missive demo serve', () => {
  const stop = async (child: ChildProcess) => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };

  it("fetches every card at start, so `route explain` right after it sees each member's capabilities", async () => {
    const served = sandbox();
    const child = spawn(process.execPath, ['bin/missive.js', 'demo', 'serve'], { cwd: process.cwd(), env: { ...served.env } });
    try {
      let stdout = '';
      child.stdout!.on('data', (c) => (stdout += c));
      await until('demo serve to be ready', () => stdout.includes('press Ctrl-C'), 20_000);
      const route = await served.run(['route', 'explain', 'demo', '--policy', 'capability-match', '--need', 'streaming', '--json']);
      expect(route.code).toBe(0);
      const candidates = route.json().data.candidates as Array<{ alias: string; card: string; chosen: boolean }>;
      expect(candidates.map((c) => [c.alias, c.card, c.chosen])).toEqual([
        ['demo-echo', 'cached', true],
        ['demo-tasks', 'cached', true],
        ['demo-stream', 'cached', true],
        ['demo-slow', 'cached', true],
      ]);
      const list = (await served.run(['agent', 'list', '--json'])).json().data.agents as Array<{ alias: string; card: { cached: boolean } }>;
      expect(list.filter((a) => !a.card.cached).map((a) => a.alias)).toEqual([]);
    } finally {
      await stop(child);
      served.dispose();
    }
  });
});
