/**
 * `missive demo serve` answers the installed base: a client on the @a2a-js/sdk 0.3 line (`a2a-sdk-v03`, missive's
 * code is not in it) finds each demo agent's endpoint on the v0.3-shaped card and completes send, stream and get on
 * JSON-RPC and on HTTP+JSON. The same agents keep serving v1.0 clients (missive itself, here and in demo-agents.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory, ClientFactoryOptions } from 'a2a-sdk-v03/client';
import { sandbox, until, type Sandbox } from '../support/cli.js';
import { spawnMissive, type MissiveProcess } from '../support/missive-process.js';

let served: Sandbox;
let child: MissiveProcess;
const agents = new Map<string, string>();

beforeAll(async () => {
  served = sandbox();
  child = spawnMissive(['demo', 'serve'], served.env);
  await until('demo serve to be ready', () => child.stdout().includes('press Ctrl-C'), 20_000);
  for (const [, alias, url] of child.stdout().matchAll(/(demo-[a-z]+)\s+(http:\/\/127\.0\.0\.1:\d+)/g)) agents.set(alias!, url!);
}, 30_000);
afterAll(async () => {
  child.child.kill('SIGTERM');
  await child.exited;
  served.dispose();
});

/** A v0.3 SDK client of the agent, made from its card, preferring one transport (as a v0.3 framework configures it). */
const v03Client = (alias: string, transport: 'JSONRPC' | 'HTTP+JSON') =>
  new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] })).createFromUrl(agents.get(alias)!);

const userMessage = (text: string) => ({
  message: { kind: 'message' as const, messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text }] },
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('an SDK v0.3 client over %s', (transport) => {
  it('sends a message and gets the completed task back by id', async () => {
    const client = await v03Client('demo-tasks', transport);
    const sent = await client.sendMessage(userMessage('summarise the minutes'));
    expect(sent).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const task = sent as { id: string; artifacts?: Array<{ parts: Array<{ kind: string; text?: string }> }> };
    expect(task.artifacts?.[0]?.parts[0]).toMatchObject({ kind: 'text', text: 'result for: summarise the minutes' });
    const got = await client.getTask({ id: task.id });
    expect(got).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
  });

  it('streams a task: its status, every appended chunk, and the final state', async () => {
    const client = await v03Client('demo-stream', transport);
    const events: Array<{ kind: string; status?: { state: string }; artifact?: { parts: Array<{ text?: string }> } }> = [];
    for await (const event of client.sendMessageStream(userMessage('a poem'))) {
      events.push(event as (typeof events)[number]);
      if (events.length > 50) break;
    }
    const chunks = events.filter((e) => e.kind === 'artifact-update').map((e) => e.artifact!.parts[0]!.text);
    expect(chunks).toEqual([1, 2, 3, 4].map((i) => `chunk ${i} of 4 for: a poem\n`));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
  });
});

describe('the same demo agents and a v1.0 client', () => {
  it('missive (A2A 1.0) still sends on each binding it registered', async () => {
    for (const binding of ['json-rpc', 'http+json']) {
      const sent = await served.run(['send', 'demo-tasks', 'hello', '--binding', binding, '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.json().data.task.state).toBe('completed');
      expect(sent.json().data.selected_interface).toMatchObject({ binding, protocol_version: '1.0' });
    }
  });
});
