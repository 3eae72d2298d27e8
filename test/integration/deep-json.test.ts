/**
 * An answer nested absurdly deep (50,000 levels, well under the size cap) is refused as a protocol error (exit 76,
 * `missive::protocol::too_deeply_nested`) wherever it comes from: the card, a unary answer or stream event on either
 * 1.0 binding, an HTTP error body, the v0.3 wires the SDK speaks, or a gRPC data part (a google.protobuf.Struct). It
 * used to overflow the stack (exit 70, "a bug in missive"). Nothing is half-written: the profile stays usable.
 */
import * as grpc from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

const DEPTH = 50_000;
/** A JSON value nested DEPTH arrays deep: about 100 KB. */
const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepTask = `{"id":"t-deep","contextId":"c-deep","status":{"state":"completed"},"metadata":{"x":${deep}}}`;

/** Protobuf bytes of `inner` inside one length-delimited field per entry of `fields` (outermost first); linear in size. */
function nested(fields: readonly number[], inner: Buffer): Buffer {
  const varint = (n: number, out?: Buffer, at = 0): number => {
    let size = 0;
    do {
      const byte = n > 0x7f ? (n & 0x7f) | 0x80 : n;
      if (out) out[at + size] = byte;
      size++;
      n >>>= 7;
    } while (n);
    return size;
  };
  const lengths = new Array<number>(fields.length);
  let length = inner.length;
  for (let i = fields.length - 1; i >= 0; i--) {
    lengths[i] = length;
    length += 1 + varint(length);
  }
  const out = Buffer.alloc(length);
  let at = 0;
  for (let i = 0; i < fields.length; i++) {
    out[at++] = (fields[i]! << 3) | 2;
    at += varint(lengths[i]!, out, at);
  }
  inner.copy(out, at);
  return out;
}
const stringField = (field: number, text: string) => nested([field], Buffer.from(text));
/** A gRPC SendMessageResponse / StreamResponse (`message` is field 2 of both): an agent message whose data part nests `depth` lists deep. */
function deepDataPartProto(depth = DEPTH): Buffer {
  // Value.list_value = 6, ListValue.values = 1, and so on down.
  const list = nested(
    Array.from({ length: depth * 2 }, (_, i) => (i % 2 ? 1 : 6)),
    Buffer.alloc(0),
  );
  // Part.data = 4 (a Value holding a Struct {x: list}): Value.struct_value = 5, Struct.fields = 1, entry key = 1, value = 2.
  const part = nested([4, 5, 1], Buffer.concat([stringField(1, 'x'), nested([2], list)]));
  // Message: message_id = 1, context_id = 2, role = 4 (ROLE_AGENT, a varint), parts = 5.
  return nested([2], Buffer.concat([stringField(1, 'm-deep'), stringField(2, 'c-deep'), Buffer.from([0x20, 0x02]), nested([5], part)]));
}

