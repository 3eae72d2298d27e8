/** `missive task get|wait|cancel` against real SDK agents on both bindings, on both stores (SQLite and PostgreSQL). */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let done: EmbeddedAgent;
let asks: EmbeddedAgent;
let box: Sandbox;
let store: StoreUnderTest;
beforeAll(async () => void ([done, asks] = await Promise.all([startEmbeddedAgent({ behaviour: 'task' }), startEmbeddedAgent({ behaviour: 'input' })])));
afterAll(async () => void (await Promise.all([done.close(), asks.close()])));

const send = async (agent: string) => (await box.run(['send', agent, 'work', '--json'])).json().data.task.task_id as string;

describe.each(STORES)('task (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    expect((await box.run(['agent', 'add', 'done', done.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'asks', asks.baseUrl, '--binding-preference', 'json-rpc'])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  it('gets a task locally and remotely over both bindings, journaling a2a.task.updated only on change', async () => {
    for (const agent of ['done', 'asks']) {
      const id = await send(agent);
      const local = (await box.run(['task', 'get', id, '--json'])).json();
      expect(local).toMatchObject({ kind: 'task_get', data: { source: 'local', task: { task_id: id, agent_alias: agent } } });
      const remote = await box.run(['task', 'get', id, '--remote', '--json']);
      expect(remote.code).toBe(0);
      expect(remote.json().data).toMatchObject({ source: 'remote', task: { state: agent === 'done' ? 'completed' : 'input_required' } });
    }
    const updated = await box.run(['events', 'list', '--type', 'a2a.task.updated', '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.json().data.count).toBe(0);
  });

  it('waits: completed exits 0, input-required exits 83 with the result on stdout and the error on stderr', async () => {
    const ok = await box.run(['task', 'wait', await send('done'), '--json']);
    expect(ok.code).toBe(0);
    expect(ok.json().data).toMatchObject({ outcome: 'completed', exit_code: 0 });
    const waiting = await box.run(['task', 'wait', await send('asks'), '--json']);
    expect(waiting.code).toBe(83);
    expect(waiting.json()).toMatchObject({ kind: 'task_wait', data: { outcome: 'input_required', exit_code: 83 } });
    expect(JSON.parse(waiting.stderr).data).toMatchObject({ code: 'missive::orchestration::task_input_required', exit_code: 83 });
    const local = await box.run(['task', 'wait', await send('asks'), '--local']);
    expect(local.code).toBe(83);
  });

  it('refuses unknown tasks without --agent, and asks the agent with --agent', async () => {
    expect((await box.run(['task', 'get', 'nope'])).code).toBe(64);
    expect((await box.run(['task', 'wait', 'nope'])).code).toBe(64);
    const res = await box.run(['task', 'get', 'nope', '--agent', 'done', '--json']);
    expect(res.code).toBe(76);
    expect(JSON.parse(res.stderr).data).toMatchObject({
      code: 'missive::protocol::task_not_found',
      message: expect.stringMatching(/has no task with that id \(TaskNotFound/),
    });
  });

  it('cancel reaches the agent over both bindings and reports its refusal of a finished task', async () => {
    const id = await send('done');
    const rest = await box.run(['task', 'cancel', id]);
    expect(rest.code).toBe(76);
    expect(rest.stderr).toMatch(/CancelTask at \S+: the agent cannot cancel the task in its current state \(TaskNotCancelable: Task not cancelable/);
    await box.run(['agent', 'add', 'done-rpc', done.baseUrl, '--binding-preference', 'json-rpc']);
    const rpc = await box.run(['task', 'cancel', id, '--agent', 'done-rpc']);
    expect(rpc.code).toBe(76);
    expect(rpc.stderr).toMatch(/the agent cannot cancel the task in its current state \(TaskNotCancelable: Task not cancelable/);
  });
});
