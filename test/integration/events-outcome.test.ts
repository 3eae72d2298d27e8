/**
 * Finding failures in the journal: `events list|export --outcome failed` keeps the events that record a failure
 * (a failed call, a task that ended failed, a collective that did not succeed), and `--type PREFIX.*`
 * matches a family of types. A free-text search for "failed" also finds successes (a count of `"failed": 0`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { sandbox, type Sandbox } from '../support/cli.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
beforeAll(async () => void (fleet = await startAgents({ tasks: { behaviour: 'task' }, broken: { behaviour: 'fail' } })));
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox();
  await register(box, fleet.agents);
  expect((await box.run(['agent', 'add', 'gone', await closedPortUrl()])).code).toBe(0);
  expect((await box.run(['group', 'create', 'pair', '--member', 'tasks', '--member', 'broken'])).code).toBe(0);
});
afterEach(() => box.dispose());

type Listed = { type: string; agent: string | null; task_id: string | null; payload: any };
const list = async (...args: string[]) => {
  const res = await box.run(['events', 'list', ...args, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events as Listed[];
};

describe('events --outcome failed', () => {
  it('keeps only the events that record a failure, where --search failed also finds successes', async () => {
    expect((await box.run(['group', 'create', 'solo', '--member', 'tasks'])).code).toBe(0);
    const ok = (await box.run(['send', 'tasks', 'fine', '--json'])).json().data;
    expect(ok.task.state).toBe('completed');
    const broken = (await box.run(['send', 'broken', 'break', '--json'])).json().data;
    expect(broken.task.state).toBe('failed');
    expect((await box.run(['send', 'gone', 'hello?'])).code).toBe(69);
    expect((await box.run(['bcast', 'solo', 'just you'])).code).toBe(0);
    expect((await box.run(['bcast', 'pair', 'all of you', '--failure-policy', 'continue'])).code).toBe(0);

    // A bcast that succeeded matches the word: its payload counts `"failed": 0`.
    const searched = await list('--search', 'failed', '--limit', '1000');
    expect(searched.find((e) => e.type === 'missive.bcast.completed')?.payload).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });

    const failures = await list('--outcome', 'failed', '--limit', '1000');
    expect(failures.map((e) => `${e.type} ${e.agent ?? '-'}`)).toEqual([
      'a2a.send.completed broken',
      'a2a.agent_card.failed gone',
      'a2a.send.completed broken',
      'missive.bcast.member.failed broken',
      'missive.bcast.completed -',
    ]);
    expect(failures[0]!.task_id).toBe(broken.task.task_id);
    expect(failures.at(-1)!.payload.status).toBe('partial_failure');
    expect((await list('--outcome', 'failed', '--agent', 'gone')).map((e) => e.type)).toEqual(['a2a.agent_card.failed']);
    expect((await list('--outcome', 'failed', '--limit', '1')).map((e) => e.type)).toEqual(['missive.bcast.completed']);
    expect(await list('--outcome', 'failed', '--agent', 'tasks')).toEqual([]);
    const human = await box.run(['events', 'list', '--outcome', 'failed', '--agent', 'gone']);
    expect(human.stdout).toMatch(/a2a\.agent_card\.failed\s+gone/);
    const bad = await box.run(['events', 'list', '--outcome', 'fine']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/failed/);
  });

  it('finds a collective that failed, and exports only the failures', async () => {
    expect((await box.run(['bcast', 'pair', 'together', '--context', 'ctx-f', '--failure-policy', 'continue'])).code).toBe(0);
    expect((await box.run(['barrier', 'pair', '--context', 'ctx-f', '--interval', '100ms'])).code).toBe(80);
    const failures = await list('--outcome', 'failed', '--context', 'ctx-f');
    expect(failures.map((e) => e.type)).toEqual([
      'a2a.send.completed',
      'missive.bcast.member.failed',
      'missive.bcast.completed',
      'missive.barrier.member.failed',
      'missive.barrier.completed',
    ]);
    const exported = await box.run(['events', 'export', '--outcome', 'failed', '--context', 'ctx-f', '--output', 'failures.ndjson']);
    expect(exported.code).toBe(0);
    const lines = readFileSync(join(box.home, 'failures.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type);
    expect(lines).toEqual(failures.map((e) => e.type));
  });
});

describe('events --type PREFIX.*', () => {
  it('matches every type under a prefix, and an exact type as before', async () => {
    await box.run(['send', 'tasks', 'one']);
    await box.run(['stream', 'tasks', 'two']);
    const sends = await list('--type', 'a2a.send.*');
    expect([...new Set(sends.map((e) => e.type))]).toEqual(['a2a.send.started', 'a2a.send.completed']);
    const a2a = await list('--type', 'a2a.*', '--agent', 'tasks', '--limit', '1000');
    expect(a2a.length).toBeGreaterThan(sends.length);
    expect(a2a.every((e) => e.type.startsWith('a2a.'))).toBe(true);
    expect((await list('--type', 'a2a.send.completed')).map((e) => e.type)).toEqual(['a2a.send.completed']);
    expect(await list('--type', 'a2a.send')).toEqual([]);
    expect((await box.run(['events', 'list', '--type', 'a2a.*.failed'])).code).toBe(64);
  });
});
