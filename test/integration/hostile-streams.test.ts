/**
 * Bounded input from hostile agents on every wire (issue 32, findings 8, 9 and 14):
 * (a) an SSE line or event that never ends is refused at 16 MiB, the answer cap, with `protocol::event_too_large`
 *     (exit 76) and the connection closed, instead of being buffered until the heap runs out;
 * (b) a stream of valid events stops at `[qos] max_stream_bytes` / `max_stream_events` with `protocol::stream_too_large`
 *     (exit 76): in `missive stream`, in a `job start stream` run by the gateway, in the gateway's task subscriptions and
 *     in the GUI's streaming send (the IPC handler); what was journaled so far stays, and the database stays small;
 * (c) an answer holding more JSON objects and arrays than `[qos] max_answer_objects` (150,000 one-part artifacts) is a
 *     protocol error (`protocol::too_many_objects`, exit 76) before it is decoded, not hundreds of MB of memory.
 * The peers (test/support/flood-peers.ts) stop writing once missive closes the connection, and are bounded anyway.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import {
  artifactUpdate,
  flood,
  manyArtifactsTask,
  startFloodGrpcPeer,
  workingTask,
  workingUpdate,
  type FloodGrpcPeer,
  type Flooded,
} from '../support/flood-peers.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry } from '../../electron/core/ipc/registry.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';

const MiB = 1024 * 1024;
/** How far a flood of one unfinished line goes at most (4× the cap): missive must leave well before. */
const LINE_FLOOD_BYTES = 64 * MiB;
/** How many valid events a flood sends at most, and their size: about 19 MiB in all. */
const FLOOD_EVENTS = 300;
const EVENT_SIZE = 64 * 1024;

let server: RawServer;
let grpcPeer: FloodGrpcPeer;
let box: Sandbox;
/** Every flood a peer ran, by route, in order. */
const floods: Array<{ route: string; result: Flooded }> = [];

const recorded = (route: string, res: ServerResponse, run: (res: ServerResponse) => Promise<Flooded>) =>
  void run(res).then((result) => floods.push({ route, result }));
const lastFlood = (route: string) => floods.filter((f) => f.route === route).at(-1)?.result;

/** The JSON-RPC id of a request body. */
const idOf = (body: string) => JSON.stringify(JSON.parse(body).id);

