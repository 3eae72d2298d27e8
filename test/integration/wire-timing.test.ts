/**
 * `--show-wire` and the GUI's wire view time the exchange only: from the request being written on a connection to the
 * last byte read. Loading code first (undici, loaded on the first request) and connecting are not counted. Here every
 * load of undici is made slow (the clock moves on before the module is handed over), and in the GUI every new
 * connection too; on every HTTP wire — 1.0 HTTP+JSON and JSON-RPC, v0.3 JSON-RPC and HTTP+JSON through the SDK — each
 * exchange must start after the last load and the last connection before the request reached the peer, no later than
 * that arrival, and end no earlier than the peer answered. Orderings, not durations: nothing here depends on how fast
 * the machine is.
 */
import { Agent, buildConnector } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WireExchange } from '../../shared/ipc/contract.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

/** Wall-clock times (ms) at which a load of undici handed the module over. */
const loads = vi.hoisted(() => [] as number[]);

vi.mock('../../electron/core/a2a/undici.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../electron/core/a2a/undici.js')>();
  return {
    ...real,
    // A slow load: the module is handed over only once the wall clock has moved at least 2 ms past the call.
    loadUndici: async () => {
      const module = await real.loadUndici();
      const called = Date.now();
      for (let turn = 0; turn < 1_000_000 && Date.now() < called + 2; turn++) await new Promise((resolve) => setImmediate(resolve));
      loads.push(Date.now());
      return module;
    },
  };
});

/** When each request reached the peer (its whole body read) and when the peer wrote its answer, by path. */
const seen: Array<{ path: string; arrived: number; answered: number }> = [];

let server: RawServer;
let box: Sandbox;

const agentMessage = { messageId: 'm-answer', role: 'ROLE_AGENT', parts: [{ text: 'at once' }] };
const legacyMessage = { kind: 'message', messageId: 'm-answer', role: 'agent', parts: [{ kind: 'text', text: 'at once' }] };
/** v0.3 HTTP+JSON speaks the protobuf JSON form: a SendMessageResponse / StreamResponse with its `msg`. */
const legacyRestMessage = { msg: { messageId: 'm-answer', role: 'ROLE_AGENT', content: [{ text: 'at once' }] } };

/** A route that notes the request's arrival and answers at once (an SSE body of one event for a stream). */
function answer(path: string, body: (requestBody: string) => { sse: boolean; text: string }) {
  server.route(path, (_req, res, requestBody) => {
    const arrived = Date.now();
    const { sse, text } = body(requestBody);
    seen.push({ path, arrived, answered: Date.now() });
    // Closed after each answer: every request is written on a connection of its own.
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json', connection: 'close' }).end(sse ? `data: ${text}\n\n` : text);
  });
}

const CLOSE = { connection: 'close' };

const legacyCard = (url: string, transport: string) => ({
  name: 'Legacy',
  description: 'v0.3 peer',
  version: '0.0.1',
  protocolVersion: '0.3.0',
  url,
  preferredTransport: transport,
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

beforeAll(async () => {
  server = await startRawServer();
  const url = server.url;
  const card = (path: string, binding: string) =>
    minimalCard(url, { supportedInterfaces: [{ url: `${url}${path}`, protocolBinding: binding, protocolVersion: '1.0' }], capabilities: { streaming: true } });
  server.route('/rest/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/rest/a2a', 'HTTP+JSON'), CLOSE));
  answer('/rest/a2a/message:send', () => ({ sse: false, text: JSON.stringify({ message: agentMessage }) }));
  answer('/rest/a2a/message:stream', () => ({ sse: true, text: JSON.stringify({ message: agentMessage }) }));
  server.route('/rpc/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/rpc/a2a', 'JSONRPC'), CLOSE));
  answer('/rpc/a2a', (body) => {
    const { id, method } = JSON.parse(body);
    return { sse: method === 'SendStreamingMessage', text: JSON.stringify({ jsonrpc: '2.0', id, result: { message: agentMessage } }) };
  });
  server.route('/v03rpc/.well-known/agent-card.json', (_req, res) => json(res, 200, legacyCard(`${url}/v03rpc/a2a`, 'JSONRPC'), CLOSE));
  answer('/v03rpc/a2a', (body) => {
    const { id, method } = JSON.parse(body);
    return { sse: method === 'message/stream', text: JSON.stringify({ jsonrpc: '2.0', id, result: legacyMessage }) };
  });
  server.route('/v03rest/.well-known/agent-card.json', (_req, res) => json(res, 200, legacyCard(`${url}/v03rest/a2a`, 'HTTP+JSON'), CLOSE));
  answer('/v03rest/a2a/v1/message:send', () => ({ sse: false, text: JSON.stringify(legacyRestMessage) }));
  answer('/v03rest/a2a/v1/message:stream', () => ({ sse: true, text: JSON.stringify(legacyRestMessage) }));
});
afterAll(() => server.close());
beforeEach(() => void (box = sandbox()));
afterEach(() => box.dispose());

