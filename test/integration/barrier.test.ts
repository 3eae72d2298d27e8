/**
 * barrier against real SDK agents on both bindings, on both stores (the embedded SQLite file and a shared PostgreSQL
 * database): quorum, failure, cancellation, timeout, local mode. What it leaves is read back as `events list` and
 * `task get` show it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
/** The store of the test's sandbox, until the sandbox is torn down. */
let store: StoreUnderTest | undefined;

beforeAll(async () => {
  fleet = await startAgents({
    tasks: { behaviour: 'task' },
    slow: { behaviour: 'slow', delayMs: 700 },
    fail: { behaviour: 'fail' },
    ask: { behaviour: 'input' },
    echo: { behaviour: 'echo' },
  });
});
afterAll(() => fleet.close());

/** Disposes the sandbox and drops its store. */
async function teardown() {
  if (!store) return;
  box.dispose();
  await store.release();
  store = undefined;
}
afterEach(teardown);

/** A fresh sandbox on a fresh store of `kind`, the fleet registered preferring `binding`, and `members` as group g. */
async function setup(kind: StoreKindUnderTest, binding: 'http+json' | 'json-rpc', members: string[]) {
  store = await storeUnderTest(kind);
  box = sandbox(store.env);
  await register(box, fleet.agents, ['--binding-preference', binding]);
  expect((await box.run(['group', 'create', 'g', ...members.flatMap((m) => ['--member', m])])).code).toBe(0);
}

/** The journal's events of `type` (a type or a prefix ending in .*), oldest first, as `events list` shows them. */
async function events(type: string, ...filter: string[]): Promise<Array<{ type: string; payload: any }>> {
  const res = await box.run(['events', 'list', '--type', type, ...filter, '--limit', '1000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events;
}

async function bcastFile(args: string[] = []) {
  const res = await box.run(['bcast', 'g', 'work', '--return-immediately', '--failure-policy', 'continue', '--json', ...args]);
  writeFileSync(join(box.home, 'bcast.json'), res.stdout);
  return res.json().data;
}

describe.each(STORES)('barrier (%s store)', (kind) => {
  for (const binding of ['http+json', 'json-rpc'] as const) {
    it(`waits for a slow task with GetTask over ${binding}, polling only undecided members`, async () => {
      await setup(kind, binding, ['tasks', 'slow', 'echo']);
      const sent = await bcastFile();
      expect(sent.members.map((m: any) => m.state)).toEqual(['submitted', 'working', null]);
      const res = await box.run(['barrier', 'g', '--from-bcast', 'bcast.json', '--interval', '100ms', '--timeout', '10s', '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data).toMatchObject({ status: 'succeeded', quorum: { required: 3, satisfied: 3 }, source: 'remote' });
      expect(data.attempts).toBeGreaterThan(1);
      const [tasks, slow, echo] = data.members;
      expect(tasks).toMatchObject({ status: 'satisfied', polls: 1, interface: { binding } });
      expect(slow.polls).toBe(data.attempts);
      expect(echo).toMatchObject({ status: 'satisfied', state: 'message', polls: 0 });
      const updates = await events('a2a.task.updated', '--task', slow.task_id);
      expect(updates.map((u) => u.payload)).toContainEqual(expect.objectContaining({ state: 'completed', observed_by: 'barrier' }));
      const shown = await box.run(['task', 'get', slow.task_id, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json().data.task.state).toBe('completed');
      const journal = (await events('missive.barrier.*')).map((e) => e.type);
      expect(journal[0]).toBe('missive.barrier.started');
      expect(journal.at(-1)).toBe('missive.barrier.completed');
      expect(journal.filter((e) => e === 'missive.barrier.member.satisfied')).toHaveLength(3);
    });
  }

  it('fails with 80 when a member fails, unless the quorum is reached under continue', async () => {
    await setup(kind, 'http+json', ['tasks', 'fail']);
    const sent = await bcastFile();
    const failed = await box.run(['barrier', 'g', '--context', sent.request.context_id, '--json']);
    expect(failed.code).toBe(80);
    expect(failed.json().data.members.map((m: any) => m.status)).toEqual(['satisfied', 'failed']);
    expect(JSON.parse(failed.stderr).data.code).toBe('missive::orchestration::barrier_failed');
    const quorum = await box.run(['barrier', 'g', '--context', sent.request.context_id, '--required', '1', '--failure-policy', 'continue', '--json']);
    expect(quorum.code).toBe(0);
    expect(quorum.json().data.quorum).toEqual({ required: 1, members: 2, satisfied: 1, from: 'option' });
  });

  it('reports cancellation with 81 and a never-ending task as a timeout (82)', async () => {
    await setup(kind, 'json-rpc', ['slow']);
    const sent = await bcastFile();
    expect((await box.run(['task', 'cancel', sent.members[0].task_id])).code).toBe(0);
    const cancelled = await box.run(['barrier', 'g', '--context', sent.request.context_id, '--json']);
    expect(cancelled.code).toBe(81);
    expect(cancelled.json().data.members[0].status).toBe('cancelled');

    await teardown();
    await setup(kind, 'http+json', ['ask']);
    const asked = await bcastFile();
    const timeout = await box.run(['barrier', 'g', '--context', asked.request.context_id, '--interval', '100ms', '--timeout', '500ms', '--json']);
    expect(timeout.code).toBe(82);
    expect(timeout.json().data.members[0]).toMatchObject({ status: 'pending', state: 'input_required' });
    const wanted = await box.run(['barrier', 'g', '--context', asked.request.context_id, '--state', 'input-required', '--json']);
    expect(wanted.code).toBe(0);
  });

  it('reads the store only with --local, takes --from-bcast from stdin, and validates its inputs', async () => {
    await setup(kind, 'http+json', ['tasks', 'echo']);
    const res = await box.run(['bcast', 'g', 'work', '--json']);
    const gets = () => fleet.agents.tasks!.requests.filter((r) => r.method === 'GET' && r.path.includes('/tasks/')).length;
    const before = gets();
    const local = await box.run(['barrier', 'g', '--from-bcast', '-', '--local', '--json'], { stdin: res.stdout });
    expect(local.code).toBe(0);
    expect(local.json().data.source).toBe('local');
    expect(gets()).toBe(before);
    expect((await box.run(['barrier', 'g'])).code).toBe(64);
    expect((await box.run(['barrier', 'g', '--context', 'c', '--required', '3'])).code).toBe(64);
    expect((await box.run(['barrier', 'g', '--context', 'other', '--from-bcast', '-'], { stdin: res.stdout })).stderr).toContain('does not match');
    const missing = await box.run(['barrier', 'g', '--context', 'nothing-here', '--json']);
    expect(missing.code).toBe(80);
    expect(missing.json().data.members.map((m: any) => m.status)).toEqual(['missing', 'missing']);
  });
});
