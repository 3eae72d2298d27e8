/**
 * One A2A error, one outcome: each A2A error, answered by a real SDK server (1.x for A2A 1.0, 0.3 for A2A 0.3) on
 * JSON-RPC, HTTP+JSON and gRPC, fails the command with the same stable code, exit code and help on every binding.
 * Raw node:http peers break JSON-RPC (an answer with id null, a bare -32000, error data with a secret in it): one line
 * says what the agent did wrong, with the error data on one line, redacted and bounded.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type CliResult, type Sandbox } from '../support/cli.js';
import { A2A_ERRORS, startErrorPeer, startV03ErrorPeer, unknownTaskId, V03_CODES, type A2AErrorName, type ErrorPeer } from '../support/error-peers.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';

const CODES: Record<A2AErrorName, string> = {
  TaskNotFound: 'missive::protocol::task_not_found',
  TaskNotCancelable: 'missive::protocol::task_not_cancelable',
  PushNotificationNotSupported: 'missive::protocol::push_notification_not_supported',
  UnsupportedOperation: 'missive::protocol::unsupported_operation',
  ContentTypeNotSupported: 'missive::protocol::content_type_not_supported',
  InvalidAgentResponse: 'missive::protocol::invalid_agent_response',
  ExtendedAgentCardNotConfigured: 'missive::protocol::extended_agent_card_not_configured',
  ExtensionSupportRequired: 'missive::protocol::extension_support_required',
  VersionNotSupported: 'missive::protocol::version_not_supported',
};

const BINDINGS = ['http+json', 'json-rpc', 'grpc'] as const;

let v10: ErrorPeer;
let v03: ErrorPeer;
let box: Sandbox;

beforeAll(async () => {
  [v10, v03] = await Promise.all([startErrorPeer(), startV03ErrorPeer()]);
});
afterAll(async () => {
  await Promise.all([v10?.close(), v03?.close()]);
});
beforeEach(async () => {
  box = sandbox({ RAW_TOKEN: 'raw-secret-token-0123456789abcdef' });
  for (const [prefix, peer] of [
    ['new', v10],
    ['old', v03],
  ] as const) {
    for (const binding of BINDINGS) {
      const res = await box.run([
        'agent',
        'add',
        `${prefix}-${binding.replace('+', '')}`,
        peer.baseUrl,
        '--binding-preference',
        binding,
        '--trust-origin',
        `http://${peer.grpcTarget}`,
      ]);
      expect(res.code, res.stderr).toBe(0);
    }
  }
});
afterEach(() => box.dispose());

const alias = (prefix: 'new' | 'old', binding: (typeof BINDINGS)[number]) => `${prefix}-${binding.replace('+', '')}`;

/** What a script sees of a failure: the exit code and the error envelope's code and help (the alias it names made generic). */
function outcome(res: CliResult, agent?: string) {
  const error = JSON.parse(res.stderr).data;
  return { exit: res.code, code: error.code, help: agent ? error.help?.replaceAll(agent, '<agent>') : error.help, exit_code: error.exit_code };
}

describe('one A2A error, one outcome (A2A 1.0, @a2a-js/sdk 1.x)', () => {
  for (const name of A2A_ERRORS) {
    it(`${name}: the same code, exit and help over HTTP+JSON, JSON-RPC and gRPC`, async () => {
      const seen = [];
      for (const binding of BINDINGS) {
        const res = await box.run(['send', alias('new', binding), `fail-with ${name}`, '--json']);
        const got = outcome(res, alias('new', binding));
        expect(got, `${name} over ${binding}: ${res.stderr}`).toMatchObject({ exit: 76, code: CODES[name], exit_code: 76 });
        expect(got.help, `${name} over ${binding}`).toBeTruthy();
        expect(JSON.parse(res.stderr).data.message, `${name} over ${binding}`).not.toMatch(/\n/);
        seen.push(got);
      }
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
    });
  }

  it('an unknown task is TaskNotFound on every binding, without the "check the base URL" hint', async () => {
    for (const binding of BINDINGS) {
      const res = await box.run(['task', 'get', unknownTaskId(), '--agent', alias('new', binding), '--json']);
      expect(outcome(res), binding).toMatchObject({ exit: 76, code: CODES.TaskNotFound });
      expect(res.stderr, binding).not.toMatch(/base URL/i);
      expect(JSON.parse(res.stderr).data.help).toMatch(/task/i);
    }
    const human = await box.run(['task', 'get', unknownTaskId(), '--agent', alias('new', 'http+json')]);
    expect(human.code).toBe(76);
    expect(human.stderr).not.toMatch(/base URL/i);
  });

  it('cancelling a finished task is TaskNotCancelable on every binding', async () => {
    const id = (await box.run(['send', alias('new', 'http+json'), 'hello', '--json'])).json().data.task.task_id;
    for (const binding of BINDINGS) {
      const res = await box.run(['task', 'cancel', id, '--agent', alias('new', binding), '--json']);
      expect(outcome(res), binding).toMatchObject({ exit: 76, code: CODES.TaskNotCancelable });
    }
  });
});