/**
 * The exchange was timed from after the last load of undici before the request reached the peer (so no load is in
 * it), from no later than that arrival, and until no earlier than the peer's answer.
 */
function expectTimedExchangeOnly(exchange: WireExchange, path: string): void {
  const peer = seen.filter((s) => s.path === path).at(-1)!;
  expect(peer, `a request reached ${path}`).toBeDefined();
  const started = Date.parse(exchange.started_at);
  const lastLoad = Math.max(...loads.filter((at) => at <= peer.arrived));
  expect(Number.isFinite(lastLoad), 'undici was loaded before the request left').toBe(true);
  expect(started, `${exchange.operation} to ${path}: started before undici was loaded`).toBeGreaterThanOrEqual(lastLoad);
  expect(started).toBeLessThanOrEqual(peer.arrived);
  // started_at is whole milliseconds and duration_ms rounded: a millisecond either way.
  expect(started + exchange.duration_ms! + 2).toBeGreaterThanOrEqual(peer.answered);
}

const WIRES = [
  ['1.0 HTTP+JSON', '/rest', { send: '/rest/a2a/message:send', stream: '/rest/a2a/message:stream' }],
  ['1.0 JSON-RPC', '/rpc', { send: '/rpc/a2a', stream: '/rpc/a2a' }],
  ['v0.3 JSON-RPC (SDK)', '/v03rpc', { send: '/v03rpc/a2a', stream: '/v03rpc/a2a' }],
  ['v0.3 HTTP+JSON (SDK)', '/v03rest', { send: '/v03rest/a2a/v1/message:send', stream: '/v03rest/a2a/v1/message:stream' }],
] as const;

describe('--show-wire times the exchange, not the loading of code', () => {
  for (const [name, path, target] of WIRES) {
    it(`${name}: send and stream`, async () => {
      expect((await box.run(['agent', 'add', 'peer', `${server.url}${path}`])).code).toBe(0);
      for (const command of ['send', 'stream'] as const) {
        loads.length = 0;
        const res = await box.run([command, 'peer', 'hi', '--show-wire', '--json']);
        expect(res.code, res.stderr).toBe(0);
        const wire = res.json().data.wire as WireExchange[];
        expect(wire.map((e) => e.request.url)).toEqual([`${server.url}${target[command]}`]);
        expectTimedExchangeOnly(wire[0]!, target[command]);
      }
    });
  }
});

describe('the GUI wire view (messages.send|stream with wire: true) times from the write, not the connecting', () => {
  /** Wall-clock times (ms) at which the test's connector handed a new connection over. */
  const connected: number[] = [];
  /** Every connection is slow to be handed over: the clock moves on at least 2 ms once it is made. */
  const connect = buildConnector({});
  const slowToConnect = new Agent({
    connect: (options, callback) =>
      connect(options, (error, socket) => {
        const made = Date.now();
        const handOver = async () => {
          for (let turn = 0; turn < 1_000_000 && Date.now() < made + 2; turn++) await new Promise((resolve) => setImmediate(resolve));
          connected.push(Date.now());
          if (error) callback(error, null);
          else callback(null, socket!);
        };
        void handOver();
      }),
  });
  afterAll(() => slowToConnect.close());

  for (const [name, path, target] of WIRES) {
    it(`${name}: send and stream each start on their own connection, after it was made`, async () => {
      expect((await box.run(['agent', 'add', 'peer', `${server.url}${path}`])).code).toBe(0);
      const core: Core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets, dispatcher: slowToConnect });
      const registry: Registry = createRegistry({ core, cwd: box.home, emit: () => undefined });
      try {
        for (const command of ['send', 'stream'] as const) {
          loads.length = 0;
          connected.length = 0;
          const result = await registry.invoke(command === 'send' ? 'messages.send' : 'messages.stream', {
            agent: 'peer',
            inputs: { text: 'from the console' },
            wire: true,
          });
          if (!result.ok) throw new Error(result.error.message);
          const wire = result.data.wire!;
          expect(wire.map((e) => e.request.url)).toEqual([`${server.url}${target[command]}`]);
          const exchange = wire[0]!;
          expectTimedExchangeOnly(exchange, target[command]);
          // Every answer closes its connection, so this request had a connection of its own, made before it was written.
          const arrived = seen.filter((s) => s.path === target[command]).at(-1)!.arrived;
          const lastConnection = Math.max(...connected.filter((at) => at <= arrived));
          expect(
            Date.parse(exchange.started_at),
            `${exchange.operation} to ${target[command]}: timed from before its connection was made`,
          ).toBeGreaterThanOrEqual(lastConnection);
        }
      } finally {
        await registry.dispose();
        core.close();
      }
    });
  }
});
