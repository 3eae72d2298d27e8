/**
 * Contexts, messages, tasks and artifacts through the storage interface (`Storage.conversation`), on both stores: the
 * same writes leave the same rows on the embedded SQLite file and on PostgreSQL, and a transaction that throws leaves
 * none of them. On PostgreSQL, two hosts appending to one artifact (or adding a message to one task) at once both land,
 * one after the other.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { nowIso } from '../../electron/core/store/db.js';
import type { ArtifactWrite, NewMessage, TaskStateName, TaskUpsert } from '../../electron/core/store/rows/conversation.js';
import type { Storage } from '../../electron/core/store/storage.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { sqliteStore } from '../support/sqlite-store.js';

const message = (messageId: string, m: Partial<NewMessage> = {}): NewMessage => ({
  messageId,
  agentAlias: 'echo',
  contextId: null,
  taskId: null,
  direction: 'request',
  role: 'user',
  protocolMessageId: null,
  content: { parts: [{ kind: 'text', text: messageId }] },
  ...m,
});

const task = (taskId: string, state: TaskStateName, t: Partial<TaskUpsert> = {}): TaskUpsert => ({
  taskId,
  agentAlias: 'echo',
  contextId: null,
  state,
  remoteState: state,
  protocolVersion: '1.0',
  remoteJson: { id: taskId, status: { state } },
  lastMessageId: null,
  ...t,
});

const text = (t: string) => ({ kind: 'text', text: t });
const artifact = (parts: unknown[], a: Partial<ArtifactWrite> = {}): ArtifactWrite => ({
  artifactId: 'art-1',
  taskId: 't-1',
  contextId: null,
  name: 'report',
  mimeType: 'text/plain',
  kind: 'text',
  content: { artifactId: 'art-1', name: 'report', parts },
  ...a,
});

/** Waits until the clock has moved past `iso` (timestamps have millisecond resolution): a later write gets a later one. */
const clockPast = (iso: string) => expect.poll(() => nowIso() > iso, { interval: 1 }).toBe(true);

