/**
 * Context continuity: names usable as --context, forks, close, and a complete redacted export. On both stores: the
 * embedded SQLite file and a shared PostgreSQL database (team mode).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { storeRows, withStorage } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';

const TOKEN = 'ctx-secret-abcdef123456';
let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let store: StoreUnderTest;

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' }, chunks: { behaviour: 'chunks', chunks: 2 } });
});
afterAll(() => fleet.close());

/** A fresh store of `kind` for each test, with the fleet registered behind an auth ref. */
function onStore(kind: StoreKindUnderTest): void {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox({ CTX_TOKEN: TOKEN, ...store.env });
    await box.run(['auth', 'add', 'ctxauth', '--env', 'CTX_TOKEN']);
    await register(box, fleet.agents, ['--auth-ref', 'ctxauth']);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });
}

describe.each(STORES)('context (%s store)', (kind) => {
  onStore(kind);

  it('creates, names and resolves names on send, stream and bcast', async () => {
    const created = (await box.run(['context', 'create', '--name', 'planning', '--json'])).json().data;
    expect(created).toMatchObject({ name: 'planning', state: 'open', parent_context_id: null });
    const sent = (await box.run(['send', 'tasks', 'step one', '--context', 'planning', '--json'])).json().data;
    expect(sent.task.context_id).toBe(created.context_id);
    const streamed = (await box.run(['stream', 'chunks', 'step two', '--context', 'planning', '--json'])).json().data;
    expect(streamed.context_id).toBe(created.context_id);
    await box.run(['group', 'create', 'g', '--member', 'echo']);
    const fanned = (await box.run(['bcast', 'g', 'step three', '--context', 'planning', '--json'])).json().data;
    expect(fanned.request).toMatchObject({ context_id: created.context_id, context_created: false });
    const shown = (await box.run(['context', 'show', 'planning', '--json'])).json().data;
    expect(shown.counts).toMatchObject({ tasks: 2 });
    expect((await box.run(['context', 'name', created.context_id, 'plans', '--json'])).json().data.name).toBe('plans');
    expect((await box.run(['context', 'create', '--name', 'plans'])).code).toBe(64);
    expect((await box.run(['context', 'create', '--name', '../bad'])).code).toBe(64);
    const listed = (await box.run(['context', 'list', '--json'])).json().data.contexts;
    expect(listed.find((c: any) => c.context_id === created.context_id)).toMatchObject({ name: 'plans', tasks: 2, agent: 'tasks', preview: 'step one' });
    const human = (await box.run(['context', 'list'])).stdout;
    expect(human).toMatch(/CONTEXT\s+NAME\s+STATE\s+TASKS\s+MESSAGES\s+UPDATED/);
    expect(human).toContain('plans');
    const events = (await box.run(['events', 'list', '--type', 'missive.context.*', '--json'])).json().data.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['missive.context.created', 'missive.context.named']);
  });

  it('forks with the parent recorded, and refuses sends into a closed context', async () => {
    const parent = (await box.run(['context', 'create', '--name', 'p', '--json'])).json().data;
    const fork = (await box.run(['context', 'fork', 'p', '--name', 'child', '--json'])).json().data;
    expect(fork).toMatchObject({ name: 'child', parent_context_id: parent.context_id, metadata: { forked_from: parent.context_id } });
    expect((await box.run(['context', 'fork', 'p', '--name', 'child'])).code).toBe(64);
    expect((await box.run(['context', 'close', 'p', '--json'])).json().data).toMatchObject({ state: 'closed', closed_at: expect.any(String) });
    const refused = await box.run(['send', 'echo', 'hi', '--context', 'p']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('Fork it to continue');
    await box.run(['group', 'create', 'g', '--member', 'echo']);
    expect((await box.run(['bcast', 'g', 'hi', '--context', 'p'])).code).toBe(64);
    expect((await box.run(['send', 'echo', 'hi', '--context', 'child'])).code).toBe(0);
    const unknown = await box.run(['context', 'show', 'nope', '--json']);
    expect(unknown.code).toBe(64);
    expect(JSON.parse(unknown.stderr).data.code).toBe('missive::validation::unknown_context');
  });

  it('refuses a name or an id already taken (exit 64)', async () => {
    expect((await box.run(['context', 'create', '--name', 'race'])).code).toBe(0);
    const twice = await box.run(['context', 'create', '--name', 'race', '--json']);
    expect(twice.code).toBe(64);
    expect(JSON.parse(twice.stderr).data.code).toBe('missive::validation::context_name_taken');
    const other = (await box.run(['context', 'create', '--json'])).json().data;
    const renamed = await box.run(['context', 'name', other.context_id, 'race', '--json']);
    expect(renamed.code).toBe(64);
    expect(JSON.parse(renamed.stderr).data.code).toBe('missive::validation::context_name_taken');
    expect((await box.run(['context', 'create', '--id', other.context_id])).code).toBe(64);
    expect((await box.run(['context', 'list', '--json'])).json().data.contexts.filter((c: any) => c.name === 'race')).toHaveLength(1);
  });

  it('exports messages, tasks, artifacts with parts and events, with no secret anywhere', async () => {
    await box.run(['context', 'create', '--name', 'exp']);
    await box.run(['send', 'tasks', `my token is ${TOKEN}`, '--context', 'exp']);
    await box.run(['stream', 'chunks', 'more', '--context', 'exp']);
    const res = await box.run(['context', 'export', 'exp', '--output', 'exp.json', '--json']);
    expect(res.code).toBe(0);
    expect(res.json().data).toMatchObject({ path: join(box.home, 'exp.json'), counts: { tasks: 2, artifacts: 2 } });
    const text = readFileSync(join(box.home, 'exp.json'), 'utf8');
    const doc = JSON.parse(text);
    expect(doc.schema).toBe('missive.context_export.v1');
    expect(doc.tasks).toHaveLength(2);
    expect(doc.messages.length).toBeGreaterThanOrEqual(4);
    expect(doc.artifacts.find((a: any) => a.artifact_id === 'result' && a.content.parts.length === 2)).toBeTruthy();
    expect(doc.events.map((e: any) => e.event_type)).toEqual(expect.arrayContaining(['a2a.send.started', 'a2a.stream.artifact_update']));
    // Rows as SQLite's `SELECT *` gives them, on either store: no engine's own columns, sequences as numbers.
    expect(Object.keys(doc.messages.find((m: any) => m.direction === 'request'))).toEqual([
      'message_id',
      'agent_alias',
      'context_id',
      'task_id',
      'direction',
      'role',
      'ordinal',
      'protocol_message_id',
      'content',
      'metadata',
      'created_at',
    ]);
    expect(Object.keys(doc.events[0])).toEqual([
      'sequence',
      'event_id',
      'timestamp',
      'source',
      'event_type',
      'agent_alias',
      'context_id',
      'task_id',
      'dedupe_key',
      'payload',
      'metadata',
      'redacted',
    ]);
    expect(doc.events.map((e: any) => typeof e.sequence)).toEqual(doc.events.map(() => 'number'));
    expect(Object.keys(doc.artifacts[0])).not.toContain('rowid');
    expect(text).not.toContain(TOKEN);
    writeFileSync(join(box.home, 'keep.json'), 'mine');
    expect((await box.run(['context', 'export', 'exp', '--output', 'keep.json'])).code).toBe(64);
    expect(readFileSync(join(box.home, 'keep.json'), 'utf8')).toBe('mine');
    const stdout = await box.run(['context', 'export', 'exp', '--json']);
    expect(stdout.json().data.context.name).toBe('exp');
    expect(stdout.stdout).not.toContain(TOKEN);
    expect(JSON.stringify(await storeRows(box, `SELECT * FROM messages`))).not.toContain(TOKEN);
    const exported = (await box.run(['events', 'list', '--type', 'missive.context.exported', '--json'])).json().data.events;
    expect(exported.map((e: any) => e.payload)).toEqual([
      { path: join(box.home, 'exp.json'), messages: doc.messages.length, tasks: 2, events: doc.events.length },
    ]);
  });
});

