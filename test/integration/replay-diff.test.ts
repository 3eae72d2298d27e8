/**
 * `events replay --context` and `diff` against real SDK agents (echo, task, chunks, reducer) and raw peers that answer
 * with JSON data parts, on both stores (the embedded SQLite file and a shared PostgreSQL database): a round replays
 * clean from its journal; a stored result tampered with behind missive's back is reported with the differing fields
 * and a non-zero exit; two rounds and two members diff as text lines and JSON changes.
 */
import { writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { storeRows, withStorage } from '../support/store-reads.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let raw: RawServer;
let box: Sandbox;
/** The store of the test's sandbox, until the sandbox is torn down. */
let store: StoreUnderTest | undefined;

function rawAgent(prefix: string, answer: (contextId: string) => unknown) {
  raw.route(`/${prefix}/.well-known/agent-card.json`, (_req, res) => json(res, 200, minimalCard(`${raw.url}/${prefix}`)));
  raw.route(`/${prefix}/a2a/rest/message:send`, (_req, res, body) => json(res, 200, answer(JSON.parse(body).message.contextId)));
}

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    tasks: { behaviour: 'task' },
    chunks: { behaviour: 'chunks', chunks: 3 },
    reducer: { behaviour: 'reducer' },
    fail: { behaviour: 'fail' },
  });
  raw = await startRawServer();
  rawAgent('data1', (c) => ({
    message: { messageId: 'd1', contextId: c, role: 'ROLE_AGENT', parts: [{ data: { config: { a: 1, keep: true }, list: [1], api_key: 'sk-one-AAAA1111' } }] },
  }));
  rawAgent('data2', (c) => ({
    message: { messageId: 'd2', contextId: c, role: 'ROLE_AGENT', parts: [{ data: { config: { a: 2, new: 'x' }, list: [1, 2], api_key: 'sk-two-BBBB2222' } }] },
  }));
});
afterAll(async () => {
  await fleet.close();
  await raw.close();
});
/** Each test's sandbox on a fresh store of `kind`, the agents registered and group g made. */
function sandboxOnEach(kind: StoreKindUnderTest) {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, { ...fleet.agents, data1: { baseUrl: `${raw.url}/data1` }, data2: { baseUrl: `${raw.url}/data2` } });
    expect((await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks', '--member', 'chunks'])).code).toBe(0);
  });
}
afterEach(async () => {
  if (!store) return;
  box.dispose();
  await store.release();
  store = undefined;
});

/**
 * Changes the sandbox's store behind missive's back, as someone editing it directly would: its SQLite file opened
 * writable, or its PostgreSQL schema (`sql` in that engine's dialect); how many rows changed.
 */
async function tamper(sql: { sqlite: string; postgres?: string }, ...params: unknown[]): Promise<number> {
  if (store!.kind === 'postgres') return (await storeRows(box, `${sql.postgres ?? sql.sqlite} RETURNING 1`, params)).length;
  const db = new Database(join(box.home, 'state/profiles/default/missive.sqlite3'));
  try {
    return db.prepare(sql.sqlite).run(...params).changes;
  } finally {
    db.close();
  }
}

const round = async (message: string, context: string, extra: string[] = []) => {
  const res = await box.run(['round', 'g', message, '--context', context, '--json', ...extra]);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
};