/** Opens the store a sandbox selects, and gives raw SQL on it (`?` placeholders) to see what the interface does not show. */
async function open(
  box: Sandbox,
): Promise<{ core: Core; storage: Storage; rows: (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>; close: () => Promise<void> }> {
  const core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
  const storage = await core.storage();
  if (core.storeSelection.kind !== 'postgres') {
    const rows = async (sql: string, params: unknown[] = []) => {
      const statement = (await sqliteStore(core)).db.prepare(sql);
      return statement.reader ? (statement.all(...params) as Array<Record<string, unknown>>) : (statement.run(...params), []);
    };
    return { core, storage, rows, close: async () => core.close() };
  }
  const client = new pg.Client({ connectionString: box.env.MISSIVE_STORE_URL, options: `-c search_path=${core.storeSelection.schema}` });
  await client.connect();
  return {
    core,
    storage,
    rows: async (sql, params = []) => {
      let n = 0;
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows;
    },
    close: async () => {
      await client.end();
      core.close();
    },
  };
}

describe.each<StoreKindUnderTest>(STORES)('conversation rows on %s', (kind) => {
  let store: StoreUnderTest;
  let box: Sandbox;
  let storage: Storage;
  let rows: (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;
  let close: () => Promise<void>;

  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    ({ storage, rows, close } = await open(box));
    expect(storage.kind).toBe(kind);
    await storage.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/echo' });
    await storage.agents.insert({ alias: 'other', source: 'local', baseUrl: 'http://127.0.0.1:9/other' });
  });
  afterEach(async () => {
    await close();
    box.dispose();
    await store.release();
  });

  it('ensureContext keeps the first row; getContext and getContextByName decode it', async () => {
    const c = storage.conversation;
    await c.ensureContext('ctx-1', 'echo', { topic: 'first' });
    await c.ensureContext('ctx-1', 'other', { topic: 'second' });
    await c.ensureContext('ctx-2', null);
    const first = await c.getContext('ctx-1');
    expect(first).toMatchObject({
      context_id: 'ctx-1',
      agent_alias: 'echo',
      name: null,
      parent_context_id: null,
      state: 'open',
      metadata: { topic: 'first' },
      closed_at: null,
    });
    expect(first).not.toHaveProperty('summary');
    expect(first).not.toHaveProperty('metadata_json');
    expect(first!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await c.getContext('ctx-2')).toMatchObject({ agent_alias: null, metadata: {} });
    expect(await c.getContext('nope')).toBeUndefined();

    await rows(`UPDATE contexts SET name = ? WHERE context_id = ?`, ['planning', 'ctx-1']);
    expect(await c.getContextByName('planning')).toEqual({ ...first, name: 'planning' });
    expect(await c.getContextByName('nope')).toBeUndefined();
  });

  it('numbers each task’s messages 0, 1, 2 in the insert, and links a request to the context and task its answer named', async () => {
    const c = storage.conversation;
    await c.ensureContext('ctx-1', 'echo');
    await c.ensureContext('ctx-2', 'echo');
    await c.upsertTask(task('t-1', 'working'));
    await c.upsertTask(task('t-2', 'working'));
    await c.insertMessage(message('m-1', { taskId: 't-1' }));
    await c.insertMessage(message('m-2', { taskId: 't-1', direction: 'response', role: 'agent' }));
    await c.insertMessage(message('n-1', { taskId: 't-2' }));
    await c.insertMessage(message('m-3', { taskId: 't-1', direction: 'response', role: 'agent', metadata: { n: 3 } }));
    await c.insertMessage(message('free', { contextId: 'ctx-1' }));
    expect(await rows(`SELECT message_id, task_id, ordinal FROM messages ORDER BY message_id`)).toEqual([
      { message_id: 'free', task_id: null, ordinal: 0 },
      { message_id: 'm-1', task_id: 't-1', ordinal: 0 },
      { message_id: 'm-2', task_id: 't-1', ordinal: 1 },
      { message_id: 'm-3', task_id: 't-1', ordinal: 2 },
      { message_id: 'n-1', task_id: 't-2', ordinal: 0 },
    ]);
    expect(await rows(`SELECT content_json, metadata_json FROM messages WHERE message_id = ?`, ['m-3'])).toEqual([
      { content_json: JSON.stringify({ parts: [text('m-3')] }), metadata_json: '{"n":3}' },
    ]);

    // A request sent without a context or task, then its answer's.
    await c.insertMessage(message('req'));
    expect(await c.requestOf('req')).toEqual({ task_id: null, context_id: null });
    await c.linkMessageToContext('req', 'ctx-1');
    await c.linkMessageToContext('req', 'ctx-2');
    expect(await c.requestOf('req')).toEqual({ task_id: null, context_id: 'ctx-1' });
    await c.linkMessageToTask('req', 't-2', 'ctx-2');
    expect(await c.requestOf('req')).toEqual({ task_id: 't-2', context_id: 'ctx-1' });
    await c.insertMessage(message('req-2'));
    await c.linkMessageToTask('req-2', 't-1', 'ctx-2');
    expect(await c.requestOf('req-2')).toEqual({ task_id: 't-1', context_id: 'ctx-2' });
    // Only requests are dispatch marks.
    expect(await c.requestOf('m-2')).toBeUndefined();
    expect(await c.requestOf('nope')).toBeUndefined();
  });

  it('upsertTask moves updated_at only when the state or the remote JSON changed, and sets completed_at once terminal', async () => {
    const c = storage.conversation;
    await c.ensureContext('ctx-1', 'echo');
    await c.upsertTask(task('t-1', 'working', { contextId: 'ctx-1', lastMessageId: 'm-1' }));
    const created = await c.getTask('t-1');
    expect(created).toEqual({
      task_id: 't-1',
      agent_alias: 'echo',
      context_id: 'ctx-1',
      state: 'working',
      remote_state: 'working',
      protocol_version: '1.0',
      last_message_id: 'm-1',
      updated_at: expect.stringMatching(/Z$/),
    });
    const completedAt = async () => (await rows(`SELECT completed_at FROM tasks WHERE task_id = ?`, ['t-1']))[0]!.completed_at;
    expect(await completedAt()).toBeNull();

    // The same task again (a GetTask of a task that did not move): no update; nulls keep what was stored.
    await clockPast(created!.updated_at);
    await c.upsertTask(task('t-1', 'working', { contextId: null, protocolVersion: null, lastMessageId: null }));
    expect(await c.getTask('t-1')).toEqual(created);

    await c.upsertTask(task('t-1', 'completed', { lastMessageId: 'm-2' }));
    const done = await c.getTask('t-1');
    expect(done).toMatchObject({ state: 'completed', context_id: 'ctx-1', last_message_id: 'm-2' });
    expect(done!.updated_at > created!.updated_at).toBe(true);
    const finished = await completedAt();
    expect(finished).toBe(done!.updated_at);

    // The remote JSON alone changed: updated_at moves, completed_at stays the first.
    await clockPast(done!.updated_at);
    await c.upsertTask(task('t-1', 'completed', { remoteJson: { id: 't-1', status: { state: 'completed' }, artifacts: [] } }));
    expect((await c.getTask('t-1'))!.updated_at > done!.updated_at).toBe(true);
    expect(await completedAt()).toBe(finished);
    expect(await c.getTask('nope')).toBeUndefined();
  });

  it('writeArtifact versions: new 1, same content keeps it, replace 2, append 3, the chunks together equal to stored keep 3', async () => {
    const c = storage.conversation;
    await c.upsertTask(task('t-1', 'working'));
    expect(await c.writeArtifact(artifact([text('a')]))).toBe(1);
    expect(await c.writeArtifact(artifact([text('a')]))).toBe(1);
    expect(await c.writeArtifact(artifact([text('b')]))).toBe(2);
    expect(await c.writeArtifact(artifact([{ kind: 'data', data: { n: 1 } }], { mode: 'append', kind: 'json', lastChunk: true }))).toBe(3);
    expect(await c.listArtifactsOfTask('t-1')).toEqual([
      {
        artifact_id: 'art-1',
        name: 'report',
        kind: 'mixed',
        mime_type: 'text/plain',
        version: 3,
        last_chunk: 1,
        chunks: 2,
        updated_at: expect.stringMatching(/Z$/),
      },
    ]);
    // Content equal to the chunks concatenated (as a final non-append artifact event repeats them) is no change.
    expect(await c.writeArtifact(artifact([text('b'), { kind: 'data', data: { n: 1 } }], { lastChunk: true }))).toBe(3);
    expect((await c.listArtifactsOfTask('t-1'))[0]).toMatchObject({ version: 3, chunks: 2 });
    // Replacing makes one chunk again.
    expect(await c.writeArtifact(artifact([text('c')], { name: 'final', content: { artifactId: 'art-1', name: 'final', parts: [text('c')] } }))).toBe(4);
    expect((await c.listArtifactsOfTask('t-1'))[0]).toMatchObject({ name: 'final', kind: 'text', version: 4, chunks: 1, last_chunk: 1 });
    expect(await rows(`SELECT chunk_index, parts_json FROM artifact_chunks WHERE artifact_id = ? ORDER BY chunk_index`, ['art-1'])).toEqual([
      { chunk_index: 0, parts_json: JSON.stringify([text('c')]) },
    ]);

    // Artifacts of a task in id order; another task's are not listed.
    await c.upsertTask(task('t-2', 'working'));
    expect(await c.writeArtifact(artifact([text('x')], { artifactId: 'art-0' }))).toBe(1);
    expect(await c.writeArtifact(artifact([text('y')], { taskId: 't-2' }))).toBe(1);
    expect((await c.listArtifactsOfTask('t-1')).map((a) => [a.artifact_id, a.version])).toEqual([
      ['art-0', 1],
      ['art-1', 4],
    ]);
    expect(await c.listArtifactsOfTask('nope')).toEqual([]);
  });

  it('listTasks: most recently updated first, task id breaking ties, filtered by agent, context and state, paged', async () => {
    const c = storage.conversation;
    await c.ensureContext('ctx-1', 'echo');
    const write = async (t: TaskUpsert) => {
      await c.upsertTask(t);
      await clockPast((await c.getTask(t.taskId))!.updated_at);
    };
    await write(task('t-a', 'working', { contextId: 'ctx-1' }));
    await write(task('t-b', 'completed'));
    await write(task('t-c', 'working', { agentAlias: 'other', contextId: 'ctx-1' }));
    await write(task('t-a', 'completed', { contextId: 'ctx-1' }));
    const ids = async (q: Partial<Parameters<Storage['conversation']['listTasks']>[0]> = {}) =>
      (await c.listTasks({ limit: 50, offset: 0, ...q })).map((t) => t.task_id);
    expect(await ids()).toEqual(['t-a', 't-c', 't-b']);
    expect(await ids({ agent: 'echo' })).toEqual(['t-a', 't-b']);
    expect(await ids({ contextId: 'ctx-1' })).toEqual(['t-a', 't-c']);
    expect(await ids({ state: 'completed' })).toEqual(['t-a', 't-b']);
    expect(await ids({ agent: 'echo', contextId: 'ctx-1', state: 'completed' })).toEqual(['t-a']);
    expect(await ids({ limit: 1, offset: 1 })).toEqual(['t-c']);
    expect(await ids({ limit: 2, offset: 2 })).toEqual(['t-b']);
    expect(await ids({ state: 'failed' })).toEqual([]);
    // Same updated_at: the smaller task id first.
    await rows(`UPDATE tasks SET updated_at = ?`, ['2030-01-01T00:00:00.000Z']);
    expect(await ids()).toEqual(['t-a', 't-b', 't-c']);
    expect((await c.listTasks({ agent: 'other', limit: 5, offset: 0 }))[0]).toEqual(await c.getTask('t-c'));
  });

  it('ensurePlaceholderTask makes an unknown task row and keeps an existing one', async () => {
    const c = storage.conversation;
    for (const id of ['ctx-1', 'ctx-2', 'ctx-9']) await c.ensureContext(id, 'echo');
    await c.ensurePlaceholderTask('t-new', 'echo', 'ctx-1');
    await c.ensurePlaceholderTask('t-bare', 'other');
    expect(await c.getTask('t-new')).toMatchObject({ agent_alias: 'echo', context_id: 'ctx-1', state: 'unknown', remote_state: null });
    expect(await c.getTask('t-bare')).toMatchObject({ agent_alias: 'other', context_id: null, state: 'unknown' });
    expect(await c.getTaskJson('t-new')).toBeNull();
    expect(await rows(`SELECT source FROM tasks WHERE task_id = ?`, ['t-new'])).toEqual([{ source: 'placeholder' }]);

    await c.upsertTask(task('t-1', 'working', { contextId: 'ctx-9' }));
    const before = await c.getTask('t-1');
    await c.ensurePlaceholderTask('t-1', 'other', 'ctx-2');
    expect(await c.getTask('t-1')).toEqual(before);
    expect(await c.getTaskJson('t-1')).toEqual({ id: 't-1', status: { state: 'working' } });
    expect(await rows(`SELECT source FROM tasks WHERE task_id = ?`, ['t-1'])).not.toEqual([{ source: 'placeholder' }]);
  });

  it('updateTaskStatus: false without a row; replaces status in the stored JSON where it was (or last), moving updated_at only on change', async () => {
    const c = storage.conversation;
    const status = (state: TaskStateName, more: Record<string, unknown> = {}) => ({
      taskId: 't-1',
      contextId: null,
      state,
      remoteState: state,
      protocolVersion: null,
      status: { state, ...more },
      lastMessageId: null,
    });
    expect(await c.updateTaskStatus(status('working'))).toBe(false);
    expect(await c.getTask('t-1')).toBeUndefined();
    for (const id of ['ctx-1', 'ctx-3']) await c.ensureContext(id, 'echo');

    // status in the middle of the JSON stays there; the other keys and their order are kept.
    const stored = { id: 't-1', contextId: 'ctx-1', status: { state: 'submitted' }, history: [{ n: 1 }], metadata: { a: 'é' } };
    await c.upsertTask(task('t-1', 'submitted', { contextId: 'ctx-1', lastMessageId: 'm-1', remoteJson: stored }));
    const created = (await c.getTask('t-1'))!;
    await clockPast(created.updated_at);
    expect(await c.updateTaskStatus(status('working', { message: { text: 'busy' } }))).toBe(true);
    const expected = { ...stored, status: { state: 'working', message: { text: 'busy' } } };
    expect(JSON.stringify(await c.getTaskJson('t-1'))).toBe(JSON.stringify(expected));
    const working = (await c.getTask('t-1'))!;
    // Nulls keep what was stored (context, protocol version, last message).
    expect(working).toMatchObject({ state: 'working', remote_state: 'working', context_id: 'ctx-1', protocol_version: '1.0', last_message_id: 'm-1' });
    expect(working.updated_at > created.updated_at).toBe(true);
    const completedAt = async () => (await rows(`SELECT completed_at FROM tasks WHERE task_id = ?`, ['t-1']))[0]!.completed_at;
    expect(await completedAt()).toBeNull();

    // The same status again: nothing changed, updated_at stays.
    await clockPast(working.updated_at);
    expect(await c.updateTaskStatus(status('working', { message: { text: 'busy' } }))).toBe(true);
    expect(await c.getTask('t-1')).toEqual(working);

    // Terminal: completed_at set once, with the given context, protocol version and last message.
    expect(await c.updateTaskStatus({ ...status('completed'), contextId: 'ctx-1', protocolVersion: '0.3', lastMessageId: 'm-2' })).toBe(true);
    const done = (await c.getTask('t-1'))!;
    expect(done).toMatchObject({ state: 'completed', protocol_version: '0.3', last_message_id: 'm-2' });
    expect(done.updated_at > working.updated_at).toBe(true);
    expect(await completedAt()).toBe(done.updated_at);
    expect(JSON.stringify(await c.getTaskJson('t-1'))).toBe(JSON.stringify({ ...stored, status: { state: 'completed' } }));
    await clockPast(done.updated_at);
    expect(await c.updateTaskStatus(status('completed', { note: 'again' }))).toBe(true);
    expect((await c.getTask('t-1'))!.updated_at > done.updated_at).toBe(true);
    expect(await completedAt()).toBe(done.updated_at);

    // JSON without status: it is added last.
    await c.upsertTask(task('t-2', 'working', { remoteJson: { id: 't-2', kind: 'task' } }));
    expect(await c.updateTaskStatus({ ...status('working'), taskId: 't-2' })).toBe(true);
    expect(JSON.stringify(await c.getTaskJson('t-2'))).toBe(JSON.stringify({ id: 't-2', kind: 'task', status: { state: 'working' } }));

    // A placeholder (no JSON yet): it starts as {id, contextId}, or {id} without a context.
    await c.ensurePlaceholderTask('t-3', 'echo');
    expect(await c.updateTaskStatus({ ...status('working'), taskId: 't-3', contextId: 'ctx-3' })).toBe(true);
    expect(JSON.stringify(await c.getTaskJson('t-3'))).toBe(JSON.stringify({ id: 't-3', contextId: 'ctx-3', status: { state: 'working' } }));
    expect(await c.getTask('t-3')).toMatchObject({ state: 'working', context_id: 'ctx-3' });
    await c.ensurePlaceholderTask('t-4', 'echo');
    expect(await c.updateTaskStatus({ ...status('working'), taskId: 't-4' })).toBe(true);
    expect(JSON.stringify(await c.getTaskJson('t-4'))).toBe(JSON.stringify({ id: 't-4', status: { state: 'working' } }));
  });

  it('getTaskJson: null for an unknown task; hasEventKey: whether an event with that dedupe key was journaled', async () => {
    expect(await storage.conversation.getTaskJson('nope')).toBeNull();
    expect(await storage.conversation.hasEventKey('push:t-1:1')).toBe(false);
    expect(await storage.journal.append({ type: 'a2a.push.received', dedupeKey: 'push:t-1:1', payload: {} })).not.toBeNull();
    await storage.journal.append({ type: 'a2a.push.received', payload: {} });
    expect(await storage.conversation.hasEventKey('push:t-1:1')).toBe(true);
    expect(await storage.conversation.hasEventKey('push:t-1:2')).toBe(false);
  });

  it('getArtifact: the stored header with the parts of its chunks joined in order; undefined when there is none', async () => {
    const c = storage.conversation;
    await c.upsertTask(task('t-1', 'working'));
    expect(await c.getArtifact('t-1', 'art-1')).toBeUndefined();
    await c.writeArtifact(artifact([text('a')], { metadata: { m: 1 } }));
    const fresh = await c.getArtifact('t-1', 'art-1');
    expect(fresh).toEqual({
      artifact_id: 'art-1',
      task_id: 't-1',
      context_id: null,
      name: 'report',
      mime_type: 'text/plain',
      kind: 'text',
      version: 1,
      last_chunk: false,
      content: { artifactId: 'art-1', name: 'report', parts: [text('a')] },
      updated_at: expect.stringMatching(/Z$/),
    });
    await c.writeArtifact(artifact([text('b'), text('c')], { mode: 'append' }));
    await c.writeArtifact(
      artifact([{ kind: 'data', data: { n: 1 } }], {
        mode: 'append',
        kind: 'json',
        lastChunk: true,
        content: { artifactId: 'art-1', description: 'more', parts: [{ kind: 'data', data: { n: 1 } }] },
      }),
    );
    expect(await c.getArtifact('t-1', 'art-1')).toMatchObject({
      kind: 'mixed',
      version: 3,
      last_chunk: true,
      content: { artifactId: 'art-1', name: 'report', description: 'more', parts: [text('a'), text('b'), text('c'), { kind: 'data', data: { n: 1 } }] },
    });
    expect(await c.getArtifact('t-2', 'art-1')).toBeUndefined();
  });

  it('a transaction that throws leaves none of its rows; one that returns keeps them all', async () => {
    const boom = new Error('boom');
    await expect(
      storage.transaction(async (tx) => {
        const c = tx.conversation;
        await c.ensureContext('ctx-gone', 'echo');
        await c.upsertTask(task('t-gone', 'working', { contextId: 'ctx-gone' }));
        await c.insertMessage(message('m-gone', { taskId: 't-gone', contextId: 'ctx-gone' }));
        expect(await c.writeArtifact(artifact([text('a')], { taskId: 't-gone' }))).toBe(1);
        expect(await c.writeArtifact(artifact([text('b')], { taskId: 't-gone', mode: 'append' }))).toBe(2);
        expect(await c.requestOf('m-gone')).toEqual({ task_id: 't-gone', context_id: 'ctx-gone' });
        throw boom;
      }),
    ).rejects.toBe(boom);
    const c = storage.conversation;
    expect(await c.getContext('ctx-gone')).toBeUndefined();
    expect(await c.getTask('t-gone')).toBeUndefined();
    expect(await c.requestOf('m-gone')).toBeUndefined();
    expect(await c.listArtifactsOfTask('t-gone')).toEqual([]);
    expect(await rows(`SELECT count(*) AS n FROM artifact_chunks`)).toEqual([{ n: kind === 'postgres' ? '0' : 0 }]);

    const version = await storage.transaction(async (tx) => {
      await tx.conversation.ensureContext('ctx-kept', 'echo');
      await tx.conversation.upsertTask(task('t-kept', 'working', { contextId: 'ctx-kept' }));
      await tx.conversation.insertMessage(message('m-kept', { taskId: 't-kept', contextId: 'ctx-kept' }));
      return tx.conversation.writeArtifact(artifact([text('a')], { taskId: 't-kept' }));
    });
    expect(version).toBe(1);
    expect(await c.getContext('ctx-kept')).toBeDefined();
    expect(await c.getTask('t-kept')).toMatchObject({ context_id: 'ctx-kept' });
    expect(await c.requestOf('m-kept')).toEqual({ task_id: 't-kept', context_id: 'ctx-kept' });
    expect((await c.listArtifactsOfTask('t-kept')).map((a) => a.version)).toEqual([1]);
  });
});

