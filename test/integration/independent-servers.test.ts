/**
 * Agents not built on the @a2a-js/sdk server, through the real CLI with the same commands as an SDK agent: A2A servers
 * from npm (`@voltagent/a2a-server`, `a2a-js`; test/support/independent-peers.ts), and raw node:http v0.2 peers for
 * results without the `kind` discriminator (unary and streamed), an ambiguous shape, and answers carried only in
 * artifacts (text, data and file parts).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';
import { startA2aJsPeer, startVoltAgentPeer, type IndependentPeer } from '../support/independent-peers.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.dispose());

const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('missive: warning:'));
/** The error envelope of a --json run (pretty-printed after any one-line warning envelopes). */
const errorOf = (stderr: string) => JSON.parse(stderr.slice(stderr.search(/^\{$/m))).data;
const jsonWarnings = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{"'))
    .map((l) => JSON.parse(l))
    .filter((e) => e.kind === 'warning')
    .map((e) => e.data.message as string);

describe('A2A servers from npm that are not built on the SDK server', () => {
  let volt: IndependentPeer;
  let a2aJs: IndependentPeer;
  beforeAll(async () => {
    [volt, a2aJs] = await Promise.all([startVoltAgentPeer(), startA2aJsPeer()]);
  });
  afterAll(async () => {
    await Promise.all([volt.close(), a2aJs.close()]);
  });

  const add = async () => {
    expect((await box.run(['agent', 'add', 'volt', volt.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'ajs', a2aJs.baseUrl])).code).toBe(0);
  };

  it.each([
    ['volt', () => volt],
    ['ajs', () => a2aJs],
  ])('%s: send prints the answer, task get shows it locally and remotely', async (alias) => {
    await add();
    const sent = await box.run(['send', alias, 'hello there']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout.split('\n')[0]).toBe('echo: hello there');
    // The agent's fault is named once, and the command still works.
    expect(warnings(sent.stderr)).toHaveLength(1);
    expect(warnings(sent.stderr)[0]).toBe(
      `missive: warning: agent "${alias}" sends A2A 0.3 results without the "kind" field the protocol requires; missive reads each one by its shape (report it to the agent's operator)`,
    );

    const data = (await box.run(['send', alias, 'again', '--json'])).json().data;
    expect(data).toMatchObject({ response_shape: 'task', task: { state: 'completed' } });
    const local = await box.run(['task', 'get', data.task.task_id]);
    expect(local.code).toBe(0);
    expect(local.stdout.split('\n\n')[1]!.trim()).toBe('echo: again');
    const remote = await box.run(['task', 'get', data.task.task_id, '--remote', '--json']);
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.json().data).toMatchObject({ task: { task_id: data.task.task_id, state: 'completed' }, answer_text: 'echo: again' });
  });

  it('voltagent: stream follows kind-less task events to the end, warning once', async () => {
    await add();
    const res = await box.run(['stream', 'volt', 'stream me']);
    expect(res.code, res.stderr).toBe(0);
    expect(warnings(res.stderr)).toHaveLength(1);
    expect(res.stdout).toMatch(/#\d+ task completed: echo: stream me/);
    const data = (await box.run(['stream', 'volt', 'stream me', '--json'])).json().data;
    expect(data.counts.task).toBeGreaterThanOrEqual(2);
    expect(data).toMatchObject({ task: { state: 'completed' }, last_message_text: 'echo: stream me', answer_text: 'echo: stream me' });
  });

  it('a2a-js: its card offers no v0.2 streaming, so stream is refused before sending, as for an SDK agent', async () => {
    await add();
    a2aJs.calls.length = 0;
    const res = await box.run(['stream', 'ajs', 'hi', '--json']);
    expect(res.code).toBe(64);
    expect(errorOf(res.stderr).code).toBe('missive::validation::streaming_not_supported');
    expect(a2aJs.calls).toEqual([]);
  });

  it('bcast and round over both servers gather their answers', async () => {
    await add();
    expect((await box.run(['group', 'create', 'indep', '--member', 'volt', '--member', 'ajs'])).code).toBe(0);
    const bcast = await box.run(['bcast', 'indep', 'all of you', '--json']);
    expect(bcast.code, bcast.stderr).toBe(0);
    expect(bcast.json().data.counts).toMatchObject({ succeeded: 2 });
    expect(jsonWarnings(bcast.stderr)).toHaveLength(2);

    const round = await box.run(['round', 'indep', 'round trip', '--json']);
    expect(round.code, round.stderr).toBe(0);
    expect(round.json().data).toMatchObject({ status: 'succeeded', gather: { counts: { gathered: 2 } } });
    const reduced = round.json().data.reduce.reduced_text as string;
    expect(reduced.match(/echo: round trip/g)).toHaveLength(2);
  });
});

/** A v0.2 JSON-RPC agent (card at /.well-known/agent.json) whose answers are chosen per test by the message text. */
function legacyCard(url: string, streaming = true) {
  return {
    name: 'raw-v02',
    description: 'kind-less',
    url: `${url}/rpc`,
    version: '1.0.0',
    capabilities: { streaming },
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [],
  };
}

const B64 = Buffer.from('%PDF-').toString('base64');
const taskId = () => randomUUID();

/** Results by the first word of the message; none of them carries `kind` at the top. */
function unaryResult(text: string): unknown {
  const id = taskId();
  const status = (state: string, message?: unknown) => ({ state, ...(message ? { message } : {}), timestamp: new Date().toISOString() });
  switch (text.split(' ')[0]) {
    case 'task':
      return { id, contextId: 'ctx-raw', status: status('completed', { role: 'agent', messageId: randomUUID(), parts: [{ text: `done: ${text}` }] }) };
    case 'message':
      return { messageId: randomUUID(), role: 'agent', contextId: 'ctx-raw', parts: [{ kind: 'text', text: `said: ${text}` }] };
    case 'ambiguous':
      return { id, status: status('completed'), messageId: randomUUID(), role: 'agent', parts: [] };
    case 'artifacts':
      return {
        id,
        contextId: 'ctx-raw',
        status: status('completed'),
        artifacts: [
          { artifactId: 'a-text', parts: [{ kind: 'text', text: 'the answer is 42' }] },
          { artifactId: 'a-data', parts: [{ kind: 'data', data: { answer: 42 } }] },
          { artifactId: 'a-file', parts: [{ kind: 'file', file: { name: 'report.pdf', mimeType: 'application/pdf', bytes: B64 } }] },
        ],
      };
    default:
      return { error: 'unknown' };
  }
}

function streamEvents(text: string): unknown[] {
  const id = taskId();
  const ids = { taskId: id, contextId: 'ctx-raw' };
  const now = () => new Date().toISOString();
  if (text.startsWith('ambiguous'))
    return [
      { id, status: { state: 'working' } },
      { ...ids, status: { state: 'completed' }, artifact: { artifactId: 'x', parts: [] } },
    ];
  const artifactOnly = text.startsWith('artifacts');
  return [
    { id, contextId: 'ctx-raw', status: { state: 'submitted', timestamp: now() } },
    { ...ids, status: { state: 'working', timestamp: now() }, final: false },
    { ...ids, artifact: { artifactId: 'out', parts: [{ kind: 'text', text: `streamed: ${text}` }] }, append: false, lastChunk: true },
    {
      ...ids,
      status: {
        state: 'completed',
        ...(artifactOnly ? {} : { message: { role: 'agent', messageId: randomUUID(), parts: [{ kind: 'text', text: `done: ${text}` }] } }),
        timestamp: now(),
      },
      final: true,
    },
  ];
}

function sse(res: ServerResponse, id: unknown, events: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: event })}\n\n`);
  res.end();
}

describe('v0.2 results without kind, and answers only in artifacts (raw node:http peer)', () => {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await startRawServer();
    raw.route('/.well-known/agent.json', (_req, res) => json(res, 200, legacyCard(raw.url)));
    raw.route('/rpc', (_req, res, body) => {
      const request = JSON.parse(body) as { id: unknown; method: string; params: { message?: { parts: Array<{ text?: string }> }; id?: string } };
      if (request.method === 'message/stream') return sse(res, request.id, streamEvents(request.params.message!.parts[0]!.text!));
      if (request.method === 'message/send')
        return json(res, 200, { jsonrpc: '2.0', id: request.id, result: unaryResult(request.params.message!.parts[0]!.text!) });
      if (request.method === 'tasks/get')
        return json(res, 200, { jsonrpc: '2.0', id: request.id, result: { ...(unaryResult('artifacts') as object), id: request.params.id } });
      json(res, 200, { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
    });
  });
  afterAll(() => raw.close());
  beforeEach(async () => {
    expect((await box.run(['agent', 'add', 'raw', raw.url])).code).toBe(0);
  });

  it('reads a kind-less task and a kind-less message (and kind-less parts), warning once per agent', async () => {
    const task = await box.run(['send', 'raw', 'task one']);
    expect(task.code, task.stderr).toBe(0);
    expect(task.stdout.split('\n')[0]).toBe('done: task one');
    expect(warnings(task.stderr)).toEqual([expect.stringMatching(/agent "raw" sends A2A 0\.3 results without the "kind" field the protocol requires/)]);

    const message = await box.run(['send', 'raw', 'message two', '--json']);
    expect(message.code, message.stderr).toBe(0);
    expect(message.json().data).toMatchObject({ response_shape: 'message', response: { message: { parts: [{ text: 'said: message two' }] } } });
    expect(jsonWarnings(message.stderr)).toEqual([expect.stringMatching(/agent "raw" sends A2A 0\.3 results without the "kind" field/)]);
  });

  it('keeps the raw JSON as received in the wire view', async () => {
    const res = await box.run(['send', 'raw', 'task raw', '--show-wire', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const body = JSON.parse(res.json().data.wire[0].response.body);
    expect(body.result.kind).toBeUndefined();
    expect(body.result.status.message.parts).toEqual([{ text: 'done: task raw' }]);
  });

  it('refuses an ambiguous shape naming the agent (exit 76), in send and in stream', async () => {
    const sent = await box.run(['send', 'raw', 'ambiguous one', '--json']);
    expect(sent.code).toBe(76);
    const err = errorOf(sent.stderr);
    expect(err.code).toBe('missive::protocol::ambiguous_result');
    expect(err.message).toMatch(/agent "raw" answered message\/send with a result that has no "kind" and could be a task or a message/);
    expect(err.message).not.toContain('Unexpected v0.3');

    const streamed = await box.run(['stream', 'raw', 'ambiguous two', '--json']);
    expect(streamed.code).toBe(76);
    const failure = errorOf(streamed.stderr);
    expect(failure.code).toBe('missive::protocol::ambiguous_result');
    expect(failure.message).toMatch(/agent "raw" .*event #2 .*could be a status update or an artifact update/);
  });

  it('streams kind-less task, status and artifact events, warning once', async () => {
    const res = await box.run(['stream', 'raw', 'events please', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json().data).toMatchObject({
      events: 4,
      counts: { task: 1, status_update: 2, artifact_update: 1 },
      task: { state: 'completed' },
      last_message_text: 'done: events please',
    });
    const found = jsonWarnings(res.stderr);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/agent "raw" sends A2A 0\.3 results without the "kind" field/);
  });

  it('prints answers carried only in artifacts: text, data as JSON, files by name and size', async () => {
    const sent = await box.run(['send', 'raw', 'artifacts only']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).not.toContain('without text');
    const answer = sent.stdout.split('\n\n')[0];
    expect(answer).toBe(['the answer is 42', '{"answer":42}', '[file report.pdf, application/pdf, 5 B]'].join('\n'));

    const data = (await box.run(['send', 'raw', 'artifacts again', '--json'])).json().data;
    const local = await box.run(['task', 'get', data.task.task_id]);
    expect(local.stdout).toContain('the answer is 42');
    expect(local.stdout).toContain('{"answer":42}');
    expect(local.stdout).toContain('[file report.pdf, application/pdf, 5 B]');
    const remote = await box.run(['task', 'get', data.task.task_id, '--remote', '--json']);
    expect(remote.json().data.answer_text).toContain('the answer is 42');

    const streamed = await box.run(['stream', 'raw', 'artifacts streamed']);
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(streamed.stdout).toMatch(/answer\s+streamed: artifacts streamed/);
    const streamedJson = (await box.run(['stream', 'raw', 'artifacts streamed', '--json'])).json().data;
    expect(streamedJson).toMatchObject({ last_message_text: null, answer_text: 'streamed: artifacts streamed' });
    readDb(box, (db) => expect((db.prepare(`SELECT count(*) AS n FROM artifacts WHERE artifact_id = 'a-file'`).get() as { n: number }).n).toBe(2));
  });

  it('shows an artifact-only answer in the job views', async () => {
    const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    const stop = new AbortController();
    const gateway = runGateway(core, { intervalMs: 100, signal: stop.signal });
    try {
      const done = await box.run(['job', 'start', 'send', 'raw', 'artifacts in a job', '--attach']);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toMatch(/answer\s+the answer is 42\\n\{"answer":42\}\\n\[file report\.pdf, application\/pdf, 5 B\]/);
      const shown = await box.run(['job', 'list', '--json']);
      const jobId = shown.json().data.jobs[0].job_id as string;
      expect((await box.run(['job', 'show', jobId, '--json'])).json().data.result.text).toContain('the answer is 42');
    } finally {
      stop.abort();
      await gateway;
      core.close();
    }
  });
});
