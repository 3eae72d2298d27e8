/**
 * `missive conformance <agent>` against real peers: an SDK agent on all three bindings (all green, exit 0), the same
 * agent behind a card whose JSON-RPC interface is a raw server answering garbage (that column fails, exit 76), a
 * v0.3 SDK peer behind bearer auth (0.3 dialect, ListTasks not in 0.3, the token never shown or stored),
 * GetExtendedAgentCard behind bearer auth, `--include-send`, and the `agents.conformance` IPC channel.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { startSignedAgent } from '../support/signed-agent.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry } from '../../electron/core/ipc/registry.js';

const TOKEN = 'conformance-bearer-token-0123456789';
const READS = [
  'GetTask',
  'CancelTask',
  'SubscribeToTask',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
];

let fleet: Awaited<ReturnType<typeof startAgents>>;
let peer: LegacyPeer;
let raw: RawServer;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({
    full: { behaviour: 'echo', grpc: true, streaming: true, pushNotifications: true },
    plain: { behaviour: 'echo', streaming: false },
  });
  peer = await startV03Peer({ bearer: TOKEN });
  // A card listing the SDK agent's HTTP+JSON and gRPC interfaces, and a JSON-RPC URL that answers garbage.
  raw = await startRawServer();
  const full = fleet.agents.full!;
  raw.route('/.well-known/agent-card.json', (_req, res) =>
    json(
      res,
      200,
      minimalCard(raw.url, {
        name: 'half-broken',
        capabilities: { streaming: true, pushNotifications: true },
        supportedInterfaces: [
          { url: full.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          { url: `${raw.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: full.grpcTarget, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ],
      }),
    ),
  );
  raw.route('/rpc', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('<<not json>>'));
});
afterAll(async () => {
  await fleet.close();
  await peer.close();
  await raw.close();
});
beforeEach(() => (box = sandbox({ PEER_TOKEN: TOKEN })));
afterEach(() => box.dispose());

const cellsOf = (data: any, column: string) => Object.fromEntries(data.interfaces.find((i: any) => i.id === column).cells.map((c: any) => [c.operation, c]));

describe('missive conformance', () => {
  it('reports all green for an SDK agent on HTTP+JSON, JSON-RPC and gRPC, and journals no call', async () => {
    expect((await box.run(['agent', 'add', 'full', fleet.agents.full!.baseUrl])).code).toBe(0);
    const res = await box.run(['conformance', 'full', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(res.json().kind).toBe('conformance');
    // The embedded agent also lists its HTTP URLs for v0.3 clients: missive probes them in the 0.3 dialect.
    expect(data.interfaces.map((i: any) => i.id)).toEqual(['http+json/1.0', 'json-rpc/1.0', 'grpc/1.0', 'json-rpc/0.3', 'http+json/0.3']);
    expect(data).toMatchObject({ passed: true, exit_code: 0, card: { name: 'full', format: '1.0' } });
    for (const column of ['json-rpc/0.3', 'http+json/0.3']) {
      const cells = cellsOf(data, column);
      for (const op of READS) expect(cells[op], `${column} ${op}`).toMatchObject({ status: 'ok', note: 'TaskNotFound', code: null });
      expect(cells.ListTasks).toMatchObject({ status: 'not_in_0.3' });
    }
    for (const column of ['http+json/1.0', 'json-rpc/1.0', 'grpc/1.0']) {
      const cells = cellsOf(data, column);
      for (const op of READS) expect(cells[op], `${column} ${op}`).toMatchObject({ status: 'ok', note: 'TaskNotFound', code: null });
      expect(cells.ListTasks).toMatchObject({ status: 'ok' });
      expect(cells.SendMessage).toMatchObject({ status: 'skipped' });
      expect(cells.SendStreamingMessage).toMatchObject({ status: 'skipped' });
      expect(cells.CreateTaskPushNotificationConfig).toMatchObject({ status: 'skipped' });
      expect(cells.GetExtendedAgentCard).toMatchObject({ status: 'not_advertised' });
      for (const c of Object.values(cells) as any[]) if (c.status === 'ok') expect(typeof c.latency_ms).toBe('number');
    }
    expect(data.summary).toMatchObject({ failed: 0, ok: 33 });
    // Read-only: no message, task or send event was recorded; only the card refresh.
    const { messages, tasks, types } = readDb(box, (db) => ({
      messages: (db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n,
      tasks: (db.prepare('SELECT COUNT(*) AS n FROM tasks').get() as { n: number }).n,
      types: (db.prepare('SELECT DISTINCT event_type FROM events').all() as { event_type: string }[]).map((r) => r.event_type),
    }));
    expect({ messages, tasks }).toEqual({ messages: 0, tasks: 0 });
    expect(types.filter((t) => !t.startsWith('missive.agent.') && !t.startsWith('a2a.agent_card.'))).toEqual([]);

    const human = await box.run(['conformance', 'full']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^operation\s+http\+json\/1\.0\s+json-rpc\/1\.0\s+grpc\/1\.0\s+json-rpc\/0\.3\s+http\+json\/0\.3$/m);
    expect(human.stdout).toMatch(/^GetTask(\s+ok \d+ ms){5}$/m);
    expect(human.stdout).toMatch(/^SendMessage(\s+skipped){5}$/m);
    expect(human.stdout).toContain('0 failed');
  });

  it('names the broken binding and exits 76 when one interface answers garbage', async () => {
    expect((await box.run(['agent', 'add', 'half', raw.url])).code).toBe(0);
    const res = await box.run(['conformance', 'half', '--json']);
    expect(res.code).toBe(76);
    const data = res.json().data;
    expect(data.passed).toBe(false);
    const broken = cellsOf(data, 'json-rpc/1.0');
    for (const op of [...READS.filter((o) => o !== 'SubscribeToTask'), 'ListTasks'])
      expect(broken[op], op).toMatchObject({ status: 'failed', code: 'missive::protocol::invalid_json' });
    expect(broken.SubscribeToTask).toMatchObject({ status: 'failed', code: 'missive::protocol::not_event_stream' });
    for (const column of ['http+json/1.0', 'grpc/1.0'])
      for (const c of data.interfaces.find((i: any) => i.id === column).cells) expect(c.status, `${column} ${c.operation}`).not.toBe('failed');
    const error = JSON.parse(res.stderr).data;
    expect(error).toMatchObject({ code: 'missive::protocol::conformance_failed', exit_code: 76 });
    expect(error.message).toContain('json-rpc/1.0 GetTask');

    const human = await box.run(['conformance', 'half']);
    expect(human.code).toBe(76);
    expect(human.stdout).toMatch(/^GetTask\s+ok \d+ ms\s+FAIL invalid_json \d+ ms\s+ok \d+ ms$/m);
    expect(human.stdout).toMatch(/Failures\n {2}json-rpc\/1\.0 GetTask: missive::protocol::invalid_json/);
  });

  it('marks capabilities the card does not advertise and counts only advertised cells', async () => {
    expect((await box.run(['agent', 'add', 'plain', fleet.agents.plain!.baseUrl])).code).toBe(0);
    const res = await box.run(['conformance', 'plain', '--json']);
    expect(res.code).toBe(0);
    const cells = cellsOf(res.json().data, 'http+json/1.0');
    expect(cells.SubscribeToTask).toMatchObject({ status: 'not_advertised' });
    expect(cells.GetTaskPushNotificationConfig).toMatchObject({ status: 'not_advertised' });
    expect(cells.GetTask).toMatchObject({ status: 'ok', note: 'TaskNotFound' });
  });

  it('probes a v0.3 peer in the 0.3 dialect, with its bearer auth, and never shows or stores the token', async () => {
    const add = await box.run(['agent', 'add', 'old', peer.baseUrl, '--trust-origin', `http://${peer.grpcTarget}`]);
    expect(add.code).toBe(0);
    const auth = ['--bearer-token-env', 'PEER_TOKEN'];
    const res = await box.run(['conformance', 'old', '--json', ...auth]);
    const data = res.json().data;
    expect(data.card.format).toBe('0.3');
    expect(data.interfaces.map((i: any) => i.id)).toEqual(['json-rpc/0.3', 'http+json/0.3', 'grpc/0.3']);
    for (const column of ['json-rpc/0.3', 'http+json/0.3', 'grpc/0.3']) {
      const cells = cellsOf(data, column);
      expect(cells.ListTasks).toMatchObject({ status: 'not_in_0.3' });
      expect(cells.GetTask, column).toMatchObject({ status: 'ok', note: 'TaskNotFound' });
      expect(cells.CancelTask, column).toMatchObject({ status: 'ok', note: 'TaskNotFound' });
    }
    for (const column of ['json-rpc/0.3', 'grpc/0.3'])
      for (const c of data.interfaces.find((i: any) => i.id === column).cells) expect(c.status, `${column} ${c.operation}`).not.toBe('failed');
    // The 0.3 SDK's own REST server answers SubscribeToTask of an unknown task with HTTP 500 and an A2A error object in
    // the body: the probe names the agent's error, with the code the same error has on JSON-RPC (issue 35).
    expect(cellsOf(data, 'http+json/0.3').SubscribeToTask).toMatchObject({ status: 'failed', code: 'missive::protocol::jsonrpc_error' });
    expect(res.code).toBe(76);
    // Without the token the peer refuses every HTTP call: the auth really went through the probe.
    const refused = (await box.run(['conformance', 'old', '--json'])).json().data;
    expect(cellsOf(refused, 'json-rpc/0.3').GetTask).toMatchObject({ status: 'failed' });
    expect(cellsOf(refused, 'http+json/0.3').GetTask).toMatchObject({ status: 'failed' });
    // The bearer token went to the peer and nowhere else.
    const human = await box.run(['conformance', 'old', '--include-send', ...auth]);
    for (const text of [res.stdout, res.stderr, human.stdout, human.stderr]) expect(text).not.toContain(TOKEN);
    for (const file of readdirSync(join(box.home, 'state/profiles/default'))) {
      expect(readFileSync(join(box.home, 'state/profiles/default', file)).includes(TOKEN), file).toBe(false);
    }
  });

  it('gives a card that lists one binding for A2A 1.0 and 0.3 a column for each dialect', async () => {
    const legacy = await startV03Peer();
    const both = await startRawServer();
    both.route('/.well-known/agent-card.json', (_req, res) =>
      json(
        res,
        200,
        minimalCard(both.url, {
          name: 'two-dialects',
          supportedInterfaces: [
            { url: fleet.agents.full!.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: legacy.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
          ],
        }),
      ),
    );
    try {
      expect((await box.run(['agent', 'add', 'both', both.url])).code).toBe(0);
      const res = await box.run(['conformance', 'both', '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data.interfaces.map((i: any) => [i.id, i.url])).toEqual([
        ['json-rpc/1.0', fleet.agents.full!.jsonRpcUrl],
        ['json-rpc/0.3', legacy.jsonRpcUrl],
      ]);
      expect(cellsOf(data, 'json-rpc/1.0').ListTasks).toMatchObject({ status: 'ok' });
      expect(cellsOf(data, 'json-rpc/0.3').ListTasks).toMatchObject({ status: 'not_in_0.3' });
      for (const column of ['json-rpc/1.0', 'json-rpc/0.3'])
        expect(cellsOf(data, column).GetTask, column).toMatchObject({ status: 'ok', note: 'TaskNotFound' });
      // The 0.3 column's calls went to the 0.3 peer (which answers only the 0.3 wire: its TaskNotFound above proves it).
      expect(legacy.requests.some((r) => r.path === '/rpc' && r.method === 'POST')).toBe(true);
    } finally {
      await both.close();
      await legacy.close();
    }
  });

  it('calls GetExtendedAgentCard, with the agent auth, when the card advertises it', async () => {
    const signed = await startSignedAgent({ token: TOKEN, grpc: true });
    try {
      expect((await box.run(['agent', 'add', 'ext', signed.baseUrl, '--trust-origin', `http://${signed.grpcTarget}`])).code).toBe(0);
      const res = await box.run(['conformance', 'ext', '--json', '--bearer-token-env', 'PEER_TOKEN']);
      const data = res.json().data;
      expect(data.interfaces.map((i: any) => i.id)).toEqual(['http+json/1.0', 'json-rpc/1.0', 'grpc/1.0']);
      for (const column of ['http+json/1.0', 'json-rpc/1.0', 'grpc/1.0'])
        expect(cellsOf(data, column).GetExtendedAgentCard, column).toMatchObject({ status: 'ok' });
      expect(res.code).toBe(0);
      expect(res.stdout).not.toContain(TOKEN);
    } finally {
      await signed.close();
    }
  });

  it('sends one short message per interface with --include-send', async () => {
    expect((await box.run(['agent', 'add', 'full', fleet.agents.full!.baseUrl])).code).toBe(0);
    const res = await box.run(['conformance', 'full', '--include-send', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(data.include_send).toBe(true);
    for (const column of ['http+json/1.0', 'json-rpc/1.0', 'grpc/1.0']) {
      const cells = cellsOf(data, column);
      expect(cells.SendMessage, column).toMatchObject({ status: 'ok' });
      expect(cells.SendStreamingMessage, column).toMatchObject({ status: 'ok', note: expect.stringMatching(/^[1-9]\d* event\(s\)$/) });
    }
    const sent = fleet.agents.full!.requests.filter((r) => r.method === 'POST' && /message:send$|jsonrpc$/.test(r.path));
    expect(sent.length).toBeGreaterThanOrEqual(2);
  });
});

describe('agents.conformance (IPC)', () => {
  it('answers the same report through the registry', async () => {
    const home = mkdtempSync(join(tmpdir(), 'missive-conformance-'));
    const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
    const registry = createRegistry({ core, cwd: home, emit: () => undefined });
    try {
      expect((await registry.invoke('agents.add', { alias: 'half', baseUrl: raw.url })).ok).toBe(true);
      const result = await registry.invoke('agents.conformance', { alias: 'half' });
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      expect(result.data).toMatchObject({ alias: 'half', passed: false, exit_code: 76 });
      expect(result.data.interfaces.find((i) => i.id === 'json-rpc/1.0')!.cells.find((c) => c.operation === 'GetTask')).toMatchObject({
        status: 'failed',
        code: 'missive::protocol::invalid_json',
      });
      const unknown = await registry.invoke('agents.conformance', { alias: 'nobody' });
      expect(unknown.ok).toBe(false);
      if (!unknown.ok) expect(unknown.error.code).toBe('missive::validation::unknown_agent');
    } finally {
      await registry.dispose();
      core.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
