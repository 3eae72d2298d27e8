/**
 * `task list` (local and ListTasks on both bindings), on both stores (SQLite and PostgreSQL), and
 * `task artifact list|show|save|export`, on SQLite only: `task artifact *` (and `stream`, which the first of those
 * tests sends with) do not run on a PostgreSQL store yet (core/store/team-scope.ts), they refuse it with exit 78.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { withStorage } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let tasks: EmbeddedAgent;
let chunks: EmbeddedAgent;
let raw: RawServer;
let box: Sandbox;
let store: StoreUnderTest;

const rawTask = {
  id: 'raw-1',
  contextId: 'ctx raw/1',
  status: { state: 'TASK_STATE_COMPLETED' },
  artifacts: [
    { artifactId: 'evil', name: '../../etc/evil.sh', parts: [{ text: 'echo pwned', mediaType: 'text/x-sh' }] },
    { artifactId: 'bin', name: 'logo.png', parts: [{ raw: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString('base64'), mediaType: 'image/png' }] },
    { artifactId: 'link', name: 'report', parts: [{ url: 'RAW_URL/private/report.pdf', mediaType: 'application/pdf' }, { data: { score: 3 } }] },
  ],
};

beforeAll(async () => {
  [tasks, chunks, raw] = await Promise.all([
    startEmbeddedAgent({ name: 'Tasks', behaviour: 'task' }),
    startEmbeddedAgent({ name: 'Chunks', behaviour: 'chunks', chunks: 3 }),
    startRawServer(),
  ]);
  const task = JSON.parse(JSON.stringify(rawTask).replace('RAW_URL', raw.url));
  raw.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(raw.url)));
  // ListTasks without nextPageToken / pageSize / totalSize, as some agents answer.
  raw.route('/a2a/rest/tasks', (_req, res) => json(res, 200, { tasks: [task] }));
  raw.route('/a2a/rest/tasks/a%2Fb%20c', (_req, res) => json(res, 200, { id: 'a/b c', contextId: 'ctx-odd', status: { state: 'TASK_STATE_WORKING' } }));
});
afterAll(async () => void (await Promise.all([tasks.close(), chunks.close(), raw.close()])));

/** A sandbox on `store` with the three agents registered. */
async function boxWithAgents(on: StoreUnderTest): Promise<Sandbox> {
  const b = sandbox(on.env);
  expect((await b.run(['agent', 'add', 'tasks', tasks.baseUrl])).code).toBe(0);
  expect((await b.run(['agent', 'add', 'chunks', chunks.baseUrl])).code).toBe(0);
  expect((await b.run(['agent', 'add', 'raw', raw.url])).code).toBe(0);
  return b;
}

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);

