/**
 * The wire view against real SDK peers on every wire (A2A 1.0 HTTP+JSON and JSON-RPC, v0.3 JSON-RPC and HTTP+JSON
 * through the SDK, gRPC): `missive send|stream --show-wire` (human on stderr, `--json` in data.wire, `-vv`), the GUI's
 * messages.send|stream with `wire: true` and the session wire log behind history.get (failed calls too),
 * requests.preview, and the curl commands built from a preview or a captured exchange, run for real with curl.
 * No bearer token or API key ever shows in the wire, the CLI's output or the journal.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curlCommand, missiveArgs } from '../../shared/copy-as.js';
import type { WireExchange } from '../../shared/ipc/contract.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';

const TOKEN = 'wire-bearer-token-0123456789';
const V03_TOKEN = 'wire-v03-token-abcdefghij';
const API_KEY = 'wire-api-key-zyxwvutsrq';
const SECRETS = [TOKEN, V03_TOKEN, API_KEY];

let fleet: Awaited<ReturnType<typeof startAgents>>;
let v03: LegacyPeer;
let box: Sandbox;
let core: Core;
let registry: Registry;

const expectNoSecret = (what: string, text: string) => {
  for (const secret of SECRETS) expect(text, `${what} shows a secret`).not.toContain(secret);
};

/** Runs a curl command line in bash (curl is /usr/bin/curl) with the given environment; returns its stdout. */
const runCurl = async (command: string, env: Record<string, string> = {}) =>
  (await promisify(execFile)('bash', ['-c', command], { env: { PATH: `/usr/bin:${process.env.PATH}`, ...env }, encoding: 'utf8', timeout: 20_000 })).stdout;

/** The `data:` records of an SSE body, parsed. */
const sseData = (body: string) =>
  body
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => JSON.parse(l.slice(5)));

const nonDecreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x >= xs[i - 1]!);

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    tasks: { behaviour: 'task' },
    chunks: { behaviour: 'chunks', chunks: 3 },
    rpc: { behaviour: 'chunks', chunks: 2, grpc: true },
    down: { behaviour: 'echo' },
  });
  v03 = await startV03Peer({ bearer: V03_TOKEN });
  box = sandbox({ AGENT_TOKEN: TOKEN, V03_TOKEN });
  const run = async (args: string[]) => expect((await box.run(args)).code, args.join(' ')).toBe(0);
  await run(['auth', 'add', 'tok', '--env', 'AGENT_TOKEN']);
  await run(['auth', 'add', 'legacy', '--env', 'V03_TOKEN']);
  for (const alias of ['echo', 'tasks', 'chunks', 'down']) await run(['agent', 'add', alias, fleet.agents[alias]!.baseUrl, '--auth-ref', 'tok']);
  await run([
    'agent',
    'add',
    'grpc',
    fleet.agents.rpc!.baseUrl,
    '--auth-ref',
    'tok',
    '--binding-preference',
    'grpc',
    '--trust-origin',
    `http://${fleet.agents.rpc!.grpcTarget}`,
  ]);
  await run(['agent', 'add', 'v03', v03.baseUrl, '--auth-ref', 'legacy', '--binding-preference', 'json-rpc']);
  await run(['agent', 'add', 'v03rest', v03.baseUrl, '--auth-ref', 'legacy', '--binding-preference', 'http+json']);
  for (const alias of ['echo', 'tasks', 'chunks', 'down', 'grpc', 'v03', 'v03rest']) await run(['agent', 'inspect', alias]);
  await run(['group', 'create', 'mixed', '--member', 'echo@0', '--member', 'grpc@1', '--member', 'v03@2']);
  // The card of "down" is cached; then it stops answering (connection refused).
  await fleet.agents.down!.pause();
  core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
  registry = createRegistry({ core, cwd: box.home, emit: () => undefined });
});

afterAll(async () => {
  await registry?.dispose();
  core?.close();
  box?.dispose();
  await v03?.close();
  await fleet?.close();
});

