/**
 * `missive mock serve` (the built CLI, spawned as a CI script would) replays a conversation recorded through the CLI
 * from a real @a2a-js/sdk agent (test/support/recorded-conversation.ts): a streamed task of 3 artifact chunks, an
 * `input_required` turn and its reply, and a completed task. The real agent is closed before the mock starts: every
 * answer below comes from the recording. Clients: missive itself on each binding, the official SDK 1.x client on each
 * binding, and an SDK 0.3 client; plus a miss, --strict, --latency none, push callbacks and a bcast to two mocks.
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, StreamResponse, Task, Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { ClientFactory as V03ClientFactory, ClientFactoryOptions as V03ClientFactoryOptions } from 'a2a-sdk-v03/client';
import { sandbox, type Sandbox } from '../support/cli.js';
import { eventually } from '../support/waits.js';
import { recordConversation, RECORDING_TOKEN, STORY_CHUNKS, TEXTS } from '../support/recorded-conversation.js';
import { postJsonRpcSend } from '../support/raw-send.js';
import { spawnMock, type MockProcess, type MockServeData } from '../support/mock-process.js';

const QUESTION = 'What name should I use?';
const GREETING = `Hello, ${TEXTS.reply}!`;
const STORY = STORY_CHUNKS.join('');

let box: Sandbox;
let contextId: string;

const ok = async (args: string[]) => {
  const res = await box.run([...args, '--json']);
  expect(res.code, `missive ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res.json().data;
};

beforeAll(async () => {
  box = sandbox();
  const recorded = await recordConversation(box);
  contextId = recorded.contextId;
  await recorded.close();
}, 60_000);
afterAll(() => box.dispose());

describe('mock serve of the recorded conversation', () => {
  let mock: MockProcess<MockServeData>;
  beforeAll(async () => {
    mock = await spawnMock(box, ['mock', 'serve', '--from-context', contextId, '--bindings', 'http+json,json-rpc,grpc']);
    await ok(['agent', 'add', 'mocked', mock.data.url]);
  }, 30_000);
  afterAll(async () => void (await mock.stop()));

  it('prints its URL, port, card URL, bindings and the exchange count as one --json envelope', () => {
    expect(mock.data).toMatchObject({
      url: `http://127.0.0.1:${mock.data.port}`,
      card_url: `${mock.data.url}/.well-known/agent-card.json`,
      bindings: ['http+json', 'json-rpc', 'grpc'],
      versions: ['1.0', '0.3'],
      agent: 'storyteller',
      exchanges: 4,
    });
  });

  it('serves the recorded card pointed at itself, with no security and no trace of the token', async () => {
    const card = await (await fetch(mock.data.card_url, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(card.name).toBe('storyteller');
    expect(card.description).toContain('mock of "storyteller"');
    expect(card.securitySchemes ?? {}).toEqual({});
    const urls = card.supportedInterfaces.map((i: { url: string }) => i.url);
    expect(urls.every((u: string) => u.startsWith(mock.data.url) || u === mock.data.grpc_target)).toBe(true);
    expect(card.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      'HTTP+JSON 1.0',
      'JSONRPC 1.0',
      'GRPC 1.0',
      'JSONRPC 0.3',
      'HTTP+JSON 0.3',
    ]);
    expect(JSON.stringify(card)).not.toContain(RECORDING_TOKEN);
  });

  for (const binding of ['http+json', 'json-rpc', 'grpc'] as const) {
    it(`answers missive stream, send and task get over ${binding} as the real agent did`, async () => {
      const b = ['--binding', binding];
      const streamed = await ok(['stream', 'mocked', TEXTS.stream, ...b]);
      expect(streamed).toMatchObject({ counts: { artifact_update: 3 }, task: { state: 'completed' }, answer_text: 'the end' });
      expect(streamed.selected_interface.binding).toBe(binding);
      const story = await ok(['task', 'artifact', 'show', streamed.task.task_id, 'story']);
      expect(story.content.parts.map((p: { text: string }) => p.text).join('')).toBe(STORY);

      const asked = await ok(['send', 'mocked', TEXTS.ask, ...b]);
      expect(asked.task.state).toBe('input_required');
      expect(asked.response.task.status.message.parts[0].text).toBe(QUESTION);
      const replied = await ok(['send', 'mocked', TEXTS.reply, '--task', asked.task.task_id, '--context', asked.task.context_id, ...b]);
      expect(replied.task).toMatchObject({ task_id: asked.task.task_id, state: 'completed' });
      const got = await ok(['task', 'get', asked.task.task_id, '--agent', 'mocked', ...b]);
      expect(got).toMatchObject({ source: 'remote', task: { state: 'completed' }, answer_text: `Thanks, ${TEXTS.reply}. Task done.` });
      const greeting = await ok(['task', 'artifact', 'show', asked.task.task_id, 'greeting']);
      expect(greeting.content.parts[0].text).toBe(GREETING);

      const hello = await ok(['send', 'mocked', TEXTS.hello, ...b]);
      expect(hello.task.state).toBe('completed');
      expect(hello.response.task.artifacts[0].parts[0].text).toBe(`echo: ${TEXTS.hello}`);
    });
  }

  it('answers the official SDK 1.x client on HTTP+JSON, JSON-RPC and gRPC with the recorded events', async () => {
    for (const transport of ['HTTP+JSON', 'JSONRPC', 'GRPC']) {
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        preferredTransports: [transport],
      });
      const client = await new ClientFactory(options).createFromUrl(mock.data.url);
      const request = (text: string, taskId?: string, context?: string) =>
        SendMessageRequest.fromJSON({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId, contextId: context } : {}) },
        });
      const events: any[] = [];
      for await (const event of client.sendMessageStream(request(TEXTS.stream))) {
        events.push(StreamResponse.toJSON(event));
        if (events.length > 20) break;
      }
      expect(
        events.map((e) => Object.keys(e)[0]),
        transport,
      ).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate.artifact.parts[0].text)).toEqual(STORY_CHUNKS);
      expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

      const asked = Task.toJSON((await client.sendMessage(request(TEXTS.ask))) as Task) as any;
      expect(asked.status).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: QUESTION }] } });
      const replied = Task.toJSON((await client.sendMessage(request(TEXTS.reply, asked.id, asked.contextId))) as Task) as any;
      expect(replied).toMatchObject({ id: asked.id, status: { state: 'TASK_STATE_COMPLETED' } });
      const got = Task.toJSON(await client.getTask({ id: asked.id, historyLength: 0, tenant: '' } as never)) as any;
      expect(got.artifacts[0].parts[0].text).toBe(GREETING);
      const hello = (await client.sendMessage(request(TEXTS.hello))) as Task | Message;
      expect((Task.toJSON(hello as Task) as any).artifacts[0].parts[0].text).toBe(`echo: ${TEXTS.hello}`);
    }
  });

  it('answers an SDK 0.3 client on JSON-RPC and HTTP+JSON', async () => {
    for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
      const factory = new V03ClientFactory(V03ClientFactoryOptions.createFrom(V03ClientFactoryOptions.default, { preferredTransports: [transport] }));
      const client = await factory.createFromUrl(mock.data.url);
      const message = (text: string, extra: object = {}) => ({
        message: { kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text }], ...extra },
      });
      const events: any[] = [];
      for await (const event of client.sendMessageStream(message(TEXTS.stream))) {
        events.push(event);
        if (events.length > 20) break;
      }
      expect(
        events.filter((e) => e.kind === 'artifact-update').map((e) => e.artifact.parts[0].text),
        transport,
      ).toEqual(STORY_CHUNKS);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
      const asked = (await client.sendMessage(message(TEXTS.ask))) as any;
      expect(asked).toMatchObject({ kind: 'task', status: { state: 'input-required', message: { parts: [{ text: QUESTION }] } } });
      const replied = (await client.sendMessage(message(TEXTS.reply, { taskId: asked.id, contextId: asked.contextId }))) as any;
      expect(replied).toMatchObject({ kind: 'task', id: asked.id, status: { state: 'completed' } });
      expect(replied.artifacts[0].parts[0].text).toBe(GREETING);
    }
  });

  it('answers a request it has no recording of with UnsupportedOperation naming the closest recorded request', async () => {
    const missed = await box.run(['send', 'mocked', 'hello there, world', '--json']);
    expect(missed.code).toBe(76);
    const error = JSON.parse(missed.stderr).data;
    expect(error.code).toBe('missive::protocol::unsupported_operation');
    expect(error.message).toContain('no recorded request matches "hello there, world"; closest: #3 "hello"');
    // The JSON-RPC wire carries the A2A code itself (-32004).
    const raw = await postJsonRpcSend(`${mock.data.url}/a2a/jsonrpc`, 'story please');
    const body = await raw.json();
    expect(body.error.code).toBe(-32004);
    expect(body.error.message).toMatch(/no recorded request matches "story please"; closest: #\d+ "/);
  });

  it('calls back the replayed events when the client set a push config', async () => {
    const bodies: any[] = [];
    const receiver: Server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        bodies.push(JSON.parse(text));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const port = (receiver.address() as { port: number }).port;
      const sent = await ok(['send', 'mocked', TEXTS.hello, '--push-url', `http://127.0.0.1:${port}/callback`]);
      expect(sent.task.state).toBe('completed');
      await eventually('the push callback of the replayed task', () => bodies.find((b) => JSON.stringify(b).includes(sent.task.task_id)), 10_000);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

describe('mock serve --latency none --strict, and a collective of mocks', () => {
  let strict: MockProcess<MockServeData>;
  let timed: MockProcess<MockServeData>;
  beforeAll(async () => {
    [strict, timed] = await Promise.all([
      spawnMock(box, ['mock', 'serve', '--from-context', contextId, '--latency', 'none', '--strict', '--register', 'mock-a']),
      spawnMock(box, ['mock', 'serve', '--from-context', contextId, '--latency', 'recorded', '--register', 'mock-b']),
    ]);
    await ok(['group', 'create', 'mocks', '--member', 'mock-a', '--member', 'mock-b']);
  }, 30_000);
  afterAll(() => {
    strict.process.kill();
    timed.process.kill();
  });

  it('replays the same events in the same order with --latency none as with the recorded latency', async () => {
    const run = async (alias: string) => {
      const res = await box.run(['stream', alias, TEXTS.stream, '--ndjson']);
      expect(res.code, res.stderr).toBe(0);
      return res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((l) => l.kind === 'stream_event')
        .map((l) => [l.data.variant ?? l.data.kind, l.data.state ?? null, l.data.text ?? null]);
    };
    const none = await run('mock-a');
    expect(none.length).toBe(6);
    expect(await run('mock-b')).toEqual(none);
  });

  it('bcast to a group of two mocks replays each one’s recorded answer', async () => {
    const data = await ok(['bcast', 'mocks', TEXTS.hello]);
    expect(data.counts).toMatchObject({ succeeded: 2, failed: 0 });
    expect(data.members.map((m: any) => [m.alias, m.state])).toEqual([
      ['mock-a', 'completed'],
      ['mock-b', 'completed'],
    ]);
  });

  it('--strict exits 76 with the diff at shutdown after a miss; a mock without it exits 0', async () => {
    expect((await box.run(['send', 'mock-a', 'goodbye'])).code).toBe(76);
    const stopped = await strict.stop();
    expect(stopped.code).toBe(76);
    const report = stopped.after.find((d) => d.kind === 'mock_shutdown')!.data;
    expect(report).toMatchObject({ misses: 1, strict: true });
    expect(report.diff).toContain('goodbye');
    expect(stopped.stderr).toContain('missive::protocol::mock_strict_mismatch');
    expect(strict.process.stdout() + stopped.stderr).not.toContain(RECORDING_TOKEN);
    const other = await timed.stop();
    expect(other.code).toBe(0);
    expect(other.after.find((d) => d.kind === 'mock_shutdown')!.data.misses).toBe(0);
    // --register keeps the registration (its journal holds the tasks it answered); a later run on another port is refused.
    const again = await box.run(['mock', 'serve', '--from-context', contextId, '--register', 'mock-a', '--json']);
    expect(again.code).toBe(64);
    expect(JSON.parse(again.stderr).data.code).toBe('missive::validation::register_taken');
  });
});

describe('mock serve refuses bad input before it listens', () => {
  it.each([
    [['--from-context', 'launch', '--from-export', 'x.json'], 'missive::validation::recording_source'],
    [[], 'missive::validation::recording_source'],
    [['--from-context', 'CTX', '--bindings', 'http+json,smtp'], 'missive::validation::invalid_flag'],
    [['--from-context', 'CTX', '--versions', '0.2'], 'missive::validation::invalid_flag'],
    [['--from-context', 'CTX', '--latency', 'soon'], 'missive::validation::invalid_duration'],
    [['--from-context', 'CTX', '--match', 'fuzzy'], 'missive::validation::invalid_flag'],
    [['--from-context', 'CTX', '--host', '0.0.0.0'], 'missive::validation::remote_bind'],
  ])('mock serve %j → %s', async (args, code) => {
    const res = await box.run(['mock', 'serve', ...args.map((a) => (a === 'CTX' ? contextId : a)), '--json']);
    expect(res.code).toBe(64);
    expect(JSON.parse(res.stderr).data.code).toBe(code);
  });
});
