/**
 * `missive stream` over SSE on both bindings, on both stores (the embedded SQLite file and a shared PostgreSQL
 * database): SDK agents for the real flows, a raw server for broken streams. What a stream leaves is read back as
 * `task get`, `context export` and `events list` show it, an artifact's chunks through the storage interface, and
 * every stored row (for a secret not to be found in) with the same SQL on either engine.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { streamMessage } from '../../electron/core/messaging/stream.js';
import { minimalCard, json, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { storeRows, withStorage } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let chunks: EmbeddedAgent;
let echo: EmbeddedAgent;
let noStream: EmbeddedAgent;
let raw: RawServer;
let box: Sandbox;
let store: StoreUnderTest;

const status = (state: string, text = '') => ({
  statusUpdate: {
    taskId: 'raw-task',
    contextId: 'raw-ctx',
    status: { state, ...(text ? { message: { messageId: `m-${text.length}-${state}`, role: 'ROLE_AGENT', parts: [{ text }] } } : {}) },
  },
});
const task = { task: { id: 'raw-task', contextId: 'raw-ctx', status: { state: 'TASK_STATE_WORKING' } } };

/** Writes SSE records, honouring back-pressure, then ends (or breaks the connection). */
async function sse(res: ServerResponse, records: Iterable<string>, end: 'close' | 'destroy' = 'close') {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const data of records) {
    if (!res.write(`data: ${data}\n\n`)) await new Promise((r) => res.once('drain', r));
  }
  // Ending the socket (not the response) flushes what was written, then cuts the chunked body short.
  if (end === 'destroy') res.socket?.end();
  else res.end();
}

let rawScript: (res: ServerResponse, body: string) => Promise<void> = async (res) => void json(res, 500, {});