/** A gRPC A2A service that answers SendMessage and SendStreamingMessage with `answer(request)`, bytes as they are. */
async function startRawGrpc(answer: (request: Buffer) => Buffer): Promise<{ target: string; close(): void }> {
  const server = new grpc.Server();
  const raw = {
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  };
  server.addService(
    {
      SendMessage: { path: '/lf.a2a.v1.A2AService/SendMessage', requestStream: false, responseStream: false, ...raw },
      SendStreamingMessage: { path: '/lf.a2a.v1.A2AService/SendStreamingMessage', requestStream: false, responseStream: true, ...raw },
    },
    {
      SendMessage: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, answer(call.request)),
      SendStreamingMessage: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
        call.write(answer(call.request));
        call.end();
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { target: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

let server: RawServer;
let grpcPeer: Awaited<ReturnType<typeof startRawGrpc>>;
let box: Sandbox;

beforeAll(async () => {
  server = await startRawServer();
  // "shallow…" asks for 1,000 levels: few enough for the protobuf decoder, too many for what comes after it.
  const answers = { deep: deepDataPartProto(), shallow: deepDataPartProto(1_000) };
  grpcPeer = await startRawGrpc((request) => (request.includes('shallow') ? answers.shallow : answers.deep));
  const url = server.url;
  server.route('/grpc/.well-known/agent-card.json', (_req, res) =>
    json(
      res,
      200,
      minimalCard(url, { supportedInterfaces: [{ url: grpcPeer.target, protocolBinding: 'GRPC', protocolVersion: '1.0' }], capabilities: { streaming: true } }),
    ),
  );
  const card = (path: string, binding: string, extra: Record<string, unknown> = {}) =>
    minimalCard(url, {
      supportedInterfaces: [{ url: `${url}${path}`, protocolBinding: binding, protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      ...extra,
    });
  server.route(
    '/deep-card/.well-known/agent-card.json',
    (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"name":"deep","supportedInterfaces":[],"skills":${deep}}`),
  );
  server.route('/rest/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/rest/a2a', 'HTTP+JSON')));
  server.route('/rest/a2a/message:send', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(`{"task":${deepTask}}`));
  server.route(
    '/rest/a2a/message:stream',
    (_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: {"task":${deepTask}}\n\n`),
  );
  // An HTTP error status whose JSON error body nests too deep.
  server.route('/err/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/err/a2a', 'HTTP+JSON')));
  for (const path of ['/err/a2a/message:send', '/err/a2a/message:stream']) {
    server.route(
      path,
      (_req, res) => void res.writeHead(500, { 'content-type': 'application/json' }).end(`{"error":{"code":13,"message":"boom","details":${deep}}}`),
    );
  }
  server.route('/rpc/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/rpc/a2a', 'JSONRPC')));
  server.route('/rpc/a2a', (_req, res, body) => {
    const { id, method } = JSON.parse(body);
    const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"task":${deepTask}}}`;
    if (method === 'SendStreamingMessage') res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${envelope}\n\n`);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(envelope);
  });
  // Malformed answers the property tests found (test/unit/parsers-property.test.ts): the message text picks the body.
  server.route('/bad/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/bad/a2a', 'HTTP+JSON')));
  server.route(
    '/bad/a2a/message:send',
    (_req, res, body) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.parse(body).message.parts[0].text),
  );
  server.route('/badrpc/.well-known/agent-card.json', (_req, res) => json(res, 200, card('/badrpc/a2a', 'JSONRPC')));
  server.route('/badrpc/a2a', (_req, res, body) =>
    json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32603, message: { text: 'not a string' } } }),
  );
  // v0.3 agents (spoken through the SDK): a JSON-RPC one and an HTTP+JSON one.
  const legacyTask = `{"kind":"task","id":"t-deep","contextId":"c-deep","status":{"state":"completed"},"metadata":{"x":${deep}}}`;
  server.route('/v03rpc/.well-known/agent-card.json', (_req, res) => json(res, 200, { ...legacyCard(`${url}/v03rpc/a2a`, 'JSONRPC') }));
  server.route('/v03rpc/a2a', (_req, res, body) => {
    const { id, method } = JSON.parse(body);
    const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${legacyTask}}`;
    if (method === 'message/stream') res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${envelope}\n\n`);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(envelope);
  });
  server.route('/v03rest/.well-known/agent-card.json', (_req, res) => json(res, 200, legacyCard(`${url}/v03rest/a2a`, 'HTTP+JSON')));
  server.route('/v03rest/a2a/v1/message:send', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(legacyTask));
  server.route(
    '/v03rest/a2a/v1/message:stream',
    (_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${legacyTask}\n\n`),
  );
});
afterAll(async () => {
  grpcPeer.close();
  await server.close();
});
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.dispose());

const legacyCard = (url: string, transport: string) => ({
  name: 'Legacy deep',
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

/** The command failed with exit 76 too_deeply_nested, on one line, without a stack trace. */
function expectTooDeep(res: { code: number; stderr: string }): void {
  expect(res.code).toBe(76);
  const err = JSON.parse(res.stderr).data;
  expect(err.code).toBe('missive::protocol::too_deeply_nested');
  expect(err.message).toMatch(/nests JSON deeper than 128 levels/);
  expect(res.stderr).not.toMatch(/\n\s+at |Maximum call stack/);
}

describe('deeply nested JSON from an agent', () => {
  it('refuses a card nested 50,000 deep, caches nothing of it, and the registry still works', async () => {
    expect((await box.run(['agent', 'add', 'deep', `${server.url}/deep-card`])).code).toBe(0);
    expectTooDeep(await box.run(['agent', 'refresh', 'deep', '--json']));
    expectTooDeep(await box.run(['agent', 'inspect', 'deep', '--json']));
    const human = await box.run(['agent', 'refresh', 'deep']);
    expect(human.code).toBe(76);
    expect(human.stderr).toMatch(
      /^missive: protocol error: the Agent Card at http:\/\/127\.0\.0\.1:\d+\/deep-card\/\.well-known\/agent-card\.json nests JSON deeper than 128 levels; missive refuses it\.\n/,
    );
    expect(human.stderr).not.toMatch(/\n\s+at |Maximum call stack/);
    const list = await box.run(['agent', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.json().data.agents).toMatchObject([{ alias: 'deep', card: { cached: false } }]);
  });

  for (const [name, path] of [
    ['HTTP+JSON', '/rest'],
    ['JSON-RPC', '/rpc'],
    ['v0.3 JSON-RPC', '/v03rpc'],
    ['v0.3 HTTP+JSON', '/v03rest'],
    ['gRPC', '/grpc'],
  ] as const) {
    it(`refuses a ${name} send answer and stream event nested 50,000 deep, and later commands work`, async () => {
      expect((await box.run(['agent', 'add', 'a', `${server.url}${path}`])).code).toBe(0);
      expectTooDeep(await box.run(['send', 'a', 'hi', '--json']));
      expectTooDeep(await box.run(['stream', 'a', 'hi', '--json']));
      expect((await box.run(['agent', 'list', '--json'])).code).toBe(0);
      expect((await box.run(['task', 'list', '--json'])).code).toBe(0);
      // The failures are journaled, and the journal reads back.
      const events = await box.run(['events', 'list', '--json']);
      expect(events.code).toBe(0);
      expect(events.stdout).toContain('too_deeply_nested');
    });
  }

  it('refuses an HTTP error status whose JSON error body nests 50,000 deep', async () => {
    expect((await box.run(['agent', 'add', 'a', `${server.url}/err`])).code).toBe(0);
    expectTooDeep(await box.run(['send', 'a', 'hi', '--json']));
    expectTooDeep(await box.run(['stream', 'a', 'hi', '--json']));
  });

  it('refuses malformed answers that crashed the readers (exit 70) as protocol errors (exit 76)', async () => {
    expect((await box.run(['agent', 'add', 'a', `${server.url}/bad`])).code).toBe(0);
    for (const body of [
      'null',
      '{"task":{}}',
      '{"task":{"id":"t","artifacts":[null]}}',
      '{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"raw":5}]}}',
    ]) {
      const res = await box.run(['send', 'a', body, '--json']);
      expect(res.code, body).toBe(76);
      expect(JSON.parse(res.stderr).data.code).toBe('missive::protocol::invalid_response');
    }
    expect((await box.run(['agent', 'add', 'rpc', `${server.url}/badrpc`])).code).toBe(0);
    const rpc = await box.run(['send', 'rpc', 'hi', '--json']);
    expect(rpc.code).toBe(76);
    expect(JSON.parse(rpc.stderr).data).toMatchObject({
      code: 'missive::protocol::jsonrpc_error',
      message: 'protocol error: SendMessage failed with JSON-RPC error -32603: no message',
    });
  });

  it('refuses a gRPC data part 1,000 deep, which the protobuf decoder reads but the journal could not store', async () => {
    expect((await box.run(['agent', 'add', 'a', `${server.url}/grpc`])).code).toBe(0);
    expectTooDeep(await box.run(['send', 'a', 'shallow', '--json']));
    expectTooDeep(await box.run(['stream', 'a', 'shallow', '--json']));
    expect((await box.run(['task', 'list', '--json'])).code).toBe(0);
  });
});