describe('context (postgres store only)', () => {
  onStore('postgres');

  it('hosts creating one name at once: one has it, the others are refused as taken (exit 64)', async () => {
    const runs = await Promise.all([0, 1, 2].map(() => box.run(['context', 'create', '--name', 'race', '--json'])));
    expect(runs.map((r) => r.code).sort()).toEqual([0, 64, 64]);
    for (const refused of runs.filter((r) => r.code !== 0)) expect(JSON.parse(refused.stderr).data.code).toBe('missive::validation::context_name_taken');
    expect((await box.run(['context', 'list', '--json'])).json().data.contexts.filter((c: any) => c.name === 'race')).toHaveLength(1);
  });

  it('a name another host took after the check is refused as taken (exit 64), not as a storage error', async () => {
    await box.run(['context', 'create', '--name', 'taken', '--id', 'ctx-first']);
    // What a second host's insert meets when the first one's commits between its check and its write.
    const collided = await withStorage(box, (storage) =>
      storage.transaction((tx) => tx.history.insertContext({ id: 'ctx-second', name: 'taken', parent: null })).catch((error: unknown) => error),
    );
    expect(collided).toMatchObject({ code: 'missive::validation::context_name_taken', exitCode: 64 });
    const again = await withStorage(box, (storage) =>
      storage.history.insertContext({ id: 'ctx-first', name: null, parent: null }).catch((error: unknown) => error),
    );
    expect(again).toMatchObject({ code: 'missive::validation::context_exists', exitCode: 64 });
    const renamed = await withStorage(box, async (storage) => {
      await storage.history.insertContext({ id: 'ctx-third', name: null, parent: null });
      return storage.history.renameContext('ctx-third', 'taken').catch((error: unknown) => error);
    });
    expect(renamed).toMatchObject({ code: 'missive::validation::context_name_taken', exitCode: 64 });
  });
});
