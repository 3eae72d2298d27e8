/**
 * Rows changed outside missive (issue 32, finding 11): another database user, a teammate on the shared PostgreSQL
 * store or a tool on the SQLite file writes rows missive would never write — JSON nested 5,000 deep, text that is not
 * JSON, a task state that is none of missive's. Each is written here behind missive's back (test/support/
 * store-writes.ts: its own connection, CHECK constraints off or dropped), on both stores, and read by the real CLI:
 * a tampered row is `storage::corrupt_row` (exit 75) naming the row, never "a bug in missive" (exit 70); the journal's
 * listings show the other events and mark the bad one; a cached card that cannot be used is fetched again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { storeRows } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';
import { deepJson, tamperStore } from '../support/store-writes.js';

let agent: EmbeddedAgent;
let box: Sandbox;
let store: StoreUnderTest;
beforeAll(async () => void (agent = await startEmbeddedAgent({ name: 'peer', behaviour: 'task' })));
afterAll(async () => void (await agent.close()));

/** The error envelope a --json command printed on stderr. */
const errorOf = (stderr: string) => JSON.parse(stderr).data as { code: string; message: string; help?: string; exit_code: number };

describe.each(STORES)('rows changed outside missive (%s store)', (kind) => {
  let taskId: string;
  let contextId: string;
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    expect((await box.run(['agent', 'add', 'peer', agent.baseUrl])).code).toBe(0);
    const sent = await box.run(['send', 'peer', 'work', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    ({ task_id: taskId, context_id: contextId } = sent.json().data.task);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  it('lists and exports every other event when one event row nests 5,000 deep, marking that one corrupt by its sequence and id', async () => {
    await tamperStore(box, [
      [
        `INSERT INTO events (event_id, event_type, agent_alias, payload_json) VALUES (?, ?, ?, ?)`,
        ['tampered-deep', 'missive.note', 'peer', `{"x":${deepJson(5000)}}`],
      ],
    ]);

    const listed = await box.run(['events', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const events = listed.json().data.events as Array<Record<string, any>>;
    const bad = events.find((e) => e.event_id === 'tampered-deep')!;
    expect(bad).toMatchObject({
      type: 'missive.note',
      payload: null,
      metadata: {},
      corrupt: {
        code: 'missive::storage::corrupt_row',
        message: expect.stringMatching(
          /the events row with sequence \d+, event_id "tampered-deep" cannot be read: its payload_json nests JSON deeper than 128 levels/,
        ),
      },
    });
    const good = events.filter((e) => e !== bad);
    expect(good.length).toBeGreaterThan(2);
    expect(good.every((e) => e.corrupt === undefined && e.payload !== null)).toBe(true);
    expect(good.map((e) => e.type)).toContain('a2a.send.completed');
    expect(listed.stderr).toContain(`event ${bad.sequence} is shown marked corrupt`);

    const human = await box.run(['events', 'list']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('missive.note [corrupt]');

    const logs = await box.run(['logs', '--source', 'event-journal', '--json']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.json().data.records.find((r: { sequence: number }) => r.sequence === bad.sequence)).toMatchObject({
      type: 'missive.note',
      message: 'missive.note agent=peer [corrupt]',
    });

    const exported = await box.run(['events', 'export', '--output', 'journal.ndjson', '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.json().data).toMatchObject({ events: events.length, corrupt: 1 });
    const lines = readFileSync(join(box.home, 'journal.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(events);
  });

  it('fails a command that needs a 5,000-deep event (the thread of its context) as storage::corrupt_row naming the event', async () => {
    await tamperStore(box, [
      [
        `INSERT INTO events (event_id, event_type, agent_alias, context_id, task_id, payload_json) VALUES (?, ?, ?, ?, ?, ?)`,
        ['tampered-update', 'a2a.stream.status_update', 'peer', contextId, taskId, `{"statusUpdate":${deepJson(5000)}}`],
      ],
    ]);
    for (const args of [
      ['context', 'thread', contextId],
      ['context', 'export', contextId, '--output', 'ctx.json'],
    ]) {
      const res = await box.run([...args, '--json']);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(75);
      expect(errorOf(res.stderr)).toMatchObject({
        code: 'missive::storage::corrupt_row',
        message: expect.stringContaining('event_id "tampered-update" cannot be read'),
      });
    }
  });

  it('fetches a cached card nested 5,000 deep again for send and agent inspect, naming the agent, and keeps the fetched one', async () => {
    const cachedCard = async () =>
      JSON.parse((await storeRows(box, `SELECT agent_card_json FROM agents WHERE alias = ?`, ['peer']))[0]!.agent_card_json as string);
    expect((await box.run(['agent', 'inspect', 'peer'])).code).toBe(0);
    const card = await cachedCard();
    const tamper = () => tamperStore(box, [[`UPDATE agents SET agent_card_json = ? WHERE alias = ?`, [`{"name":"peer","skills":${deepJson(5000)}}`, 'peer']]]);

    await tamper();
    const sent = await box.run(['send', 'peer', 'hello']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toContain(
      'the cached card of "peer" cannot be used (the agents row with alias "peer" cannot be read: its agent_card_json nests JSON deeper than 128 levels); fetching it again',
    );
    expect(await cachedCard()).toEqual(card);

    await tamper();
    const inspected = await box.run(['agent', 'inspect', 'peer', '--json']);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.json().data).toMatchObject({ cache: { status: 'fetched' }, card: { name: card.name } });
    expect(await cachedCard()).toEqual(card);

    // Valid JSON that is no card (the parser refuses it, as it refuses a fetched one) is fetched again too.
    await tamperStore(box, [[`UPDATE agents SET agent_card_json = ? WHERE alias = ?`, ['{"supportedInterfaces":"nowhere"}', 'peer']]]);
    const again = await box.run(['send', 'peer', 'hello']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/the cached card of "peer" cannot be used \(the Agent Card at the cached card of "peer" does not match/);
    expect(await cachedCard()).toEqual(card);
  });

  it("fails a task row with a state that is none of missive's, or remote JSON that is not JSON, as storage::corrupt_row naming the task", async () => {
    await tamperStore(box, [[`UPDATE tasks SET state = 'nonsense' WHERE task_id = ?`, [taskId]]], { dropChecks: [['tasks', 'tasks_state_check']] });
    for (const args of [
      ['task', 'get', taskId],
      ['task', 'list'],
    ]) {
      const res = await box.run([...args, '--json']);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(75);
      const error = errorOf(res.stderr);
      expect(error).toMatchObject({ code: 'missive::storage::corrupt_row', exit_code: 75 });
      expect(error.message).toContain(`the tasks row with task_id "${taskId}" cannot be read: its state is "nonsense", not one of submitted, working`);
      expect(error.help).toContain(`DELETE FROM tasks WHERE task_id = '${taskId}';`);
    }

    await tamperStore(box, [[`UPDATE tasks SET state = 'completed', remote_task_json = '{not json' WHERE task_id = ?`, [taskId]]], {
      dropChecks: [['tasks', 'tasks_remote_task_json_check']],
    });
    const res = await box.run(['task', 'get', taskId, '--json']);
    expect(res.code, res.stderr).toBe(75);
    expect(errorOf(res.stderr)).toMatchObject({
      code: 'missive::storage::corrupt_row',
      message: expect.stringContaining(`the tasks row with task_id "${taskId}" cannot be read: its remote_task_json is not valid JSON`),
    });
    // The task as the agent has it replaces what was tampered with.
    const remote = await box.run(['task', 'get', taskId, '--remote', '--json']);
    expect(remote.code, remote.stderr).toBe(0);
    expect((await box.run(['task', 'get', taskId])).code).toBe(0);
  });

  it('refuses an auth ref whose stored flow is not a flow (storage::corrupt_row), never reading it as the header flow', async () => {
    expect(
      (
        await box.run([
          'auth',
          'add',
          'cc',
          '--env',
          'CS',
          '--flow',
          'oauth2_client_credentials',
          '--token-url',
          'http://127.0.0.1:9/token',
          '--client-id',
          'c1',
        ])
      ).code,
    ).toBe(0);
    expect((await box.run(['agent', 'set', 'peer', '--auth-ref', 'cc'])).code).toBe(0);
    await tamperStore(box, [[`UPDATE auth_refs SET flow_json = ? WHERE name = ?`, ['{"type":"oauth2_client_credentials","client_id":7}', 'cc']]]);
    for (const args of [
      ['auth', 'list'],
      ['send', 'peer', 'hello'],
    ]) {
      const res = await box.run([...args, '--json'], { env: { CS: 'client-secret-123' } });
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(75);
      expect(errorOf(res.stderr)).toMatchObject({
        code: 'missive::storage::corrupt_row',
        message: expect.stringContaining('the auth_refs row with name "cc" cannot be read: its flow_json does not hold what missive stores'),
      });
    }
  });
});