beforeAll(async () => {
  server = await startRawServer();
  grpcPeer = await startFloodGrpcPeer();
  const url = server.url;
  const card = (path: string, binding: string) =>
    minimalCard(url, {
      supportedInterfaces: [{ url: `${url}${path}/a2a`, protocolBinding: binding, protocolVersion: '1.0' }],
      capabilities: { streaming: true },
    });
  const legacyCard = (path: string) => ({
    name: 'Legacy flood',
    description: 'v0.3 peer',
    version: '0.0.1',
    protocolVersion: '0.3.0',
    url: `${url}${path}/a2a`,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  });
  for (const path of ['/line-rest', '/lines-rest', '/flood-rest', '/tiny-rest', '/many-rest'])
    server.route(`${path}/.well-known/agent-card.json`, (_req, res) => json(res, 200, card(path, 'HTTP+JSON')));
  for (const path of ['/line-rpc', '/flood-rpc', '/many-rpc'])
    server.route(`${path}/.well-known/agent-card.json`, (_req, res) => json(res, 200, card(path, 'JSONRPC')));
  for (const path of ['/line-v03', '/flood-v03', '/many-v03'])
    server.route(`${path}/.well-known/agent-card.json`, (_req, res) => json(res, 200, legacyCard(path)));

  // (a) One data line that never ends (no newline), on each SSE wire; and data lines without the blank line that ends an event.
  const endless = () => 'x'.repeat(64 * 1024);
  server.route('/line-rest/a2a/message:stream', (_req, res) => recorded('line-rest', res, (r) => flood(r, 'data: {"task":{"id":"', endless, LINE_FLOOD_BYTES)));
  server.route('/line-rpc/a2a', (_req, res) =>
    recorded('line-rpc', res, (r) => flood(r, 'data: {"jsonrpc":"2.0","result":{"task":{"id":"', endless, LINE_FLOOD_BYTES)),
  );
  server.route('/line-v03/a2a', (_req, res) =>
    recorded('line-v03', res, (r) => flood(r, 'data: {"jsonrpc":"2.0","result":{"kind":"task","id":"', endless, LINE_FLOOD_BYTES)),
  );
  server.route('/lines-rest/a2a/message:stream', (_req, res) =>
    recorded('lines-rest', res, (r) => flood(r, ': no blank line follows\n', () => `data: ${'x'.repeat(1024)}\n`, LINE_FLOOD_BYTES)),
  );

  // (b) Valid events without end: a working task, then 64 KiB artifact updates (or tiny status updates).
  const events =
    (taskId: string, event: (i: number) => string, wrap = (e: string) => e, count = FLOOD_EVENTS) =>
    (r: ServerResponse) =>
      flood(
        r,
        `data: ${wrap(JSON.stringify({ task: workingTask(taskId) }))}\n\n`,
        (i) => (i < count ? `data: ${wrap(event(i))}\n\n` : null),
        Number.MAX_SAFE_INTEGER,
      );
  server.route('/flood-rest/a2a/message:stream', (_req, res) =>
    recorded(
      'flood-rest',
      res,
      events('t-flood', (i) => artifactUpdate('t-flood', i, EVENT_SIZE)),
    ),
  );
  // The gateway follows t-follow (sent with message:send) with SubscribeToTask: the subscription floods.
  server.route('/flood-rest/a2a/message:send', (_req, res) => json(res, 200, { task: workingTask('t-follow') }));
  server.route('/flood-rest/a2a/tasks/t-follow:subscribe', (_req, res) =>
    recorded(
      'flood-subscribe',
      res,
      events('t-follow', (i) => artifactUpdate('t-follow', i, EVENT_SIZE)),
    ),
  );
  server.route('/tiny-rest/a2a/message:stream', (_req, res) =>
    recorded(
      'tiny-rest',
      res,
      events('t-tiny', () => workingUpdate('t-tiny'), undefined, 500_000),
    ),
  );
  server.route('/flood-rpc/a2a', (_req, res, body) =>
    recorded(
      'flood-rpc',
      res,
      events(
        't-rpc',
        (i) => artifactUpdate('t-rpc', i, EVENT_SIZE),
        (e) => `{"jsonrpc":"2.0","id":${idOf(body)},"result":${e}}`,
      ),
    ),
  );
  server.route('/flood-v03/a2a', (_req, res, body) => {
    const wrap = (result: unknown) => `{"jsonrpc":"2.0","id":${idOf(body)},"result":${JSON.stringify(result)}}`;
    const ids = { taskId: 't-v03', contextId: 'c-t-v03' };
    recorded('flood-v03', res, (r) =>
      flood(
        r,
        `data: ${wrap({ kind: 'task', id: 't-v03', contextId: 'c-t-v03', status: { state: 'working' } })}\n\n`,
        (i) =>
          i < FLOOD_EVENTS
            ? `data: ${wrap({ kind: 'artifact-update', ...ids, artifact: { artifactId: `a-${i}`, parts: [{ kind: 'text', text: 'y'.repeat(EVENT_SIZE) }] }, lastChunk: true })}\n\n`
            : null,
        Number.MAX_SAFE_INTEGER,
      ),
    );
  });

  // (c) 150,000 one-part artifacts in one answer (7 MB, well under the 16 MiB cap).
  const many = manyArtifactsTask('t-many', 150_000);
  server.route('/many-rest/a2a/message:send', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"task":${many}}`));
  server.route(
    '/many-rest/a2a/message:stream',
    (_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: {"task":${many}}\n\n`),
  );
  server.route(
    '/many-rpc/a2a',
    (_req, res, body) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${idOf(body)},"result":{"task":${many}}}`),
  );
  // 2,000 artifacts (about 6,000 objects and arrays): over a small configured limit, under a raised one.
  server.route('/some-rest/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/some-rest', 'HTTP+JSON')));
  server.route(
    '/some-rest/a2a/message:send',
    (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"task":${manyArtifactsTask('t-some', 2_000)}}`),
  );
  const legacyMany = many
    .replace('"TASK_STATE_COMPLETED"', '"completed"')
    .replaceAll('{"text":"x"}', '{"kind":"text","text":"x"}')
    .replace('{"id"', '{"kind":"task","id"');
  server.route(
    '/many-v03/a2a',
    (_req, res, body) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${idOf(body)},"result":${legacyMany}}`),
  );
});
afterAll(async () => {
  await grpcPeer.close();
  await server.close();
});
beforeEach(() => {
  box = sandbox();
  floods.length = 0;
  server.requests.length = 0;
});
afterEach(() => box.dispose());

/** Writes the sandbox's config file with these `[qos]` lines. */
function qos(lines: string): void {
  mkdirSync(join(box.home, 'config'), { recursive: true });
  writeFileSync(join(box.home, 'config', 'config.toml'), `schema_version = "missive.config.v1"\n\n[qos]\n${lines}\n`);
}

/** The bytes of the profile's SQLite files (database, -wal, -shm). */
function dbBytes(): number {
  const dir = join(box.home, 'state/profiles/default');
  return readdirSync(dir)
    .filter((f) => f.startsWith('missive.sqlite3'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function add(alias: string, path: string, extra: string[] = []): Promise<void> {
  const res = await box.run(['agent', 'add', alias, `${server.url}${path}`, ...extra]);
  expect(res.code, res.stderr).toBe(0);
}

/** The command failed with exit 76 and `code`, on one line, without a stack trace; returns the error. */
function expectRefused(res: { code: number; stderr: string }, code: string): { code: string; message: string; help?: string } {
  expect(res.code, res.stderr.slice(0, 500)).toBe(76);
  const err = JSON.parse(res.stderr).data;
  expect(err.code).toBe(`missive::protocol::${code}`);
  expect(res.stderr).not.toMatch(/\n\s+at /);
  return err;
}

const journal = async (type: string): Promise<any[]> => {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '10000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events;
};

describe('(a) an SSE line or event that never ends', () => {
  for (const [name, route, extra] of [
    ['HTTP+JSON', 'line-rest', []],
    ['JSON-RPC', 'line-rpc', []],
    ['v0.3 JSON-RPC (through the SDK)', 'line-v03', []],
    ['HTTP+JSON, data lines without the blank line', 'lines-rest', []],
  ] as const) {
    it(`is refused at 16 MiB with event_too_large and the connection closed (${name})`, async () => {
      await add('endless', `/${route}`, [...extra]);
      const res = await box.run(['stream', 'endless', 'hi', '--timeout', '20s', '--json']);
      const err = expectRefused(res, 'event_too_large');
      expect(err.message).toContain('"endless"');
      expect(err.message).toContain('16 MiB');
      // missive left: the peer did not reach its own bound (64 MiB), and stopped at about the cap.
      const flooded = await until(() => lastFlood(route));
      expect(flooded.clientLeft).toBe(true);
      expect(flooded.bytes).toBeLessThan(32 * MiB);
      // The failure is journaled and the profile still works.
      expect((await journal('a2a.stream.failed')).map((e) => e.payload.error.code)).toEqual(['missive::protocol::event_too_large']);
      expect((await box.run(['task', 'list', '--json'])).code).toBe(0);
    });
  }

  it('refuses a gRPC message over grpc-js’s 4 MiB receive limit as event_too_large', async () => {
    expect((await box.run(['agent', 'add', 'g', grpcPeer.baseUrl, '--trust-origin', `http://${grpcPeer.grpcTarget}`])).code).toBe(0);
    const res = await box.run(['stream', 'g', `flood 1 ${5 * MiB}`, '--timeout', '20s', '--json']);
    expectRefused(res, 'event_too_large');
  });
});