describe('one A2A error, one outcome (A2A 0.3, @a2a-js/sdk 0.3)', () => {
  for (const name of A2A_ERRORS.filter((n) => V03_CODES[n] !== undefined)) {
    it(`${name} (${V03_CODES[name]}): the same code, exit and help over JSON-RPC and HTTP+JSON as on A2A 1.0`, async () => {
      const reference = outcome(await box.run(['send', alias('new', 'json-rpc'), `fail-with ${name}`, '--json']), alias('new', 'json-rpc'));
      for (const binding of ['json-rpc', 'http+json'] as const) {
        const res = await box.run(['send', alias('old', binding), `fail-with ${name}`, '--json']);
        expect(outcome(res, alias('old', binding)), `${name} over 0.3 ${binding}: ${res.stderr}`).toEqual(reference);
      }
    });
  }

  it('an unknown task is TaskNotFound and a finished one TaskNotCancelable on every 0.3 binding, gRPC statuses included', async () => {
    const id = (await box.run(['send', alias('old', 'json-rpc'), 'hello', '--json'])).json().data.task.task_id;
    for (const binding of BINDINGS) {
      const missing = await box.run(['task', 'get', unknownTaskId(), '--agent', alias('old', binding), '--json']);
      expect(outcome(missing), `${binding}: ${missing.stderr}`).toMatchObject({ exit: 76, code: CODES.TaskNotFound });
      const cancel = await box.run(['task', 'cancel', id, '--agent', alias('old', binding), '--json']);
      expect(outcome(cancel), `${binding}: ${cancel.stderr}`).toMatchObject({ exit: 76, code: CODES.TaskNotCancelable });
    }
    const sent = await box.run(['send', alias('old', 'grpc'), 'fail-with TaskNotFound', '--json']);
    expect(outcome(sent)).toMatchObject({ exit: 76, code: CODES.TaskNotFound });
  });
});

