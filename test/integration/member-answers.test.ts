/**
 * Answers where they arrived, through the IPC registry as the Collectives view and Settings use it, on both stores:
 * `collectives.answers` reads each bcast member's own answer (its request's reply, or its task's), exactly that
 * bcast’s even when the context holds another one, and a barrier's member by its task, journaling nothing;
 * `webhook.callbacks` lists what the receiver took in and refused, newest first, with each body's state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Registry } from '../../electron/core/ipc/registry.js';
import type { Core } from '../../electron/core/handle.js';
import { startAgents } from '../support/agents.js';
import { registryOnStoreEach, STORES } from '../support/stores.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' }, broken: { behaviour: 'fail' } });
});
afterAll(() => fleet.close());

describe.each(STORES)("members' answers and received callbacks (%s store)", (kind) => {
  let registry: Registry;
  let core: Core;
  registryOnStoreEach(kind, (opened) => {
    registry = opened.registry;
    core = opened.core;
  });

  async function call(channel: string, input: unknown): Promise<any> {
    const result = await registry.invoke(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
    return result.data;
  }
  const refs = (bcast: any) =>
    bcast.members.map((m: any) => ({
      alias: m.alias,
      rank: m.rank,
      contextId: m.context_id,
      ...(m.task_id ? { taskId: m.task_id } : {}),
      ...(m.request_message_id ? { requestMessageId: m.request_message_id } : {}),
    }));
  const journalTypes = async () => (await (await core.storage()).journalReads.list({ limit: 1000 })).map((e) => e.type);

  it("reads each member's own answer of a bcast, the second bcast's in a shared context, and a barrier member's by its task, journaling nothing", async () => {
    for (const alias of ['echo', 'tasks', 'broken']) await call('agents.add', { alias, baseUrl: fleet.agents[alias]!.baseUrl });
    await call('groups.create', { group: 'crew', members: ['echo', 'tasks', 'broken'] });
    const first = await call('collectives.bcast', { group: 'crew', inputs: { text: 'first question' }, failurePolicy: 'continue' });
    const contextId = first.request.context_id;
    const second = await call('collectives.bcast', { group: 'crew', inputs: { text: 'second question', contextId }, failurePolicy: 'continue' });
    const before = (await journalTypes()).length;

    const answers = (await call('collectives.answers', { members: refs(second) })).members;
    expect(answers.map((a: any) => [a.alias, a.status, a.text, a.text_source])).toEqual([
      ['echo', 'gathered', 'echo: second question', 'message'],
      ['tasks', 'gathered', 'done: second question', expect.any(String)],
      ['broken', 'gathered', 'cannot do: second question', expect.any(String)],
    ]);
    expect(answers[1].task_id).toBe(second.members[1].task_id);
    expect(answers[1].artifacts.map((a: any) => a.name)).toContain('result.txt');
    // The first bcast's rows still read the first bcast's replies (by their requests), where gather reads the latest.
    expect((await call('collectives.answers', { members: refs(first) })).members[0].text).toBe('echo: first question');

    const barrier = await call('collectives.barrier', { group: 'crew', contextId, failurePolicy: 'continue' });
    const tasks = barrier.members.find((m: any) => m.alias === 'tasks');
    const byTask = (await call('collectives.answers', { members: [{ alias: 'tasks', rank: tasks.rank, contextId, taskId: tasks.task_id }] })).members;
    expect(byTask).toMatchObject([{ alias: 'tasks', status: 'gathered', text: 'done: second question', state: 'completed' }]);
    // Reads only: the barrier journaled its own events, the answers none.
    const after = await journalTypes();
    expect(after.slice(before).filter((t) => !t.startsWith('missive.barrier.') && !t.startsWith('a2a.task.'))).toEqual([]);
    expect(after.some((t) => t.startsWith('missive.gather.'))).toBe(false);
  });

  it('lists the callbacks the receiver took in and refused, newest first, with the state each carried', async () => {
    const started = await call('webhook.start', {});
    try {
      const post = (body: string) => fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const update = (state: string) => JSON.stringify({ statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state } } });
      expect((await post(update('TASK_STATE_WORKING'))).status).toBe(202);
      expect((await post('{"nope":true}')).status).toBe(400);
      expect((await post(update('TASK_STATE_COMPLETED'))).status).toBe(202);
      const { callbacks } = await call('webhook.callbacks', {});
      expect(callbacks.map((c: any) => [c.outcome, c.task_id, c.state, c.status])).toEqual([
        ['accepted', 't-1', 'completed', null],
        ['rejected', null, null, 400],
        ['accepted', 't-1', 'working', null],
      ]);
      expect(callbacks[0].body).toMatchObject({ taskId: 't-1', status: { state: 'TASK_STATE_COMPLETED' } });
      expect(callbacks[1].reason).toContain('not an A2A StreamResponse');
      expect((await call('webhook.callbacks', { limit: 1 })).callbacks).toHaveLength(1);
    } finally {
      await call('webhook.stop', {});
    }
  });
});