describe.each(STORES)('task list (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = await boxWithAgents(store);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  it('pages through the local journal with filters', async () => {
    for (const text of ['one', 'two', 'three']) expect((await box.run(['send', 'tasks', text])).code).toBe(0);
    await box.run(['send', 'chunks', 'four', '--context', 'ctx-four']);
    const all = (await box.run(['task', 'list', '--json'])).json().data;
    expect(all).toMatchObject({ source: 'local', next_page_token: null });
    expect(all.tasks).toHaveLength(4);
    const byAgent = (await box.run(['task', 'list', '--agent', 'tasks', '--status', 'completed', '--json'])).json().data;
    expect(byAgent.tasks.map((t: any) => t.agent_alias)).toEqual(['tasks', 'tasks', 'tasks']);
    expect((await box.run(['task', 'list', '--context', 'ctx-four', '--json'])).json().data.tasks.map((t: any) => t.agent_alias)).toEqual(['chunks']);
    const first = (await box.run(['task', 'list', '--page-size', '3', '--json'])).json().data;
    expect(first.tasks).toHaveLength(3);
    const second = (await box.run(['task', 'list', '--page-size', '3', '--page-token', first.next_page_token, '--json'])).json().data;
    expect(second).toMatchObject({ next_page_token: null });
    expect([...first.tasks, ...second.tasks].map((t: any) => t.task_id).sort()).toEqual(all.tasks.map((t: any) => t.task_id).sort());
  });

  it('rejects bad filters with exit 64', async () => {
    expect((await box.run(['task', 'list', '--status', 'sleeping'])).code).toBe(64);
    expect((await box.run(['task', 'list', '--page-size', 'many'])).code).toBe(64);
    expect((await box.run(['task', 'list', '--page-token', 'bm9wZQ'])).code).toBe(64);
    expect((await box.run(['task', 'list', '--remote'])).stderr).toContain('needs --agent');
  });

  for (const binding of ['http+json', 'json-rpc'] as const) {
    it(`asks an agent with ListTasks over ${binding} and records tasks it did not know`, async () => {
      const sent = (await box.run(['send', 'tasks', 'remember me', '--json'])).json().data;
      // Another user, on a store of the same engine that has never seen the task.
      const otherStore = await storeUnderTest(kind);
      const other = sandbox(otherStore.env);
      try {
        expect((await other.run(['agent', 'add', 'tasks', tasks.baseUrl, '--binding-preference', binding])).code).toBe(0);
        const onWire = () =>
          tasks.requests.filter((r) => (binding === 'http+json' ? r.method === 'GET' && r.path.endsWith('/tasks') : r.path.endsWith('/jsonrpc'))).length;
        const before = onWire();
        const res = await other.run(['task', 'list', '--remote', '--agent', 'tasks', '--status', 'completed', '--page-size', '100', '--json']);
        expect(res.code).toBe(0);
        const listed = res.json().data;
        expect(listed.source).toBe('remote');
        expect(onWire()).toBeGreaterThan(before);
        expect(listed.tasks.map((t: any) => t.task_id)).toContain(sent.task.task_id);
        const [storedOn, row, artifacts] = await withStorage(other, (s) =>
          Promise.all([s.kind, s.conversation.getTask(sent.task.task_id), s.conversation.listArtifactsOfTask(sent.task.task_id)]),
        );
        expect(storedOn).toBe(kind);
        expect(row).toMatchObject({ state: 'completed', agent_alias: 'tasks' });
        expect(artifacts).toEqual([]);
        const withArtifacts = await other.run(['task', 'list', '--remote', '--agent', 'tasks', '--include-artifacts', '--json']);
        expect(withArtifacts.json().data.tasks.find((t: any) => t.task_id === sent.task.task_id).artifacts).toEqual([{ artifact_id: 'result', version: 1 }]);
      } finally {
        other.dispose();
        await otherStore.release();
      }
    });
  }

  it('tolerates a ListTasksResponse without pagination fields', async () => {
    const asked = () => raw.requests.filter((r) => r.path === '/a2a/rest/tasks').length;
    const before = asked();
    const res = await box.run(['task', 'list', '--remote', '--agent', 'raw', '--context', 'ctx raw/1', '--json']);
    expect(res.code).toBe(0);
    expect(res.json().data).toMatchObject({ next_page_token: null, total_size: null, tasks: [{ task_id: 'raw-1', state: 'completed' }] });
    expect(asked()).toBeGreaterThan(before);
  });

  it('percent-encodes task ids in GetTask', async () => {
    const got = await box.run(['task', 'get', 'a/b c', '--remote', '--agent', 'raw', '--json']);
    expect(got.code).toBe(0);
    expect(got.json().data.task).toMatchObject({ task_id: 'a/b c', state: 'working' });
  });
});