describe('conversation rows on PostgreSQL: two hosts writing one artifact at once', () => {
  let store: StoreUnderTest;
  let box: Sandbox;
  const hosts: Array<Awaited<ReturnType<typeof open>>> = [];

  beforeEach(async () => {
    store = await storeUnderTest('postgres');
    box = sandbox(store.env);
    // Two cores on one database: two pools, as two hosts have.
    hosts.push(await open(box), await open(box));
    await hosts[0]!.storage.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/echo' });
    await hosts[0]!.storage.conversation.upsertTask(task('t-1', 'working'));
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
    box.dispose();
    await store.release();
  });

  /** Resolves once some statement of this database waits on a lock (the second host's write, behind the first's). */
  const someoneWaits = (h: (typeof hosts)[number]) =>
    expect
      .poll(
        async () => Number((await h.rows(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))[0]!.n),
        { timeout: 5000 },
      )
      .toBeGreaterThan(0);

  /**
   * Host A's transaction writes, then holds until `release` is called; host B's write starts while A holds.
   * Returns both transactions' results.
   */
  async function race(a: ArtifactWrite, b: ArtifactWrite): Promise<[number, number]> {
    const [hostA, hostB] = hosts as [(typeof hosts)[number], (typeof hosts)[number]];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const first = hostA.storage.transaction(async (tx) => {
      const version = await tx.conversation.writeArtifact(a);
      wrote();
      await held;
      return version;
    });
    await written;
    const second = hostB.storage.transaction((tx) => tx.conversation.writeArtifact(b));
    await someoneWaits(hostA);
    release();
    return Promise.all([first, second]);
  }

  it('two transactions adding a message to one task number them one after the other', async () => {
    const [hostA, hostB] = hosts as [(typeof hosts)[number], (typeof hosts)[number]];
    await hostA.storage.conversation.insertMessage(message('m-0', { taskId: 't-1' }));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const first = hostA.storage.transaction(async (tx) => {
      await tx.conversation.insertMessage(message('m-a', { taskId: 't-1' }));
      wrote();
      await held;
    });
    await written;
    const second = hostB.storage.transaction((tx) => tx.conversation.insertMessage(message('m-b', { taskId: 't-1' })));
    await someoneWaits(hostA);
    release();
    await Promise.all([first, second]);
    // Numbered apart: without the task's lock both read the same highest ordinal and took the next one.
    expect(await hostA.rows(`SELECT message_id, ordinal FROM messages WHERE task_id = 't-1' ORDER BY ordinal, message_id`)).toEqual([
      { message_id: 'm-0', ordinal: 0 },
      { message_id: 'm-a', ordinal: 1 },
      { message_id: 'm-b', ordinal: 2 },
    ]);
  });

  it('two transactions appending a chunk both land: versions 2 and 3, no chunk lost', async () => {
    const c = hosts[0]!.storage.conversation;
    expect(await c.writeArtifact(artifact([text('base')]))).toBe(1);
    expect(await race(artifact([text('from A')], { mode: 'append' }), artifact([text('from B')], { mode: 'append' }))).toEqual([2, 3]);
    expect(await c.listArtifactsOfTask('t-1')).toMatchObject([{ artifact_id: 'art-1', version: 3, chunks: 3 }]);
    expect((await hosts[0]!.rows(`SELECT parts_json FROM artifact_chunks ORDER BY chunk_index`)).map((r) => JSON.parse(r.parts_json as string))).toEqual([
      [text('base')],
      [text('from A')],
      [text('from B')],
    ]);
  });

  it('a status update behind another host’s task write goes on from that write’s JSON: neither is lost', async () => {
    const [hostA, hostB] = hosts as [(typeof hosts)[number], (typeof hosts)[number]];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const first = hostA.storage.transaction(async (tx) => {
      await tx.conversation.upsertTask(task('t-1', 'working', { remoteJson: { id: 't-1', status: { state: 'working' }, artifacts: [{ artifactId: 'a' }] } }));
      wrote();
      await held;
    });
    await written;
    const second = hostB.storage.conversation.updateTaskStatus({
      taskId: 't-1',
      contextId: null,
      state: 'completed',
      remoteState: 'completed',
      protocolVersion: null,
      status: { state: 'completed' },
      lastMessageId: null,
    });
    await someoneWaits(hostA);
    release();
    await first;
    expect(await second).toBe(true);
    expect(JSON.stringify(await hostA.storage.conversation.getTaskJson('t-1'))).toBe(
      JSON.stringify({ id: 't-1', status: { state: 'completed' }, artifacts: [{ artifactId: 'a' }] }),
    );
    expect(await hostA.storage.conversation.getTask('t-1')).toMatchObject({ state: 'completed' });
  });

  it('two transactions writing a new artifact at once: the second goes on from the first’s row', async () => {
    expect(await race(artifact([text('from A')]), artifact([text('from B')]))).toEqual([1, 2]);
    expect(await hosts[0]!.storage.conversation.listArtifactsOfTask('t-1')).toMatchObject([{ artifact_id: 'art-1', version: 2, chunks: 1 }]);
    expect((await hosts[0]!.rows(`SELECT parts_json FROM artifact_chunks`)).map((r) => JSON.parse(r.parts_json as string))).toEqual([[text('from B')]]);
  });
});