beforeAll(async () => {
  [chunks, echo, noStream, raw] = await Promise.all([
    startEmbeddedAgent({ name: 'Chunks', behaviour: 'chunks', chunks: 3 }),
    startEmbeddedAgent({ name: 'Echo', behaviour: 'echo' }),
    startEmbeddedAgent({ name: 'Plain', behaviour: 'echo', streaming: false }),
    startRawServer(),
  ]);
  raw.route('/.well-known/agent-card.json', (_req, res) =>
    json(
      res,
      200,
      minimalCard(raw.url, {
        capabilities: { streaming: true },
        supportedInterfaces: [
          { url: `${raw.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          { url: `${raw.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
      }),
    ),
  );
  raw.route('/a2a/rest/message:stream', (_req, res, body) => rawScript(res, body));
  raw.route('/rpc', (_req, res, body) => rawScript(res, body));
});
afterAll(async () => void (await Promise.all([chunks.close(), echo.close(), noStream.close(), raw.close()])));

/** The journal's events of `type` (a type or a prefix ending in .*), oldest first, as `events list` shows them. */
const events = async (type: string, filter: string[] = []): Promise<Array<{ type: string; payload: any; context_id: string | null }>> => {
  const res = await box.run(['events', 'list', '--type', type, ...filter, '--limit', '100000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events;
};
const streamEventTypes = async () => (await events('a2a.stream.*')).map((e) => e.type);
/** A task as `task get` shows it. */
const taskGet = async (taskId: string) => {
  const res = await box.run(['task', 'get', taskId, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
};
/** A context's messages as `missive context export` shows them (each stream update among them, in order). */
const exportedMessages = async (context: string): Promise<Array<Record<string, any>>> => {
  const res = await box.run(['context', 'export', context, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.messages;
};

describe.each(STORES)('stream (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    for (const [alias, agent] of [
      ['chunks', chunks],
      ['echo', echo],
      ['plain', noStream],
    ] as const)
      expect((await box.run(['agent', 'add', alias, agent.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'raw', raw.url])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  describe('stream against SDK agents', () => {
    for (const binding of ['http+json', 'json-rpc'] as const) {
      it(`follows a task with appended artifact chunks over ${binding}, rendering each event as it arrives`, async () => {
        const res = await box.run(['stream', 'chunks', 'write a poem', '--binding', binding, '--ndjson']);
        expect(res.code).toBe(0);
        const lines = res.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(lines.map((l) => l.kind)).toEqual([...Array(6).fill('stream_event'), 'stream_result']);
        expect(lines.slice(0, 6).map((l) => l.data.variant)).toEqual([
          'task',
          'statusUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'statusUpdate',
        ]);
        expect(lines.map((l) => l.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6]);
        const result = lines[6].data;
        expect(result).toMatchObject({
          events: 6,
          counts: { task: 1, status_update: 2, artifact_update: 3 },
          task: { state: 'completed', artifacts: [{ artifact_id: 'result', version: 3, last_chunk: true }] },
        });

        const shown = await taskGet(result.task.task_id);
        expect(shown.task).toMatchObject({ state: 'completed', remote_state: 'TASK_STATE_COMPLETED', protocol_version: '1.0', context_id: result.context_id });
        expect(shown.artifacts).toMatchObject([{ artifact_id: 'result', version: 3, last_chunk: 1, kind: 'text', chunks: 3 }]);
        const artifact = await withStorage(box, (s) => s.conversation.getArtifact(result.task.task_id, 'result'));
        expect((artifact!.content.parts as any[]).map((p) => p.text)).toEqual([
          'chunk 1 of 3 for: write a poem\n',
          'chunk 2 of 3 for: write a poem\n',
          'chunk 3 of 3 for: write a poem\n',
        ]);
        const messages = (await exportedMessages(result.context_id)).filter((m) => m.task_id === result.task.task_id);
        expect(messages.map((m) => m.direction)).toEqual(['request', ...Array(6).fill('stream_event')]);
        expect(messages.slice(1).map((m) => Object.keys(m.content)[0])).toEqual([
          'task',
          'statusUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'statusUpdate',
        ]);
        expect(await streamEventTypes()).toEqual([
          'a2a.stream.started',
          'a2a.stream.task',
          'a2a.stream.status_update',
          'a2a.stream.artifact_update',
          'a2a.stream.artifact_update',
          'a2a.stream.artifact_update',
          'a2a.stream.status_update',
          'a2a.stream.completed',
        ]);
      });
    }

    it('prints one human line per event and a summary; --json prints only the final stream_result', async () => {
      const human = await box.run(['stream', 'chunks', 'hi']);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^#1 task submitted\n#2 statusUpdate working\n#3 artifactUpdate result v1: chunk 1 of 3 for: hi\n/);
      expect(human.stdout).toContain('#6 statusUpdate completed: done: hi');
      const single = await box.run(['stream', 'chunks', 'hi', '--json']);
      expect(single.json()).toMatchObject({ kind: 'stream_result', data: { events: 6 } });
    });

    it('streams a direct Message from an agent that answers with one', async () => {
      const res = await box.run(['stream', 'echo', 'ping', '--context', 'ctx-echo', '--json']);
      expect(res.code).toBe(0);
      expect(res.json().data).toMatchObject({ events: 1, counts: { message: 1 }, task: null, last_message_text: 'echo: ping', context_id: 'ctx-echo' });
      const rows = (await exportedMessages('ctx-echo')).map(({ direction, role, context_id }) => ({ direction, role, context_id }));
      expect(rows).toEqual([
        { direction: 'request', role: 'user', context_id: 'ctx-echo' },
        { direction: 'stream_event', role: 'agent', context_id: 'ctx-echo' },
      ]);
    });

    it('refuses before connecting when the card lacks capabilities.streaming, unless --force', async () => {
      await box.run(['agent', 'inspect', 'plain']);
      const before = noStream.requests.length;
      const refused = await box.run(['stream', 'plain', 'hi']);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain('does not advertise capabilities.streaming');
      expect(noStream.requests.length).toBe(before);
      // --force skips the local check: the request reaches the agent, whose own refusal is reported.
      const forced = await box.run(['stream', 'plain', 'hi', '--force']);
      expect(forced.code).not.toBe(64);
      expect(noStream.requests.some((r) => r.method === 'POST' && r.path.endsWith('message:stream'))).toBe(true);
    });
  });

  describe('stream edge cases (raw server)', () => {
    it('fails with exit 76 and the sequence number on malformed JSON, keeping the events before it', async () => {
      rawScript = (res) => sse(res, [JSON.stringify(task), JSON.stringify(status('TASK_STATE_WORKING', 'step')), '{"statusUpdate": ']);
      const res = await box.run(['stream', 'raw', 'hi', '--binding', 'http+json']);
      expect(res.code).toBe(76);
      expect(res.stderr).toContain('stream event #3 is not valid JSON');
      expect(res.stdout).toContain('#2 statusUpdate working: step');
      expect(await streamEventTypes()).toEqual(['a2a.stream.started', 'a2a.stream.task', 'a2a.stream.status_update', 'a2a.stream.failed']);
      expect((await taskGet('raw-task')).task.state).toBe('working');
    });

    it('rejects an unknown stream variant with its sequence number', async () => {
      rawScript = (res) => sse(res, [JSON.stringify(task), JSON.stringify({ progress: { percent: 5 } })]);
      const res = await box.run(['stream', 'raw', 'hi', '--binding', 'http+json', '--json']);
      expect(res.code).toBe(76);
      const err = JSON.parse(res.stderr).data;
      expect(err).toMatchObject({ category: 'protocol', code: 'missive::protocol::unknown_stream_variant' });
      expect(err.message).toContain('stream event #2');
    });

    it('keeps received events when the connection breaks mid-stream (exit 69)', async () => {
      rawScript = (res) => sse(res, [JSON.stringify(task), JSON.stringify(status('TASK_STATE_WORKING', 'half'))], 'destroy');
      const res = await box.run(['stream', 'raw', 'hi', '--binding', 'http+json']);
      expect(res.code).toBe(69);
      expect(res.stderr).toMatch(/broke after 2 event/);
      const failed = await events('a2a.stream.failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]!.payload).toMatchObject({ events_received: 2 });
      expect((await exportedMessages('raw-ctx')).filter((m) => m.direction === 'stream_event')).toHaveLength(2);
    });

    it('turns a JSON-RPC error event into a protocol error', async () => {
      rawScript = (res, body) => {
        const id = JSON.parse(body).id;
        expect(JSON.parse(body).method).toBe('SendStreamingMessage');
        return sse(res, [
          JSON.stringify({ jsonrpc: '2.0', id, result: task }),
          JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'model overloaded' } }),
        ]);
      };
      const res = await box.run(['stream', 'raw', 'hi', '--binding', 'json-rpc']);
      expect(res.code).toBe(76);
      expect(res.stderr).toContain('in stream event #2 with JSON-RPC error -32603: model overloaded');
    });

    it('maps a JSON-RPC error answered instead of a stream, and an HTTP failure', async () => {
      rawScript = async (res, body) => json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32004, message: 'Unsupported operation' } });
      const rpc = await box.run(['stream', 'raw', 'hi', '--binding', 'json-rpc']);
      expect(rpc.code).toBe(76);
      expect(rpc.stderr).toContain('Unsupported operation');
      rawScript = async (res) => json(res, 503, { error: { code: 503, message: 'busy' } });
      const http = await box.run(['stream', 'raw', 'hi', '--binding', 'http+json']);
      expect(http.code).toBe(69);
      expect(http.stderr).toContain('HTTP 503');
    });

    it('never stores or prints a token the agent echoes back in events and artifacts', async () => {
      const token = 'stream-secret-0123456789';
      rawScript = async (res) => {
        const echoed = String(raw.requests.at(-1)?.headers.authorization ?? '');
        expect(echoed).toBe(`Bearer ${token}`);
        await sse(res, [
          JSON.stringify(task),
          JSON.stringify(status('TASK_STATE_WORKING', `you sent ${echoed}`)),
          JSON.stringify({ artifactUpdate: { taskId: 'raw-task', contextId: 'raw-ctx', artifact: { artifactId: 'a', parts: [{ text: `token=${token}` }] } } }),
          JSON.stringify(status('TASK_STATE_COMPLETED')),
        ]);
      };
      const res = await box.run(['stream', 'raw', 'hi', '--binding', 'http+json', '--bearer-token-env', 'STREAM_TOKEN', '--ndjson'], {
        env: { STREAM_TOKEN: token },
      });
      expect(res.code).toBe(0);
      expect(res.stdout + res.stderr).not.toContain(token);
      const dump = (
        await Promise.all(
          ['tasks', 'messages', 'artifacts', 'artifact_chunks', 'events'].map(async (t) => JSON.stringify(await storeRows(box, `SELECT * FROM ${t}`))),
        )
      ).join('\n');
      expect(dump).toMatch(/you sent (Bearer )?\[REDACTED\]/);
      expect(dump).not.toContain(token);
    });

    it(
      'streams 10,000 events with flat memory and records every one',
      async () => {
        const total = 10_000;
        const filler = 'x'.repeat(4000);
        rawScript = (res) =>
          sse(
            res,
            (function* () {
              yield JSON.stringify(task);
              for (let i = 1; i < total; i++) yield JSON.stringify(status('TASK_STATE_WORKING', `${i} ${filler}`));
            })(),
          );
        const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
        const heap: number[] = [];
        try {
          const result = await streamMessage(core, {
            agent: 'raw',
            text: 'long',
            cwd: box.home,
            binding: 'http+json',
            onEvent: (e) => {
              if (e.sequence % 1000 === 0) {
                (globalThis as { gc?: () => void }).gc?.();
                heap.push(process.memoryUsage().heapUsed);
              }
            },
          });
          expect(result.events).toBe(total);
        } finally {
          core.close();
        }
        // ~40 MB of SSE went through; holding it would grow the heap by at least that much between the samples.
        const growth = Math.max(...heap.slice(1)) - heap[0]!;
        expect(heap).toHaveLength(10);
        expect(growth).toBeLessThan(8 * 1024 * 1024);
        const [counted] = await storeRows(box, `SELECT count(*) AS n FROM events WHERE event_type = 'a2a.stream.status_update'`);
        expect(Number(counted!.n)).toBe(total - 1);
        // PostgreSQL commits each event in its own transaction: 10,000 round trips (about 40 s on an idle 2-core machine).
      },
      kind === 'postgres' ? 300_000 : 120_000,
    );
  });
});