describe.each(STORES)('events replay --context (%s store)', (kind) => {
  sandboxOnEach(kind);

  it('rebuilds every step of a round from the journal and finds each matching the stored results', async () => {
    await round('plan the day', 'ctx-r', ['--reducer-agent', 'reducer']);
    const res = await box.run(['events', 'replay', '--context', 'ctx-r', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const data = res.json().data;
    expect(data.status).toBe('matched');
    expect(data.steps.map((s: any) => [s.step, s.match, s.complete])).toEqual([
      ['bcast', true, true],
      ['barrier', true, true],
      ['gather', true, true],
      ['reduce', true, true],
    ]);
    // Who ran each step, as the collective's journal records it: this (test) process's CLI.
    const here = { host: hostname(), user: userInfo().username, id: `cli:${process.pid}` };
    expect(data.steps.map((s: any) => s.actor)).toEqual([here, here, here, here]);
    const [bcast, barrier, gather, reduce] = data.steps;
    expect(bcast.rebuilt.counts).toEqual({ succeeded: 3, failed: 0, timeout: 0, skipped: 0 });
    expect(bcast.rebuilt.members.map((m: any) => [m.alias, m.status, m.answered, m.task_id === null])).toEqual([
      ['echo', 'succeeded', true, true],
      ['tasks', 'succeeded', true, false],
      ['chunks', 'succeeded', true, false],
    ]);
    expect(barrier.rebuilt).toMatchObject({ quorum_met: true, satisfied: 3, required: 3 });
    expect(gather.stored.members.map((m: any) => [m.alias, m.status, m.text_source])).toEqual([
      ['echo', 'gathered', 'message'],
      ['tasks', 'gathered', 'message'],
      ['chunks', 'gathered', 'message'],
    ]);
    expect(reduce.rebuilt).toMatchObject({ status: 'completed', reducer: 'agent', inputs: 3, strategy: 'summarise' });
    expect(reduce.stored).toMatchObject({ status: 'completed', reducer: 'agent', inputs: 3, strategy: 'summarise' });

    const human = await box.run(['events', 'replay', '--context', 'ctx-r']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('4 of 4 step(s) match');
    expect(human.stdout).toMatch(/match {4}bcast {3}g {2}succeeded: 3 succeeded /);
    expect(human.stdout).toMatch(/match {4}barrier g {2}quorum 3\/3 met /);
    expect(human.stdout).toMatch(/match {4}gather {2}g {2}3 gathered /);
    expect(human.stdout).toMatch(/match {4}reduce {2}g {2}completed: summarise by agent, 3 input\(s\) /);
    expect(human.stdout).toContain(`  by ${here.user}@${here.host} cli:${process.pid}`);
    expect(human.stdout).not.toContain('MISMATCH');
  });

  it('replays a context named locally, reading its journal page by page in sequence order', async () => {
    const created = (await box.run(['context', 'create', '--name', 'planning', '--json'])).json().data;
    await round('plan the day', 'planning');
    const res = await box.run(['events', 'replay', '--context', 'planning', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json().data).toMatchObject({ context_id: created.context_id, status: 'matched', counts: { steps: 4, matched: 4, mismatched: 0 } });
    const listed = await box.run(['events', 'list', '--context', created.context_id, '--limit', '1000', '--json']);
    const shown = listed.json().data.events.map((e: any) => e.sequence);
    expect(shown.length).toBeGreaterThan(7);
    const [whole, paged] = await withStorage(box, async (s) => [
      await s.conversation.contextJournal(created.context_id),
      await s.conversation.contextJournal(created.context_id, 3),
    ]);
    expect(whole.map((e) => e.sequence)).toEqual(shown);
    expect(paged).toEqual(whole);
  });

  it('reports a tampered reduce result and task state field by field and exits 65', async () => {
    await round('plan the day', 'ctx-t');
    const strategy = {
      sqlite: `UPDATE messages SET metadata_json = json_set(metadata_json, '$.strategy', 'vote') WHERE context_id = ? AND direction = 'local'`,
      postgres: `UPDATE messages SET metadata_json = jsonb_set(metadata_json::jsonb, '{strategy}', '"vote"')::text WHERE context_id = ? AND direction = 'local'`,
    };
    expect(await tamper(strategy, 'ctx-t')).toBe(1);
    expect(await tamper({ sqlite: `UPDATE tasks SET state = 'failed' WHERE context_id = ? AND agent_alias = 'tasks'` }, 'ctx-t')).toBe(1);
    const res = await box.run(['events', 'replay', '--context', 'ctx-t', '--json']);
    expect(res.code).toBe(65);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::data::replay_mismatch');
    const data = res.json().data;
    expect(data.status).toBe('mismatched');
    expect(data.counts).toEqual({ steps: 4, matched: 2, mismatched: 2 });
    const byStep = Object.fromEntries(data.steps.map((s: any) => [s.step, s]));
    expect(byStep.bcast.match).toBe(true);
    expect(byStep.gather.match).toBe(true);
    expect(byStep.reduce.differences).toEqual([{ field: 'strategy', rebuilt: 'summarise', stored: 'vote' }]);
    expect(byStep.barrier.differences).toEqual([{ field: 'members[1].state', rebuilt: 'completed', stored: 'failed' }]);

    const human = await box.run(['events', 'replay', '--context', 'ctx-t']);
    expect(human.code).toBe(65);
    expect(human.stdout).toContain('MISMATCH reduce');
    expect(human.stdout).toContain('strategy: rebuilt "summarise", stored "vote"');
    expect(human.stderr).toContain('do not match what is stored');
  });

  it('replays a round with a failed member as it ran: partial bcast, the failure journaled, every step matching', async () => {
    expect((await box.run(['group', 'create', 'gf', '--member', 'echo', '--member', 'fail'])).code).toBe(0);
    await box.run(['round', 'gf', 'try', '--context', 'ctx-f', '--failure-policy', 'continue']);
    const res = await box.run(['events', 'replay', '--context', 'ctx-f', '--json']);
    expect(res.code, res.stdout).toBe(0);
    const [bcast, barrier, gather] = res.json().data.steps;
    expect(bcast.rebuilt).toMatchObject({ status: 'partial_failure', counts: { succeeded: 1, failed: 1, timeout: 0, skipped: 0 } });
    expect(bcast.stored).toMatchObject({ status: 'partial_failure' });
    expect(barrier.rebuilt.members.map((m: any) => [m.alias, m.status, m.state])).toEqual([
      ['echo', 'satisfied', 'message'],
      ['fail', 'failed', 'failed'],
    ]);
    expect(gather.rebuilt.counts).toEqual({ gathered: 2, missing_task: 0, empty_output: 0 });
  });

  it('replays a scatter: one send per input, each matched with its request and task rows', async () => {
    writeFileSync(join(box.home, 'inputs.txt'), 'first\nsecond\nthird\nfourth\n');
    expect((await box.run(['scatter', 'g', '--inputs', 'inputs.txt', '--context', 'ctx-sc'])).code).toBe(0);
    const res = await box.run(['events', 'replay', '--context', 'ctx-sc', '--json']);
    expect(res.code, res.stdout).toBe(0);
    const [step] = res.json().data.steps;
    expect(step).toMatchObject({ step: 'scatter', match: true, group: 'g' });
    expect(step.rebuilt.members.map((m: any) => m.alias)).toEqual(['echo', 'echo', 'tasks', 'chunks']);
    expect(step.stored.members.map((m: any) => m.answered)).toEqual([true, true, true, true]);
  });

  it('reports a bcast whose answer row was deleted, and refuses a context without collective steps', async () => {
    const sent = await round('plan the day', 'ctx-d');
    const echo = sent.bcast.members.find((m: any) => m.alias === 'echo');
    expect(await tamper({ sqlite: `DELETE FROM messages WHERE context_id = ? AND agent_alias = 'echo' AND direction = 'response'` }, 'ctx-d')).toBe(1);
    const res = await box.run(['events', 'replay', '--context', 'ctx-d', '--json']);
    expect(res.code).toBe(65);
    const bcast = res.json().data.steps.find((s: any) => s.step === 'bcast');
    expect(bcast.rebuilt.members[0].request_message_id).toBe(echo.request_message_id);
    expect(bcast.differences).toEqual([{ field: 'members[0].answered', rebuilt: true, stored: false }]);

    expect((await box.run(['send', 'echo', 'hi', '--context', 'ctx-plain'])).code).toBe(0);
    const none = await box.run(['events', 'replay', '--context', 'ctx-plain', '--json']);
    expect(none.code).toBe(64);
    expect(JSON.parse(none.stderr).data.code).toBe('missive::validation::nothing_to_replay');
  });
});

describe.each(STORES)('diff (%s store)', (kind) => {
  sandboxOnEach(kind);

  it('diffs two rounds member by member: changed text lines, unified and escaped', async () => {
    await round('hello', 'ctx-a');
    await round('good\u001b[31mbye', 'ctx-b');
    const res = await box.run(['diff', '--context', 'ctx-a', '--context', 'ctx-b', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const data = res.json().data;
    expect(data.mode).toBe('rounds');
    expect(data.counts).toEqual({ pairs: 3, changed: 3, unchanged: 0 });
    const echo = data.pairs.find((p: any) => p.label === 'echo');
    expect(echo.text.hunks).toEqual([{ old_start: 1, old_lines: 1, new_start: 1, new_lines: 1, lines: ['-echo: hello', '+echo: good\u001b[31mbye'] }]);

    const human = await box.run(['diff', '--context', 'ctx-a', '--context', 'ctx-b', '--member', 'echo']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('--- a: echo  (context ctx-a, gathered, message)');
    expect(human.stdout).toContain('+++ b: echo  (context ctx-b, gathered, message)');
    expect(human.stdout).toContain('\n-echo: hello\n+echo: good\\x1b[31mbye\n');
    expect(human.stdout).not.toContain('\u001b');
    expect(human.stdout).not.toContain('tasks');
  });

  it('shows identical rounds as unchanged, and --exit-code exits 1 only when something changed', async () => {
    await round('same', 'ctx-s1');
    await round('same', 'ctx-s2');
    await round('other', 'ctx-s3');
    const same = await box.run(['diff', '--context', 'ctx-s1', '--context', 'ctx-s2', '--member', 'echo', '--exit-code']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('= echo: no differences');
    const changed = await box.run(['diff', '--context', 'ctx-s1', '--context', 'ctx-s3', '--exit-code', '--json']);
    expect(changed.code).toBe(1);
    expect(changed.json().data.counts.changed).toBe(3);
  });

  it('diffs two members of one round', async () => {
    await round('hello', 'ctx-m');
    const res = await box.run(['diff', '--context', 'ctx-m', '--members', 'echo,tasks', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const data = res.json().data;
    expect(data.mode).toBe('members');
    expect(data.pairs).toHaveLength(1);
    expect(data.pairs[0].a).toMatchObject({ alias: 'echo', rank: 0, text: 'echo: hello' });
    expect(data.pairs[0].b).toMatchObject({ alias: 'tasks', rank: 1, text: 'done: hello' });
    expect(data.pairs[0].text.hunks[0].lines).toEqual(['-echo: hello', '+done: hello']);
    const human = await box.run(['diff', '--context', 'ctx-m', '--members', 'echo,tasks']);
    expect(human.stdout).toContain('diff of echo and tasks in context ctx-m');
  });

  it('diffs data parts as JSON: changed, added and removed paths, secrets redacted on both sides', async () => {
    expect((await box.run(['group', 'create', 'd', '--member', 'data1', '--member', 'data2'])).code).toBe(0);
    expect((await box.run(['bcast', 'd', 'config?', '--context', 'ctx-data'])).code).toBe(0);
    const res = await box.run(['diff', '--context', 'ctx-data', '--members', 'data1,data2', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const pair = res.json().data.pairs[0];
    expect(pair.data.changes).toEqual([
      { path: '$[0].config.a', kind: 'changed', a: 1, b: 2 },
      { path: '$[0].config.keep', kind: 'removed', a: true },
      { path: '$[0].config.new', kind: 'added', b: 'x' },
      { path: '$[0].list[1]', kind: 'added', b: 2 },
    ]);
    expect(pair.text.changed).toBe(false);
    const human = await box.run(['diff', '--context', 'ctx-data', '--members', 'data1,data2']);
    expect(human.stdout).toContain('data parts (JSON):\n~ $[0].config.a: 1 → 2\n- $[0].config.keep: true\n+ $[0].config.new: "x"\n+ $[0].list[1]: 2');
    for (const out of [res.stdout, human.stdout]) {
      expect(out).not.toContain('AAAA1111');
      expect(out).not.toContain('BBBB2222');
    }
    expect(pair.a.data[0].api_key).toBe('[REDACTED]');
  });

  it('refuses a diff it cannot make, with usage errors', async () => {
    await round('hello', 'ctx-u');
    const one = await box.run(['diff', '--context', 'ctx-u', '--json']);
    expect(one.code).toBe(64);
    expect(JSON.parse(one.stderr).data.code).toBe('missive::validation::diff_needs_two_contexts');
    const three = await box.run(['diff', '--context', 'ctx-u', '--members', 'echo,tasks,chunks', '--json']);
    expect(JSON.parse(three.stderr).data.code).toBe('missive::validation::diff_members_two');
    const stranger = await box.run(['diff', '--context', 'ctx-u', '--context', 'ctx-u', '--member', 'reducer', '--json']);
    expect(JSON.parse(stranger.stderr).data.code).toBe('missive::validation::diff_member_not_in_rounds');
    const noRound = await box.run(['diff', '--context', 'ctx-u', '--context', 'ctx-nothing', '--json']);
    expect(JSON.parse(noRound.stderr).data.code).toBe('missive::validation::no_round_in_context');
  });
});
