/**
 * `missive send` against real SDK agents on both bindings, on both stores (the embedded SQLite file and a shared
 * PostgreSQL database): what it leaves is read back through `events list`, the storage interface (what `task get`
 * shows) and, for the message rows no command shows yet, the same SQL on either engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { storeRows, withStorage } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let echo: EmbeddedAgent;
let tasks: EmbeddedAgent;
let raw: RawServer;
let box: Sandbox;
let store: StoreUnderTest;

beforeAll(async () => {
  [echo, tasks, raw] = await Promise.all([
    startEmbeddedAgent({ name: 'Echo', behaviour: 'echo' }),
    startEmbeddedAgent({ name: 'Tasks', behaviour: 'task' }),
    startRawServer(),
  ]);
  raw.route('/.well-known/agent-card.json', (_req, res) =>
    json(res, 200, minimalCard(raw.url, { supportedInterfaces: [{ url: `${raw.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] })),
  );
  raw.route('/rpc', (_req, res) => json(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32004, message: 'Unsupported operation' } }));
});
afterAll(async () => void (await Promise.all([echo.close(), tasks.close(), raw.close()])));

/** The journal's events of `type` (a type or a prefix ending in .*), oldest first, as `events list` shows them. */
const events = async (type: string): Promise<Array<{ type: string; payload: any }>> => {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '1000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events;
};

describe.each(STORES)('send (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox({ SEND_TOKEN: 'send-secret-abcdef', ...store.env });
    expect((await box.run(['agent', 'add', 'echo', echo.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'tasks', tasks.baseUrl])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  for (const binding of ['http+json', 'json-rpc'] as const) {
    it(`gets a direct Message over ${binding} and stores request and response rows`, async () => {
      const res = await box.run(['send', 'echo', 'hello there', '--binding', binding, '--context', 'ctx-a', '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data).toMatchObject({ response_shape: 'message', selected_interface: { binding }, request: { context_id: 'ctx-a', parts: 1 } });
      expect(data.response.message.parts[0].text).toBe('echo: hello there');
      const rows = await storeRows(box, 'SELECT message_id, direction, role, context_id FROM messages ORDER BY rowid');
      expect(rows.map((r) => [r.direction, r.role, r.context_id])).toEqual([
        ['request', 'user', 'ctx-a'],
        ['response', 'agent', 'ctx-a'],
      ]);
      expect(rows[0]!.message_id).toBe(data.request.message_id);
      expect((await events('a2a.send.*')).map((e) => e.type)).toEqual(['a2a.send.started', 'a2a.send.completed']);
    });

    it(`persists a Task with its artifacts over ${binding}`, async () => {
      const res = await box.run(['send', 'tasks', '--part', 'text=summarise this', '--binding', binding, '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data.response_shape).toBe('task');
      expect(data.task).toMatchObject({ state: 'completed', artifacts: [{ artifact_id: 'result', version: 1 }] });
      // What `task get` shows (read through the storage interface: `task get` itself refuses PostgreSQL for now; see tasks.test.ts).
      const [storedOn, task, artifacts] = await withStorage(box, (s) =>
        Promise.all([s.kind, s.conversation.getTask(data.task.task_id), s.conversation.listArtifactsOfTask(data.task.task_id)]),
      );
      expect(storedOn).toBe(kind);
      expect(task).toMatchObject({ state: 'completed', remote_state: 'TASK_STATE_COMPLETED', protocol_version: '1.0' });
      expect(artifacts).toMatchObject([{ kind: 'text', name: 'result.txt' }]);
      const [stored] = await storeRows(box, 'SELECT remote_task_json FROM tasks WHERE task_id = ?', [data.task.task_id]);
      expect(JSON.parse(stored!.remote_task_json).id).toBe(data.task.task_id);
      const linked = await storeRows(box, 'SELECT direction FROM messages WHERE task_id = ? ORDER BY ordinal', [data.task.task_id]);
      expect(linked.map((m) => m.direction)).toEqual(['request', 'response']);
    });
  }

  it('sends every part kind in order', async () => {
    const txt = join(box.home, 'note.txt');
    const bin = join(box.home, 'blob.bin');
    writeFileSync(txt, 'file text');
    writeFileSync(bin, Buffer.from([0, 1, 2, 255]));
    const res = await box.run([
      'send',
      'echo',
      'first',
      '--part',
      'text=second',
      '--file',
      txt,
      '--file-url',
      txt,
      '--file-bytes',
      bin,
      '--json-part',
      '{"k":1}',
      '--json',
    ]);
    expect(res.code).toBe(0);
    const [row] = await storeRows(box, `SELECT content_json FROM messages WHERE direction = 'request'`);
    const request = JSON.parse(row!.content_json);
    expect(request.parts).toEqual([
      { text: 'first' },
      { text: 'second' },
      { text: 'file text', filename: 'note.txt', mediaType: 'text/plain' },
      { url: expect.stringMatching(/^file:\/\/\/.*note\.txt$/), filename: 'note.txt', mediaType: 'text/plain' },
      { raw: Buffer.from([0, 1, 2, 255]).toString('base64'), filename: 'blob.bin', mediaType: 'application/octet-stream' },
      { data: { k: 1 }, mediaType: 'application/json' },
    ]);
  });

  it('refuses over-size inputs with exit 65 before sending anything', async () => {
    const config = join(box.home, 'small.toml');
    writeFileSync(config, '[qos]\nmax_request_bytes = 64\n');
    const before = echo.requests.filter((r) => r.path.includes('message')).length;
    const res = await box.run(['send', 'echo', 'x'.repeat(100), '--config', config, '--json']);
    expect(res.code).toBe(65);
    expect(JSON.parse(res.stderr).data.message).toMatch(/100 bytes.*max_request_bytes = 64/);
    expect(echo.requests.filter((r) => r.path.includes('message')).length).toBe(before);
  });

  it('maps JSON-RPC error objects to protocol errors (exit 76) and journals the failure', async () => {
    await box.run(['agent', 'add', 'broken', raw.url]);
    const res = await box.run(['send', 'broken', 'hi', '--bearer-token-env', 'SEND_TOKEN', '--json']);
    expect(res.code).toBe(76);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::protocol::unsupported_operation');
    expect(raw.requests.at(-1)!.headers.authorization).toBe('Bearer send-secret-abcdef');
    const failed = await events('a2a.send.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.payload.error.exit_code).toBe(76);
    expect(res.stderr + res.stdout).not.toContain('send-secret-abcdef');
  });

  it('refuses an empty message with a usage error', async () => {
    expect((await box.run(['send', 'echo'])).code).toBe(64);
  });
});
