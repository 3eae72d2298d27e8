/**
 * Binding choice follows the card (v1.0 `supportedInterfaces` order, v0.3 `preferredTransport` first) unless the user
 * (`--binding`) or the agent's registration (`--binding-preference`) says otherwise; `--binding` on task get|list|
 * cancel|wait and push; push refused before any request when the card lacks `pushNotifications`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let v03: LegacyPeer;
let server: RawServer;
let box: Sandbox;

beforeAll(async () => {
  [fleet, v03, server] = await Promise.all([
    startAgents({ worker: { behaviour: 'slow', delayMs: 300, pushNotifications: true }, nopush: { behaviour: 'task' } }),
    startV03Peer({ preferred: 'JSONRPC', slowMs: 100 }),
    startRawServer(),
  ]);
  // A v1.0 card that lists JSON-RPC before HTTP+JSON.
  server.route('/rpc-first/.well-known/agent-card.json', (_req, res) =>
    json(res, 200, {
      ...minimalCard(server.url),
      supportedInterfaces: [
        { url: `${server.url}/rpc-first/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${server.url}/rpc-first/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    }),
  );
});
afterAll(() => Promise.all([fleet.close(), v03.close(), server.close()]));
beforeEach(() => {
  box = sandbox();
  for (const agent of Object.values(fleet.agents)) agent.requests.length = 0;
});
afterEach(() => box.dispose());

const selected = async (alias: string, ...flags: string[]) => (await box.run(['agent', 'inspect', alias, '--json', ...flags])).json().data.selected_interface;
/** The A2A routes (not the card) an SDK agent was called on: `/a2a/jsonrpc` or `/a2a/rest…`. */
const routes = (alias: keyof typeof fleet.agents) =>
  fleet.agents[alias]!.requests.filter((r) => r.path.startsWith('/a2a/')).map((r) => (r.path.startsWith('/a2a/jsonrpc') ? 'json-rpc' : 'http+json'));

describe('the binding follows the card', () => {
  it("takes a v1.0 card's first interface when the registration names no preference", async () => {
    expect((await box.run(['agent', 'add', 'rpcfirst', `${server.url}/rpc-first`])).code).toBe(0);
    expect(await selected('rpcfirst')).toMatchObject({ binding: 'json-rpc', url: `${server.url}/rpc-first/rpc` });
    const show = await box.run(['agent', 'show', 'rpcfirst', '--json']);
    expect(show.json().data.agent.binding_preference).toEqual([]);
  });

  it("takes a v0.3 card's preferredTransport first, and sends over it", async () => {
    expect((await box.run(['agent', 'add', 'legacy', v03.baseUrl])).code).toBe(0);
    expect(await selected('legacy')).toMatchObject({ binding: 'json-rpc', url: v03.jsonRpcUrl, dialect: '0.3' });
    const sent = await box.run(['send', 'legacy', 'echo hi', '--json']);
    expect(sent.code).toBe(0);
    expect(sent.json().data.selected_interface.binding).toBe('json-rpc');
  });

  it('lets the registration and --binding override the card', async () => {
    expect((await box.run(['agent', 'add', 'pref', `${server.url}/rpc-first`, '--binding-preference', 'http+json'])).code).toBe(0);
    expect(await selected('pref')).toMatchObject({ binding: 'http+json' });
    expect((await box.run(['agent', 'add', 'plain', `${server.url}/rpc-first`])).code).toBe(0);
    expect(await selected('plain', '--binding', 'http+json')).toMatchObject({ binding: 'http+json' });
  });
});

describe('--binding on task and push commands', () => {
  it('task get|list|cancel|wait and push create use the binding asked for', async () => {
    expect((await box.run(['agent', 'add', 'worker', fleet.agents.worker!.baseUrl])).code).toBe(0);
    const sent = await box.run(['send', 'worker', 'work', '--return-immediately', '--json']);
    expect(sent.code).toBe(0);
    expect(sent.json().data.selected_interface.binding).toBe('http+json');
    const taskId = sent.json().data.task.task_id as string;
    fleet.agents.worker!.requests.length = 0;

    const get = await box.run(['task', 'get', taskId, '--remote', '--binding', 'json-rpc', '--json']);
    expect(get.code, get.stderr).toBe(0);
    expect(routes('worker')).toEqual(['json-rpc']);

    const list = await box.run(['task', 'list', '--remote', '--agent', 'worker', '--binding', 'json-rpc', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(routes('worker')).toEqual(['json-rpc', 'json-rpc']);

    const push = await box.run(['push', 'create', 'worker', taskId, '--url', 'http://127.0.0.1:9/cb', '--binding', 'json-rpc', '--json']);
    expect(push.code, push.stderr).toBe(0);
    expect(routes('worker')).toEqual(['json-rpc', 'json-rpc', 'json-rpc']);

    const wait = await box.run(['task', 'wait', taskId, '--binding', 'json-rpc', '--interval', '100ms', '--json']);
    expect(wait.code, wait.stderr).toBe(0);
    expect(new Set(routes('worker'))).toEqual(new Set(['json-rpc']));

    const cancel = await box.run(['task', 'cancel', taskId, '--binding', 'json-rpc', '--json']);
    // The task is completed by now: what the agent answers is not the point, the binding it was asked on is.
    expect(cancel.stderr).not.toContain('unknown option');
    expect(new Set(routes('worker'))).toEqual(new Set(['json-rpc']));
  });
});

describe('push capability check', () => {
  it('refuses push on a card without pushNotifications before any request, and --force tries anyway', async () => {
    expect((await box.run(['agent', 'add', 'nopush', fleet.agents.nopush!.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'inspect', 'nopush'])).code).toBe(0);
    fleet.agents.nopush!.requests.length = 0;
    for (const args of [
      ['push', 'create', 'nopush', 'task-1', '--url', 'http://127.0.0.1:9/cb'],
      ['push', 'get', 'nopush', 'task-1', 'cfg-1'],
      ['push', 'list', 'nopush', 'task-1'],
      ['push', 'delete', 'nopush', 'task-1', 'cfg-1'],
    ]) {
      const refused = await box.run([...args, '--json']);
      expect(refused.code, args.join(' ')).toBe(64);
      expect(refused.stderr).toContain('missive::validation::push_not_supported');
      expect(refused.stderr).toContain('--force');
    }
    expect(routes('nopush')).toEqual([]);

    await box.run(['push', 'create', 'nopush', 'task-1', '--url', 'http://127.0.0.1:9/cb', '--force']);
    expect(routes('nopush')).toEqual(['http+json']);
  });
});