// SQLite only: `task artifact *` and `stream` refuse a PostgreSQL store for now (see the top of the file).
describe('task artifact (SQLite store)', () => {
  beforeEach(async () => {
    box = await boxWithAgents(await storeUnderTest('sqlite'));
  });
  afterEach(() => box.dispose());

  it('lists, shows and saves a streamed artifact; no overwrite without --force', async () => {
    const streamed = (await box.run(['stream', 'chunks', 'story', '--json'])).json().data;
    const id = streamed.task.task_id;
    const list = (await box.run(['task', 'artifact', 'list', id, '--json'])).json().data;
    expect(list.artifacts).toMatchObject([{ artifact_id: 'result', name: 'result.txt', version: 3, chunks: 3, last_chunk: 1, kind: 'text' }]);
    const shown = await box.run(['task', 'artifact', 'show', id, 'result']);
    expect(shown.stdout).toContain('chunk 1 of 3 for: story\nchunk 2 of 3 for: story\nchunk 3 of 3 for: story');
    const target = join(box.home, 'story.txt');
    expect((await box.run(['task', 'artifact', 'save', id, 'result', '--output', 'story.txt'])).code).toBe(0);
    const expected = 'chunk 1 of 3 for: story\nchunk 2 of 3 for: story\nchunk 3 of 3 for: story\n';
    expect(readFileSync(target, 'utf8')).toBe(expected);
    writeFileSync(target, 'mine');
    const refused = await box.run(['task', 'artifact', 'save', id, 'result', '--output', 'story.txt']);
    expect(refused.code).toBe(64);
    expect(readFileSync(target, 'utf8')).toBe('mine');
    expect((await box.run(['task', 'artifact', 'save', id, 'result', '--output', 'story.txt', '--force'])).code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(expected);
    expect((await box.run(['task', 'artifact', 'show', id, 'nope'])).code).toBe(64);
  });

  it('exports with safe names, decoded bytes and url manifests, never fetching urls', async () => {
    expect((await box.run(['task', 'list', '--remote', '--agent', 'raw'])).code).toBe(0);
    const dir = join(box.home, 'out');
    const res = await box.run(['task', 'artifact', 'export', 'raw-1', '--output-dir', 'out', '--json']);
    expect(res.code).toBe(0);
    const files = readdirSync(dir).sort();
    expect(files).toEqual(['evil.sh', 'logo.png', 'manifest.json', 'report.part1.url.json', 'report.part2.json']);
    expect(existsSync(join(box.home, 'etc'))).toBe(false);
    expect([...readFileSync(join(dir, 'logo.png'))]).toEqual([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    expect(JSON.parse(readFileSync(join(dir, 'report.part1.url.json'), 'utf8'))).toMatchObject({ kind: 'url', url: `${raw.url}/private/report.pdf` });
    expect(JSON.parse(readFileSync(join(dir, 'report.part2.json'), 'utf8'))).toEqual({ score: 3 });
    expect(raw.requests.some((r) => r.path.startsWith('/private'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: any) => [f.file, f.artifact_id, f.kind])).toEqual([
      ['logo.png', 'bin', 'bytes'],
      ['evil.sh', 'evil', 'text'],
      ['report.part1.url.json', 'link', 'url'],
      ['report.part2.json', 'link', 'json'],
    ]);

    writeFileSync(join(dir, 'logo.png'), 'keep');
    const again = await box.run(['task', 'artifact', 'export', 'raw-1', '--output-dir', 'out']);
    expect(again.code).toBe(64);
    expect(readFileSync(join(dir, 'logo.png'), 'utf8')).toBe('keep');
    expect((await box.run(['task', 'artifact', 'export', 'raw-1', '--output-dir', 'out', '--force'])).code).toBe(0);
    expect(readFileSync(join(dir, 'logo.png')).length).toBe(7);
    withDb((d) => expect((d.prepare(`SELECT count(*) AS n FROM events WHERE event_type = 'missive.artifact.exported'`).get() as any).n).toBe(2));
  });

  it('refuses an unknown task', async () => {
    mkdirSync(join(box.home, 'x'));
    const res = await box.run(['task', 'artifact', 'export', 'missing', '--output-dir', 'x']);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain('not in the local journal');
  });
});