describe('servers that break the protocol', () => {
  let raw: RawServer;
  const TOKEN = 'raw-secret-token-0123456789abcdef';
  const v10Card = (url: string) => ({
    name: 'Broken Agent',
    description: 'breaks JSON-RPC',
    version: '0.0.1',
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', tags: ['test'] }],
  });
  const v03Card = (url: string) => ({
    name: 'Broken 0.3 Agent',
    description: 'breaks JSON-RPC',
    url: `${url}/rpc03`,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    version: '0.0.1',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', tags: ['test'] }],
  });
  let answer: (id: unknown) => unknown;

  beforeAll(async () => {
    raw = await startRawServer();
    raw.route('/v10/.well-known/agent-card.json', (_req, res) => json(res, 200, v10Card(`${raw.url}/v10`)));
    raw.route('/v03/.well-known/agent-card.json', (_req, res) => json(res, 200, v03Card(`${raw.url}/v03`)));
    for (const path of ['/v10/rpc', '/v03/rpc03']) raw.route(path, (_req, res, body) => json(res, 200, answer((JSON.parse(body) as { id: unknown }).id)));
  });
  afterAll(() => raw.close());
  beforeEach(async () => {
    expect((await box.run(['agent', 'add', 'broken', `${raw.url}/v10`])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'broken03', `${raw.url}/v03`])).code).toBe(0);
  });

  const sendBoth = async () => Promise.all(['broken', 'broken03'].map((a) => box.run(['send', a, 'hi', '--bearer-token-env', 'RAW_TOKEN', '--json'])));

  const refusesOtherIds = (agent: string, result: unknown) => async () => {
    for (const id of [null, 'not-the-request-id']) {
      answer = () => ({ jsonrpc: '2.0', id, result });
      const res = await box.run(['send', agent, 'hi', '--json']);
      const error = JSON.parse(res.stderr || '{}').data;
      expect(res.code, res.stderr).toBe(76);
      expect(error.code).toBe('missive::protocol::jsonrpc_id_mismatch');
      expect(error.message).toMatch(id === null ? /JSON-RPC id null/ : /JSON-RPC id "not-the-request-id"/);
      expect(error.message).toMatch(/not the id of the request/);
      expect(error.message).not.toMatch(/\n/);
    }
  };
  it(
    "a v0.3 result with id null (or another id) is refused in one line naming the agent's fault",
    refusesOtherIds('broken03', { kind: 'message', messageId: 'm1', role: 'agent', parts: [{ kind: 'text', text: 'hello' }] }),
  );
  it(
    "a v1.0 result with id null (or another id) is refused in one line naming the agent's fault",
    refusesOtherIds('broken', { message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'hello' }] } }),
  );

  it('a v1.0 stream whose events carry another JSON-RPC id (null included) is refused at the first such event', async () => {
    const card = { ...v10Card(`${raw.url}/v10s`), capabilities: { streaming: true } };
    raw.route('/v10s/.well-known/agent-card.json', (_req, res) => json(res, 200, card));
    let eventId: (requestId: unknown) => unknown = (requestId) => requestId;
    raw.route('/v10s/rpc', (_req, res, body) => {
      const requestId = (JSON.parse(body) as { id: unknown }).id;
      const message = { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'streamed hello' }] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: eventId(requestId), result: { message } })}\n\n`);
    });
    expect((await box.run(['agent', 'add', 'streamer', `${raw.url}/v10s`])).code).toBe(0);
    const good = await box.run(['stream', 'streamer', 'hi', '--json']);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('streamed hello');
    for (const id of [null, 'not-the-request-id']) {
      eventId = () => id;
      const res = await box.run(['stream', 'streamer', 'hi', '--json']);
      expect(res.code, res.stderr).toBe(76);
      const error = JSON.parse(res.stderr).data;
      expect(error.code).toBe('missive::protocol::jsonrpc_id_mismatch');
      expect(error.message).toMatch(/stream event #1/);
    }
  });

  it('a bare -32000 with a task id for message says it is no A2A error and shows nothing cryptic alone', async () => {
    answer = (id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: '6f1c2a9e-0b7d-4f5e-9a51-3c8e2d7b4a10' } });
    for (const res of await sendBoth()) {
      const error = JSON.parse(res.stderr).data;
      expect(res.code, res.stderr).toBe(76);
      expect(error.code).toBe('missive::protocol::jsonrpc_error');
      expect(error.message).toMatch(/-32000 "6f1c2a9e-0b7d-4f5e-9a51-3c8e2d7b4a10"/);
      expect(error.message).toMatch(/server-defined code, not an A2A error/);
      expect(error.help).toMatch(/agent's operator/);
    }
  });

  it('shows the error data on one line, redacted and bounded', async () => {
    answer = (id) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32000,
        message: 'Server error',
        data: { echoed: `Bearer ${TOKEN}`, header: TOKEN, trace: 'line one\nline two', padding: 'x'.repeat(5000) },
      },
    });
    for (const res of await sendBoth()) {
      const error = JSON.parse(res.stderr).data;
      expect(res.code, res.stderr).toBe(76);
      expect(error.message).toMatch(/data: \{"echoed":"Bearer \[REDACTED\]"/);
      expect(error.message).toContain('line one line two');
      expect(error.message).not.toMatch(/\n/);
      expect(error.message.length).toBeLessThan(600);
      expect(res.stderr + res.stdout).not.toContain(TOKEN);
    }
  });
});
