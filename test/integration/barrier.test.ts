/** barrier against real SDK agents on both bindings: quorum, failure, cancellation, timeout, local mode. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({ tasks: { behaviour: 'task' }, slow: { behaviour: 'slow', delayMs: 700 }, fail: { behaviour: 'fail' }, ask: { behaviour: 'input' }, echo: { behaviour: 'echo' } });
});
afterAll(() => fleet.close());
afterEach(() => box?.dispose());

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);

async function setup(binding: 'http+json' | 'json-rpc', members: string[]) {
  box = sandbox();
  await register(box, fleet.agents, ['--binding-preference', binding]);
  expect((await box.run(['group', 'create', 'g', ...members.flatMap((m) => ['--member', m])])).code).toBe(0);
}

async function bcastFile(args: string[] = []) {
  const res = await box.run(['bcast', 'g', 'work', '--return-immediately', '--failure-policy', 'continue', '--json', ...args]);
  writeFileSync(join(box.home, 'bcast.json'), res.stdout);
  return res.json().data;
}

describe('barrier', () => {
  for (const binding of ['http+json', 'json-rpc'] as const) {
    it(`waits for a slow task with GetTask over ${binding}, polling only undecided members`, async () => {
      await setup(binding, ['tasks', 'slow', 'echo']);
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
      const updates = withDb((d) => d.prepare(`SELECT payload_json FROM events WHERE event_type = 'a2a.task.updated' AND task_id = ?`).all(slow.task_id) as any[]);
      expect(updates.map((u) => JSON.parse(u.payload_json))).toContainEqual(expect.objectContaining({ state: 'completed', observed_by: 'barrier' }));
      withDb((d) => expect(d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(slow.task_id)).toEqual({ state: 'completed' }));
      const journal = withDb((d) => (d.prepare(`SELECT event_type FROM events WHERE event_type LIKE 'missive.barrier.%' ORDER BY sequence`).all() as any[]).map((e) => e.event_type));
      expect(journal[0]).toBe('missive.barrier.started');
      expect(journal.at(-1)).toBe('missive.barrier.completed');
      expect(journal.filter((e) => e === 'missive.barrier.member.satisfied')).toHaveLength(3);
    });
  }

  it('fails with 80 when a member fails, unless the quorum is reached under continue', async () => {
    await setup('http+json', ['tasks', 'fail']);
    const sent = await bcastFile();
    const failed = await box.run(['barrier', 'g', '--context', sent.request.context_id, '--json']);
    expect(failed.code).toBe(80);
    expect(failed.json().data.members.map((m: any) => m.status)).toEqual(['satisfied', 'failed']);
    expect(JSON.parse(failed.stderr).data.code).toBe('missive::orchestration::barrier_failed');
    const quorum = await box.run(['barrier', 'g', '--context', sent.request.context_id, '--required', '1', '--failure-policy', 'continue', '--json']);
    expect(quorum.code).toBe(0);
    expect(quorum.json().data.quorum).toEqual({ required: 1, members: 2, satisfied: 1 });
  });

  it('reports cancellation with 81 and a never-ending task as a timeout (82)', async () => {
    await setup('json-rpc', ['slow']);
    const sent = await bcastFile();
    expect((await box.run(['task', 'cancel', sent.members[0].task_id])).code).toBe(0);
    const cancelled = await box.run(['barrier', 'g', '--context', sent.request.context_id, '--json']);
    expect(cancelled.code).toBe(81);
    expect(cancelled.json().data.members[0].status).toBe('cancelled');

    box.dispose();
    await setup('http+json', ['ask']);
    const asked = await bcastFile();
    const timeout = await box.run(['barrier', 'g', '--context', asked.request.context_id, '--interval', '100ms', '--timeout', '500ms', '--json']);
    expect(timeout.code).toBe(82);
    expect(timeout.json().data.members[0]).toMatchObject({ status: 'pending', state: 'input_required' });
    const wanted = await box.run(['barrier', 'g', '--context', asked.request.context_id, '--state', 'input-required', '--json']);
    expect(wanted.code).toBe(0);
  });

  it('reads SQLite only with --local, takes --from-bcast from stdin, and validates its inputs', async () => {
    await setup('http+json', ['tasks', 'echo']);
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