describe('(b) a stream of valid events beyond the budget', () => {
  const budget = 'max_stream_bytes = 1048576';

  for (const [name, path, route] of [
    ['HTTP+JSON', '/flood-rest', 'flood-rest'],
    ['JSON-RPC', '/flood-rpc', 'flood-rpc'],
    ['v0.3 JSON-RPC (through the SDK)', '/flood-v03', 'flood-v03'],
  ] as const) {
    it(`stops at [qos] max_stream_bytes with stream_too_large, keeps what was journaled, and the database stays small (${name})`, async () => {
      qos(budget);
      await add('flood', path);
      const res = await box.run(['stream', 'flood', 'go', '--timeout', '20s', '--json']);
      const err = expectRefused(res, 'stream_too_large');
      expect(err.message).toContain('"flood"');
      expect(err.message).toContain('max_stream_bytes = 1048576');
      expect(err.help).toContain('[qos] max_stream_bytes');
      const flooded = await until(() => lastFlood(route));
      expect(flooded.clientLeft).toBe(true);
      expect(flooded.bytes).toBeLessThan(8 * MiB);
      // What arrived before the limit is journaled, and consistent: the task and the artifacts received.
      const [failed] = await journal('a2a.stream.failed');
      expect(failed.payload.error.code).toBe('missive::protocol::stream_too_large');
      const received = failed.payload.events_received as number;
      expect(received).toBeGreaterThan(1);
      expect(received).toBeLessThan(20);
      expect(await journal('a2a.stream.artifact_update')).toHaveLength(received - 1);
      const tasks = await box.run(['task', 'list', '--json']);
      expect(tasks.json().data.tasks).toMatchObject([{ state: 'working' }]);
      expect(dbBytes()).toBeLessThan(8 * MiB);
    });
  }

  it('stops at [qos] max_stream_events with stream_too_large', async () => {
    qos('max_stream_events = 50');
    await add('tiny', '/tiny-rest');
    const res = await box.run(['stream', 'tiny', 'go', '--timeout', '20s', '--json']);
    const err = expectRefused(res, 'stream_too_large');
    expect(err.message).toContain('max_stream_events = 50');
    expect((await until(() => lastFlood('tiny-rest'))).clientLeft).toBe(true);
    expect((await journal('a2a.stream.failed'))[0].payload.events_received).toBe(50);
    expect(await journal('a2a.stream.status_update')).toHaveLength(49);
  });

  it('stops a gRPC stream at [qos] max_stream_bytes', async () => {
    qos(budget);
    expect((await box.run(['agent', 'add', 'g', grpcPeer.baseUrl, '--trust-origin', `http://${grpcPeer.grpcTarget}`])).code).toBe(0);
    const res = await box.run(['stream', 'g', `flood ${FLOOD_EVENTS} ${EVENT_SIZE}`, '--timeout', '20s', '--json']);
    const err = expectRefused(res, 'stream_too_large');
    expect(err.message).toContain('"g"');
    const received = (await journal('a2a.stream.failed'))[0].payload.events_received as number;
    expect(received).toBeLessThan(20);
    expect(dbBytes()).toBeLessThan(8 * MiB);
  });

  it('fails a `job start stream` run by the gateway at once (not retried: the message is not sent again)', async () => {
    qos(budget);
    await add('flood', '/flood-rest');
    const started = await box.run(['job', 'start', 'stream', 'flood', 'go', '--max-attempts', '3', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    try {
      await runGateway(core, { once: true, intervalMs: 100 });
    } finally {
      core.close();
    }
    const shown = await box.run(['job', 'show', started.json().data.job_id, '--json']);
    const job = shown.json().data;
    expect(job).toMatchObject({ state: 'failed', attempts: 1 });
    expect(JSON.stringify(job)).toContain('stream_too_large');
    // Sent once, and left once the budget was spent.
    expect(server.requests.filter((r) => r.path === '/flood-rest/a2a/message:stream')).toHaveLength(1);
    expect((await until(() => lastFlood('flood-rest'))).clientLeft).toBe(true);
    expect(dbBytes()).toBeLessThan(8 * MiB);
  });

  it('fails the gateway’s subscription to a task at once, with the agent, the limit and the key', async () => {
    qos(budget);
    await add('flood', '/flood-rest');
    const sent = await box.run(['send', 'flood', 'start', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    try {
      await runGateway(core, { once: true, intervalMs: 100 });
      // A later run does not follow the task again: its job failed, the subscription is not re-opened.
      await runGateway(core, { once: true, intervalMs: 100 });
    } finally {
      core.close();
    }
    expect(server.requests.filter((r) => r.path === '/flood-rest/a2a/tasks/t-follow:subscribe')).toHaveLength(1);
    const [job] = readDb(box, (db) => db.prepare(`SELECT kind, state, last_error FROM gateway_jobs WHERE task_id = 't-follow'`).all()) as any[];
    expect(job).toMatchObject({ kind: 'task_subscription', state: 'failed' });
    expect(job.last_error).toContain('"flood"');
    expect(job.last_error).toContain('max_stream_bytes = 1048576');
    expect((await until(() => lastFlood('flood-subscribe'))).clientLeft).toBe(true);
    const updates = await journal('a2a.subscription.artifact_update');
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.length).toBeLessThan(20);
    expect(dbBytes()).toBeLessThan(8 * MiB);
  });

  it('stops the GUI’s streaming send (the messages.stream IPC handler) with stream_too_large', async () => {
    qos(budget);
    await add('flood', '/flood-rest');
    const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    const emitted: unknown[] = [];
    try {
      const registry = createRegistry({ core, cwd: box.home, emit: (channel, payload) => void (channel === 'messages.stream.event' && emitted.push(payload)) });
      const result = await registry.invoke('messages.stream', { agent: 'flood', inputs: { text: 'go' } });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error).toMatchObject({ code: 'missive::protocol::stream_too_large', exit_code: 76 });
      expect(result.error.message).toContain('max_stream_bytes');
      expect(emitted.length).toBeGreaterThan(1);
      expect(emitted.length).toBeLessThan(20);
    } finally {
      core.close();
    }
    expect(dbBytes()).toBeLessThan(8 * MiB);
  });
});

describe('(c) an answer that would amplify in memory', () => {
  for (const [name, path] of [
    ['HTTP+JSON', '/many-rest'],
    ['JSON-RPC', '/many-rpc'],
    ['v0.3 JSON-RPC (through the SDK)', '/many-v03'],
  ] as const) {
    it(`refuses 150,000 one-part artifacts with too_many_objects, and records none of them (${name})`, async () => {
      await add('many', path);
      const err = expectRefused(await box.run(['send', 'many', 'hi', '--json']), 'too_many_objects');
      expect(err.message).toContain('"many"');
      expect(err.message).toContain('max_answer_objects = 100000');
      expect(err.help).toContain('[qos] max_answer_objects');
      const tasks = await box.run(['task', 'list', '--json']);
      expect(tasks.code).toBe(0);
      expect(tasks.json().data.tasks).toEqual([]);
    });
  }

  it('refuses such a stream event too', async () => {
    await add('many', '/many-rest');
    expectRefused(await box.run(['stream', 'many', 'hi', '--json']), 'too_many_objects');
  });

  it('refuses such a gRPC answer (decoded by the SDK within grpc-js’s 4 MiB), before missive reads or records it', async () => {
    // A small limit keeps the peer's encoding quick: 2,000 artifacts are 6,000 objects and arrays.
    qos('max_answer_objects = 5000');
    expect((await box.run(['agent', 'add', 'g', grpcPeer.baseUrl, '--trust-origin', `http://${grpcPeer.grpcTarget}`])).code).toBe(0);
    expect(expectRefused(await box.run(['send', 'g', 'many 2000', '--json']), 'too_many_objects').message).toContain('max_answer_objects = 5000');
    expect((await box.run(['task', 'list', '--json'])).json().data.tasks).toEqual([]);
  });

  it('follows [qos] max_answer_objects: refused under it, taken once it is raised', async () => {
    qos('max_answer_objects = 5000');
    await add('some', '/some-rest');
    const err = expectRefused(await box.run(['send', 'some', 'hi', '--json']), 'too_many_objects');
    expect(err.message).toContain('max_answer_objects = 5000');
    qos('max_answer_objects = 10000');
    const res = await box.run(['send', 'some', 'hi', '--json']);
    expect(res.code, res.stderr.slice(0, 300)).toBe(0);
    expect(res.json().data.task.artifacts).toHaveLength(2_000);
  });
});

/** Waits (bounded) for a flood to end: the peer notices the closed connection a moment after missive returns. */
async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the peer never finished its flood');
}