describe('missive send|stream --show-wire --json', () => {
  it('captures a 1.0 HTTP+JSON send: request, redacted headers, status and body, in data.wire only', async () => {
    const res = await box.run(['send', 'tasks', 'build it', '--show-wire', '--json', '--header', `X-Api-Key: ${API_KEY}`]);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const data = res.json().data;
    const [exchange, ...more] = data.wire as WireExchange[];
    expect(more).toEqual([]);
    expect(exchange).toMatchObject({
      operation: 'SendMessage',
      request: { protocol: 'http', method: 'POST', url: `${fleet.agents.tasks!.restUrl}/message:send` },
      response: { status: 200 },
      error: null,
    });
    expect(exchange!.request.headers).toMatchObject({ Authorization: 'Bearer [REDACTED]', 'X-Api-Key': '[REDACTED]', 'Content-Type': 'application/a2a+json' });
    expect(JSON.parse(exchange!.request.body!).message.parts).toEqual([{ text: 'build it' }]);
    expect(JSON.parse(exchange!.response!.body!).task.id).toBe(data.task.task_id);
    expectNoSecret('send --json', res.stdout);
  });

  it('captures a 1.0 JSON-RPC stream: every SSE frame in order with non-decreasing arrival times', async () => {
    const res = await box.run(['stream', 'chunks', 'go', '--binding', 'json-rpc', '--show-wire', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    const [exchange] = data.wire as WireExchange[];
    expect(exchange).toMatchObject({
      operation: 'SendStreamingMessage',
      request: { url: fleet.agents.chunks!.jsonRpcUrl, headers: { Accept: 'text/event-stream' } },
      response: { status: 200 },
      frames_dropped: 0,
    });
    expect(JSON.parse(exchange!.request.body!)).toMatchObject({ jsonrpc: '2.0', method: 'SendStreamingMessage' });
    const frames = exchange!.frames!.map((f) => JSON.parse(f.data).result);
    expect(frames).toHaveLength(data.events);
    expect(Object.keys(frames[0])).toEqual(['task']);
    expect(frames.filter((f) => f.artifactUpdate)).toHaveLength(3);
    expect(frames.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(nonDecreasing(exchange!.frames!.map((f) => f.at_ms))).toBe(true);
  });

  it('captures the v0.3 wires the SDK writes: JSON-RPC message/send and HTTP+JSON v1/message:stream', async () => {
    const sent = await box.run(['send', 'v03', 'echo legacy', '--show-wire', '--json']);
    expect(sent.code).toBe(0);
    const [send] = sent.json().data.wire as WireExchange[];
    expect(send).toMatchObject({
      operation: 'SendMessage',
      request: { method: 'POST', url: v03.jsonRpcUrl, headers: { authorization: 'Bearer [REDACTED]', 'a2a-version': '0.3' } },
      response: { status: 200 },
    });
    expect(JSON.parse(send!.request.body!)).toMatchObject({ jsonrpc: '2.0', method: 'message/send' });
    expect(JSON.parse(send!.response!.body!).result.parts).toEqual([{ kind: 'text', text: 'echo: echo legacy' }]);

    const streamed = await box.run(['stream', 'v03rest', 'work', '--show-wire', '--json']);
    expect(streamed.code).toBe(0);
    const [stream] = streamed.json().data.wire as WireExchange[];
    expect(stream).toMatchObject({ operation: 'SendStreamingMessage', request: { url: `${v03.restUrl}/v1/message:stream` }, response: { status: 200 } });
    expect(stream!.frames).toHaveLength(streamed.json().data.events);
    expect(nonDecreasing(stream!.frames!.map((f) => f.at_ms))).toBe(true);
    expectNoSecret('v0.3 --json', sent.stdout + streamed.stdout);
    expect(v03.requests.at(-1)!.headers.authorization).toBe(`Bearer ${V03_TOKEN}`);
  });

  it('captures gRPC calls: the RPC, the target, redacted metadata, the results as JSON', async () => {
    const sent = await box.run(['send', 'grpc', 'hello', '--show-wire', '--json']);
    expect(sent.code).toBe(0);
    const [send] = sent.json().data.wire as WireExchange[];
    expect(send).toMatchObject({
      operation: 'SendMessage',
      request: {
        protocol: 'grpc',
        method: '/lf.a2a.v1.A2AService/SendMessage',
        url: fleet.agents.rpc!.grpcTarget,
        headers: { authorization: 'Bearer [REDACTED]', 'a2a-version': '1.0' },
      },
      response: { status: 0 },
      error: null,
    });
    expect(JSON.parse(send!.response!.body!).task.id).toBe(sent.json().data.task.task_id);

    const streamed = await box.run(['stream', 'grpc', 'flow', '--show-wire', '--json']);
    expect(streamed.code).toBe(0);
    const [stream] = streamed.json().data.wire as WireExchange[];
    expect(stream!.request.method).toBe('/lf.a2a.v1.A2AService/SendStreamingMessage');
    expect(stream!.frames!.map((f) => Object.keys(JSON.parse(f.data))[0])).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(nonDecreasing(stream!.frames!.map((f) => f.at_ms))).toBe(true);
    expectNoSecret('gRPC --json', sent.stdout + streamed.stdout);
  });
});

describe('missive send|stream --show-wire (human)', () => {
  it('prints each exchange on stderr, curl -v style, and leaves stdout as it was', async () => {
    const res = await box.run(['send', 'echo', 'hi there', '--show-wire', '--header', `X-Api-Key: ${API_KEY}`]);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toBe('echo: hi there');
    expect(res.stdout).not.toContain('> POST');
    const lines = res.stderr.split('\n');
    expect(lines).toContain(`> POST ${fleet.agents.echo!.restUrl}/message:send`);
    expect(lines).toContain('> Authorization: Bearer [REDACTED]');
    expect(lines).toContain('> X-Api-Key: [REDACTED]');
    expect(lines).toContain('< HTTP 200');
    expect(lines.some((l) => l.startsWith('< content-type: application/a2a+json'))).toBe(true);
    expect(res.stderr).toContain('"text":"echo: hi there"');
    expect(lines.some((l) => /^\* SendMessage done: HTTP 200 in \d+ ms$/.test(l))).toBe(true);
    expectNoSecret('--show-wire stderr', res.stderr + res.stdout);
  });

  it('documents --show-wire in send and stream --help', async () => {
    for (const command of ['send', 'stream']) {
      const help = await box.run([command, '--help']);
      expect(help.stdout).toContain('--show-wire');
      expect(help.stdout).toContain(`$ missive ${command} <agent> hello --show-wire --json   the exchanges in data.wire`);
    }
  });

  it('prints stream frames with arrival times under -vv, and nothing without it', async () => {
    const res = await box.run(['stream', 'chunks', 'go', '-vv']);
    expect(res.code).toBe(0);
    const frames = res.stderr.split('\n').filter((l) => /^< \[\+\d+ ms\] message: \{/.test(l));
    expect(frames).toHaveLength(6);
    expect(frames[0]).toContain('"task"');
    expect(res.stdout).toContain('#6 statusUpdate completed');

    for (const args of [
      ['stream', 'chunks', 'go'],
      ['stream', 'chunks', 'go', '-v'],
    ]) {
      const quiet = await box.run(args);
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).toBe('');
    }
  });

  it('keeps --ndjson one envelope per line, the wire in the final result', async () => {
    const res = await box.run(['stream', 'chunks', 'go', '--ndjson', '--show-wire']);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const envelopes = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(envelopes.map((e) => e.kind)).toEqual([...Array(6).fill('stream_event'), 'stream_result']);
    expect(envelopes.at(-1).data.wire[0].frames).toHaveLength(6);
  });

  it('shows the wire of a failed call: on stderr, and in the --json error envelope', async () => {
    const human = await box.run(['send', 'down', 'anyone?', '--show-wire']);
    expect(human.code).toBe(69);
    expect(human.stderr).toContain(`> POST ${fleet.agents.down!.restUrl}/message:send`);
    expect(human.stderr).toMatch(/^\* SendMessage failed in \d+ ms: .*refused the connection \(missive::transport::connection_refused\)$/m);
    const json = await box.run(['send', 'down', 'anyone?', '--show-wire', '--json']);
    expect(json.code).toBe(69);
    const envelope = JSON.parse(json.stderr);
    expect(envelope.data.code).toBe('missive::transport::connection_refused');
    expect(envelope.data.wire[0]).toMatchObject({ operation: 'SendMessage', response: null, error: { code: 'missive::transport::connection_refused' } });
    expectNoSecret('failed --json', json.stderr);
  });
});

describe('messages.send|stream with wire: true (the GUI)', () => {
  it('returns the exchanges and keeps them for history.get', async () => {
    const sent = await registry.invoke('messages.send', { agent: 'tasks', inputs: { text: 'from the console' }, wire: true });
    if (!sent.ok) throw new Error(sent.error.message);
    const wire = sent.data.wire!;
    expect(wire).toHaveLength(1);
    expect(wire[0]).toMatchObject({
      operation: 'SendMessage',
      request: { url: `${fleet.agents.tasks!.restUrl}/message:send`, headers: { Authorization: 'Bearer [REDACTED]' } },
      response: { status: 200 },
    });
    const got = await registry.invoke('history.get', { messageId: sent.data.request.message_id });
    if (!got.ok) throw new Error(got.error.message);
    expect(got.data.wire).toEqual(wire);

    const plain = await registry.invoke('messages.send', { agent: 'echo', inputs: { text: 'no wire' } });
    expect(plain.ok && 'wire' in plain.data).toBe(false);

    const streamed = await registry.invoke('messages.stream', { agent: 'chunks', inputs: { text: 'stream it', binding: 'json-rpc' }, wire: true });
    if (!streamed.ok) throw new Error(streamed.error.message);
    expect(streamed.data.wire![0]!.frames).toHaveLength(streamed.data.events);
    expectNoSecret('registry output', JSON.stringify([sent, streamed, got]));
  });

  it('keeps the wire of a failed call: on the error report and in history', async () => {
    const failed = await registry.invoke('messages.send', { agent: 'down', inputs: { text: 'hello?' }, wire: true });
    expect(failed.ok).toBe(false);
    if (failed.ok) return;
    expect(failed.error.code).toBe('missive::transport::connection_refused');
    expect(failed.error.wire).toHaveLength(1);
    expect(failed.error.wire![0]).toMatchObject({
      request: { url: `${fleet.agents.down!.restUrl}/message:send` },
      response: null,
      error: { code: 'missive::transport::connection_refused' },
    });

    const listed = await registry.invoke('history.list', { agent: 'down', limit: 1 });
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.data.entries[0]).toMatchObject({ outcome: 'failed', request_text: 'hello?' });
    const got = await registry.invoke('history.get', { messageId: listed.data.entries[0]!.message_id });
    if (!got.ok) throw new Error(got.error.message);
    expect(got.data.wire).toEqual(failed.error.wire);
    expectNoSecret('failed registry call', JSON.stringify([failed, got]));
  });
});

describe('requests.preview and curl', () => {
  const count = () =>
    readDb(box, (db) => ({
      events: (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
      started: (db.prepare(`SELECT count(*) AS n FROM events WHERE event_type LIKE '%.started'`).get() as { n: number }).n,
      messages: (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n,
    }));

  it('builds the 1.0 request without sending or journaling anything; its curl gets a real answer', async () => {
    const before = count();
    const seen = fleet.agents.tasks!.requests.length;
    const preview = await registry.invoke('requests.preview', {
      target: { agent: 'tasks' },
      operation: 'send',
      inputs: { text: 'curl me', metadata: ['team=ops'] },
    });
    if (!preview.ok) throw new Error(preview.error.message);
    expect(count()).toEqual(before);
    expect(fleet.agents.tasks!.requests.length).toBe(seen);
    const [entry] = preview.data.requests;
    expect(entry).toMatchObject({
      agent: 'tasks',
      binding: 'http+json',
      dialect: '1.0',
      note: null,
      request: { method: 'POST', url: `${fleet.agents.tasks!.restUrl}/message:send`, headers: { Authorization: 'Bearer [REDACTED]' } },
    });
    expectNoSecret('preview', JSON.stringify(preview));

    const command = curlCommand(entry!.request!);
    expect(command.split('\n')[0]).toContain('MISSIVE_AUTHORIZATION');
    expectNoSecret('curl command', command);
    const answer = JSON.parse(await runCurl(command, { MISSIVE_AUTHORIZATION: TOKEN }));
    expect(answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.task.history[0].parts).toEqual([{ text: 'curl me' }]);
    expect(fleet.agents.tasks!.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // The journal saw nothing of the curl either: only missive's own calls are recorded.
    expect(count()).toEqual(before);
  });

  it('renders a JSON-RPC stream as curl -N that streams real SSE frames', async () => {
    const preview = await registry.invoke('requests.preview', {
      target: { agent: 'chunks' },
      operation: 'stream',
      inputs: { text: 'stream by curl', binding: 'json-rpc' },
    });
    if (!preview.ok) throw new Error(preview.error.message);
    const request = preview.data.requests[0]!.request!;
    expect(JSON.parse(request.body!)).toMatchObject({ jsonrpc: '2.0', method: 'SendStreamingMessage' });
    const command = curlCommand(request);
    expect(command).toContain('curl -sS -N -X POST');
    const frames = sseData(await runCurl(command, { MISSIVE_AUTHORIZATION: TOKEN }));
    expect(frames).toHaveLength(6);
    expect(frames.at(-1).result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('renders the v0.3 wire the SDK would write; its curl needs the real token', async () => {
    const preview = await registry.invoke('requests.preview', { target: { agent: 'v03' }, operation: 'send', inputs: { text: 'echo from curl' } });
    if (!preview.ok) throw new Error(preview.error.message);
    const [entry] = preview.data.requests;
    expect(entry).toMatchObject({ binding: 'json-rpc', dialect: '0.3', request: { url: v03.jsonRpcUrl } });
    expect(JSON.parse(entry!.request!.body!)).toMatchObject({ method: 'message/send' });
    const command = curlCommand(entry!.request!);
    expect(JSON.parse(await runCurl(command, { MISSIVE_AUTHORIZATION: V03_TOKEN })).result.parts).toEqual([{ kind: 'text', text: 'echo: echo from curl' }]);
    expect(await runCurl(command, { MISSIVE_AUTHORIZATION: 'wrong' })).toContain('unauthorised');

    const stream = await registry.invoke('requests.preview', { target: { agent: 'v03rest' }, operation: 'stream', inputs: { text: 'work by curl' } });
    if (!stream.ok) throw new Error(stream.error.message);
    expect(stream.data.requests[0]).toMatchObject({ binding: 'http+json', dialect: '0.3', request: { url: `${v03.restUrl}/v1/message:stream` } });
    const frames = sseData(await runCurl(curlCommand(stream.data.requests[0]!.request!), { MISSIVE_AUTHORIZATION: V03_TOKEN }));
    expect(frames.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('replays a captured exchange with curl', async () => {
    const sent = await registry.invoke('messages.send', { agent: 'v03rest', inputs: { text: 'echo replay' }, wire: true });
    if (!sent.ok) throw new Error(sent.error.message);
    const command = curlCommand(sent.data.wire![0]!.request);
    expect(JSON.parse(await runCurl(command, { MISSIVE_AUTHORIZATION: V03_TOKEN })).message.content).toEqual([{ text: 'echo: echo replay' }]);

    const cli = await box.run(['send', 'echo', 'replay me', '--show-wire', '--json']);
    const answer = JSON.parse(await runCurl(curlCommand(cli.json().data.wire[0].request), { MISSIVE_AUTHORIZATION: TOKEN }));
    expect(answer.message.parts).toEqual([{ text: 'echo: replay me' }]);
  });

  it('previews a group: one entry per member in rank order, gRPC with a note instead of a request', async () => {
    const preview = await registry.invoke('requests.preview', { target: { group: 'mixed' }, operation: 'send', inputs: { text: 'all of you' } });
    if (!preview.ok) throw new Error(preview.error.message);
    const [echo, grpc, legacy] = preview.data.requests;
    expect(preview.data.requests.map((r) => r.agent)).toEqual(['echo', 'grpc', 'v03']);
    expect(echo!.request!.url).toBe(`${fleet.agents.echo!.restUrl}/message:send`);
    expect(grpc).toMatchObject({ binding: 'grpc', request: null, note: expect.stringContaining('gRPC') });
    expect(legacy!.request!.url).toBe(v03.jsonRpcUrl);
    const unknown = await registry.invoke('requests.preview', { target: { group: 'nope' }, operation: 'send', inputs: { text: 'x' } });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'missive::validation::unknown_group' } });
  });
});

describe('missive commands from copy-as', () => {
  it('runs send, stream and bcast exactly as copied, flags spelled as the CLI spells them', async () => {
    const inputs = {
      text: '-looks like a flag',
      parts: ['text=second'],
      jsonParts: ['{"n":1}'],
      metadata: ['team=ops'],
      acceptedOutputModes: ['text/plain'],
      binding: 'json-rpc' as const,
    };
    const sent = await box.run(['--json', ...missiveArgs({ operation: 'send', agent: 'tasks', inputs })]);
    expect(sent.code).toBe(0);
    const request = readDb(box, (db) => db.prepare('SELECT content_json FROM messages WHERE message_id = ?').get(sent.json().data.request.message_id)) as {
      content_json: string;
    };
    expect(JSON.parse(request.content_json).parts).toEqual([
      { text: '-looks like a flag' },
      { text: 'second' },
      { data: { n: 1 }, mediaType: 'application/json' },
    ]);
    expect(JSON.parse(request.content_json).metadata).toEqual({ team: 'ops' });
    expect(sent.json().data.selected_interface.binding).toBe('json-rpc');

    const streamed = await box.run(['--json', ...missiveArgs({ operation: 'stream', agent: 'chunks', inputs: { text: 'copied stream' }, force: true })]);
    expect(streamed.code).toBe(0);
    expect(streamed.json().data.events).toBe(6);

    const fanned = await box.run([
      '--json',
      ...missiveArgs({
        operation: 'bcast',
        group: 'mixed',
        inputs: { text: 'echo all' },
        execution: 'sequential',
        maxConcurrency: 2,
        failurePolicy: 'continue',
      }),
    ]);
    expect(fanned.code).toBe(0);
    expect(fanned.json().data.members.map((m: { alias: string; status: string }) => [m.alias, m.status])).toEqual([
      ['echo', 'succeeded'],
      ['grpc', 'succeeded'],
      ['v03', 'succeeded'],
    ]);
  });
});

describe('secrets', () => {
  it('never reach the journal', () => {
    const text = readDb(box, (db) =>
      JSON.stringify([db.prepare('SELECT * FROM events').all(), db.prepare('SELECT * FROM messages').all(), db.prepare('SELECT * FROM tasks').all()]),
    );
    expect(text.length).toBeGreaterThan(1000);
    expectNoSecret('journal', text);
  });
});
