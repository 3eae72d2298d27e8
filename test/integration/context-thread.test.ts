/**
 * A context's conversation as the Contexts view reads it (contexts.thread, through the IPC registry): two sends to
 * real SDK agents in one named context — one answered with a message, one with a task and an artifact — and a
 * stream whose artifact arrives in chunks, as one thread oldest first, with nothing secret in it. On both stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import { addAuth } from '../../electron/core/auth/service.js';
import { startAgents } from '../support/agents.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

const TOKEN = 'thread-bearer-secret-9876543210';
let fleet: Awaited<ReturnType<typeof startAgents>>;

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' }, tasker: { behaviour: 'task' }, chunks: { behaviour: 'chunks', chunks: 2 } });
});
afterAll(() => fleet.close());

const view = (items: Array<Record<string, any>>) =>
  items.map((i) => (i.kind === 'message' ? [i.role, i.agent_alias, i.text] : ['artifact', i.agent_alias, i.name, i.text]));

describe.each(STORES)('context thread (%s store)', (kind) => {
  let store: StoreUnderTest;
  let home: string;
  let core: Core;
  let registry: Registry;

  async function call(channel: string, input: unknown): Promise<any> {
    const result = await registry.invoke(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
    return result.data;
  }

  beforeAll(async () => {
    store = await storeUnderTest(kind);
    home = mkdtempSync(join(tmpdir(), 'missive-thread-'));
    core = createCore({
      env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, THREAD_TOKEN: TOKEN, ...store.env },
      cwd: home,
      secrets: createMemorySecretStore(),
    });
    registry = createRegistry({ core, cwd: home, emit: () => undefined });
    await addAuth(core, { name: 'threadtoken', env: 'THREAD_TOKEN' });
    for (const alias of ['echo', 'tasker', 'chunks'] as const)
      await call('agents.add', { alias, baseUrl: fleet.agents[alias]!.baseUrl, authRef: 'threadtoken' });
  });

  afterAll(async () => {
    await registry.dispose();
    core.close();
    await store.release();
    rmSync(home, { recursive: true, force: true });
  });

  it('opens with the question of a conversation the agent started (a send or stream without a context)', async () => {
    for (const [agent, channel] of [
      ['echo', 'messages.send'],
      ['chunks', 'messages.stream'],
      ['tasker', 'messages.send'],
    ] as const) {
      await call(channel, { agent, inputs: { text: `a new conversation with ${agent}` } });
      const contextId = (await call('history.list', { limit: 1 })).entries[0].context_id as string;
      expect(contextId, `${agent} named a context in its answer`).toEqual(expect.any(String));
      const thread = await call('contexts.thread', { context: contextId });
      expect(thread.items[0]).toMatchObject({ kind: 'message', direction: 'request', text: `a new conversation with ${agent}` });
    }
  });

  it('merges the messages and the artifacts of a context oldest first', async () => {
    const context = await call('contexts.create', { name: 'planning' });
    await call('messages.send', { agent: 'echo', inputs: { text: `first question ${TOKEN}`, contextId: 'planning' } });
    const sent = await call('messages.send', { agent: 'tasker', inputs: { text: 'write the plan', contextId: 'planning' } });

    const thread = await call('contexts.thread', { context: 'planning' });
    expect(thread.context).toMatchObject({ context_id: context.context_id, name: 'planning', state: 'open' });
    expect(view(thread.items)).toEqual([
      ['user', 'echo', 'first question [REDACTED]'],
      ['agent', 'echo', 'echo: first question [REDACTED]'],
      ['user', 'tasker', 'write the plan'],
      ['artifact', 'tasker', 'result.txt', 'result for: write the plan'],
      ['agent', 'tasker', 'done: write the plan'],
    ]);
    const [ask, answer, , artifact, done] = thread.items;
    expect(ask).toMatchObject({ kind: 'message', direction: 'request', task_id: null, parts: [{ text: 'first question [REDACTED]' }] });
    expect(answer).toMatchObject({ direction: 'response', task_id: null });
    expect(artifact).toMatchObject({
      task_id: sent.task.task_id,
      artifact_id: expect.any(String),
      version: 1,
      mime_type: 'text/plain',
      summary: 'text',
      text_truncated: false,
    });
    expect(done).toMatchObject({ task_id: sent.task.task_id });
    const times = thread.items.map((i: { at: string }) => i.at);
    expect(times).toEqual([...times].sort());
    expect(JSON.stringify(thread)).not.toContain(TOKEN);
    // The same thread by id as by name.
    expect((await call('contexts.thread', { context: context.context_id })).items).toEqual(thread.items);
  });

  it('shows a streamed artifact once, whole, between the request and the final status message', async () => {
    await call('contexts.create', { name: 'streamed' });
    await call('messages.stream', { agent: 'chunks', inputs: { text: 'go', contextId: 'streamed' } });
    const thread = await call('contexts.thread', { context: 'streamed' });
    expect(view(thread.items)).toEqual([
      ['user', 'chunks', 'go'],
      ['artifact', 'chunks', 'result.txt', 'chunk 1 of 2 for: go\nchunk 2 of 2 for: go\n'],
      ['agent', 'chunks', 'done: go'],
    ]);
    expect(thread.items[1]).toMatchObject({ version: 2, last_chunk: true });
    expect(thread.items[2]).toMatchObject({ direction: 'stream_event', state: 'TASK_STATE_COMPLETED' });
  });

  it('lists, forks and exports contexts through the Contexts view’s channels', async () => {
    await call('contexts.create', { name: 'listed' });
    await call('messages.send', { agent: 'echo', inputs: { text: `list me ${TOKEN}`, contextId: 'listed' } });
    const { contexts } = await call('contexts.list', {});
    const listed = contexts.find((c: { name: string | null }) => c.name === 'listed');
    expect(listed).toMatchObject({ state: 'open', agent: 'echo', preview: 'list me [REDACTED]', messages: 2, tasks: 0, first_message_id: expect.any(String) });
    expect(contexts.map((c: { updated_at: string }) => c.updated_at)).toEqual(
      contexts
        .map((c: { updated_at: string }) => c.updated_at)
        .sort()
        .reverse(),
    );
    const fork = await call('contexts.fork', { context: 'listed', name: 'listed-2' });
    expect(fork).toMatchObject({ name: 'listed-2', parent_context_id: listed.context_id });
    const document = await call('contexts.export', { context: 'listed' });
    expect(document).toMatchObject({ schema: 'missive.context_export.v1', context: { name: 'listed' } });
    expect(document.messages.map((m: { direction: string }) => m.direction)).toEqual(['request', 'response']);
    expect(JSON.stringify([contexts, document])).not.toContain(TOKEN);
  });

  it('reads a member’s latest task and its answers newest first, streamed updates among them (as gather does)', async () => {
    const context = await call('contexts.create', { name: 'members' });
    await call('messages.send', { agent: 'echo', inputs: { text: 'direct one', contextId: 'members' } });
    await call('messages.stream', { agent: 'echo', inputs: { text: 'direct two', contextId: 'members' } });
    await call('messages.send', { agent: 'tasker', inputs: { text: 'first task', contextId: 'members' } });
    const last = await call('messages.send', { agent: 'tasker', inputs: { text: 'second task', contextId: 'members' } });
    const streamed = await call('messages.stream', { agent: 'chunks', inputs: { text: 'chunked', contextId: 'members' } });
    const { conversation } = await core.storage();
    const shape = (messages: Array<{ direction: string; role: string; content: Record<string, any> }>) =>
      messages.map((m) => [m.direction, m.role, Object.keys(m.content).sort().join(',')]);
    expect(await conversation.latestTaskOf('tasker', context.context_id)).toMatchObject({ task_id: last.task.task_id, state: 'completed' });
    expect(await conversation.latestTaskOf('tasker', 'no-such-context')).toBeUndefined();
    // The direct answers of one member: a streamed message (read from the journal) and a sent one, newest first.
    const direct: Array<{ direction: string; role: string; content: Record<string, any> }> = await conversation.directResponsesOf('echo', context.context_id);
    expect(shape(direct)).toEqual([
      ['stream_event', 'agent', 'message'],
      ['response', 'agent', 'contextId,messageId,parts,role'],
    ]);
    expect([direct[0]!.content.message.parts[0].text, direct[1]!.content.parts[0].text]).toEqual(['echo: direct two', 'echo: direct one']);
    expect(await conversation.directResponsesOf('tasker', context.context_id)).toEqual([]);
    expect(shape(await conversation.responsesOfTask(last.task.task_id))).toEqual([['response', 'agent', 'contextId,messageId,parts,role,taskId']]);
    // A streamed task's answers are its updates, newest first.
    const streamTask = (await conversation.latestTaskOf('chunks', context.context_id))!;
    expect(streamTask.state).toBe('completed');
    const updates: Array<{ direction: string; role: string; content: Record<string, any>; created_at: string }> = await conversation.responsesOfTask(
      streamTask.task_id,
    );
    expect(shape(updates)).toEqual([
      ['stream_event', 'system', 'statusUpdate'],
      ['stream_event', 'system', 'artifactUpdate'],
      ['stream_event', 'system', 'artifactUpdate'],
      ['stream_event', 'system', 'statusUpdate'],
      ['stream_event', 'system', 'task'],
    ]);
    expect(updates[0]!.content.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(updates.map((u) => u.created_at)).toEqual(
      updates
        .map((u) => u.created_at)
        .sort()
        .reverse(),
    );
    expect(streamed.context_id).toBe(context.context_id);
  });

  it('refuses a context it does not know with a usage error', async () => {
    expect(await registry.invoke('contexts.thread', { context: 'nowhere' })).toMatchObject({
      ok: false,
      error: { code: 'missive::validation::unknown_context', exit_code: 64 },
    });
  });
});
