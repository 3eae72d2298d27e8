/**
 * Groups, route explain, bcast and scatter against real SDK agents, on both stores (the embedded SQLite file and a
 * shared PostgreSQL database): the journal read back as `events list` shows it, the message rows of an exchange (no
 * command shows them yet) by the same SQL on either engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { storeRows } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let downUrl: string;
let box: Sandbox;
let store: StoreUnderTest;

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo', skills: [{ id: 'echo', name: 'Echo', tags: ['text'] }] },
    tasks: { behaviour: 'task', skills: [{ id: 'summarise', name: 'Summarise', tags: ['text', 'artifacts'] }] },
    fail: { behaviour: 'fail' },
    ask: { behaviour: 'input' },
    slow: { behaviour: 'slow', delayMs: 1500 },
  });
  downUrl = await closedPortUrl();
});
afterAll(() => fleet.close());

const ranks = (data: any) => data.members.map((m: any) => `${m.rank}:${m.agent_alias}`);
/** The types of the journal's events of `type` (a type or a prefix ending in .*), oldest first, as `events list` shows them. */
const eventTypes = async (type: string): Promise<string[]> => {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '1000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events.map((e: { type: string }) => e.type);
};
/** How many message rows `where` selects. */
const countMessages = async (where: string, params: unknown[] = []): Promise<number> =>
  Number((await storeRows(box, `SELECT count(*) AS n FROM messages WHERE ${where}`, params))[0]!.n);

describe.each(STORES)('collectives (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, fleet.agents);
    expect((await box.run(['agent', 'add', 'down', downUrl])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  describe('groups', () => {
    it('assigns deterministic unique ranks and keeps them through add, move and remove', async () => {
      const created = await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks@0', '--member', 'fail', '--json']);
      expect(created.code).toBe(0);
      expect(ranks(created.json().data)).toEqual(['0:tasks', '1:echo', '2:fail']);
      expect(ranks((await box.run(['group', 'add', 'g', 'ask', '--json'])).json().data)).toEqual(['0:tasks', '1:echo', '2:fail', '3:ask']);
      const taken = await box.run(['group', 'add', 'g', 'slow', '--rank', '1']);
      expect(taken.code).toBe(64);
      expect(taken.stderr).toContain('rank 1 is already held by "echo"');
      expect(ranks((await box.run(['group', 'add', 'g', 'echo', '--rank', '9', '--json'])).json().data)).toEqual(['0:tasks', '2:fail', '3:ask', '9:echo']);
      expect(ranks((await box.run(['group', 'remove', 'g', 'fail', '--json'])).json().data)).toEqual(['0:tasks', '3:ask', '9:echo']);
      expect((await box.run(['group', 'list', '--json'])).json().data.groups).toMatchObject([{ group_name: 'g', members: 3 }]);
      expect((await box.run(['group', 'create', 'g'])).code).toBe(64);
      expect((await box.run(['group', 'create', 'h', '--member', 'nobody'])).code).toBe(64);
      expect((await box.run(['group', 'delete', 'g'])).code).toBe(0);
      expect((await box.run(['group', 'show', 'g'])).code).toBe(64);
      expect(await eventTypes('missive.group.*')).toEqual([
        'missive.group.created',
        'missive.group.member_added',
        'missive.group.member_added',
        'missive.group.member_removed',
        'missive.group.deleted',
      ]);
    });

    it('aggregates member capabilities', async () => {
      await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks']);
      const caps = (await box.run(['group', 'capabilities', 'g', '--json'])).json().data;
      expect(caps.common_labels).toEqual(expect.arrayContaining(['text', 'streaming']));
      expect(caps.common_labels).not.toContain('artifacts');
      expect(caps.all_labels).toContain('artifacts');
    });
  });

  describe('route explain', () => {
    it('explains first, round-robin and capability-match from cached cards, sending nothing', async () => {
      await box.run(['group', 'create', 'g', '--member', 'down', '--member', 'echo', '--member', 'tasks']);
      const before = fleet.agents.echo!.requests.length;
      const first = (await box.run(['route', 'explain', 'g', '--policy', 'first', '--json'])).json().data;
      expect(first).toMatchObject({ policy: 'first', chosen: ['echo'] });
      expect(first.candidates[0]).toMatchObject({ alias: 'down', card: 'missing', chosen: false });
      const rr = (await box.run(['route', 'explain', 'g', '--policy', 'round-robin', '--cursor', '4', '--json'])).json().data;
      expect(rr).toMatchObject({ chosen: ['echo'], cursor: 4, next_round_robin_cursor: 5 });
      const match = (await box.run(['route', 'explain', 'g', '--policy', 'capability-match', '--need', 'artifacts', '--need', 'Text', '--json'])).json().data;
      expect(match.chosen).toEqual(['tasks']);
      expect(match.candidates.map((c: any) => c.missing)).toEqual([['artifacts:unknown', 'text:unknown'], ['artifacts'], []]);
      const agents = (await box.run(['route', 'explain', '--agents', 'tasks,echo', '--policy', 'capability-match', '--need', 'echo', '--json'])).json().data;
      expect(agents.chosen).toEqual(['echo']);
      expect(fleet.agents.echo!.requests.length).toBe(before);
      expect((await box.run(['route', 'explain', 'g', '--policy', 'capability-match'])).code).toBe(64);
      expect((await box.run(['route', 'explain', 'g', '--policy', 'nearest'])).code).toBe(64);
    });
  });

  describe('bcast', () => {
    for (const binding of ['http+json', 'json-rpc'] as const) {
      it(`sends to every member over ${binding} with one context and reports in rank order (continue → partial_failure)`, async () => {
        await box.run(['group', 'create', 'mixed', '--member', 'echo', '--member', 'tasks', '--member', 'fail', '--member', 'down', '--member', 'ask']);
        const res = await box.run(['bcast', 'mixed', 'hello all', '--binding', binding, '--failure-policy', 'continue', '--json']);
        expect(res.code).toBe(0);
        const data = res.json().data;
        expect(data).toMatchObject({
          status: 'partial_failure',
          counts: { succeeded: 3, failed: 2, timeout: 0, skipped: 0 },
          request: { context_created: true },
        });
        expect(data.members.map((m: any) => [m.rank, m.alias, m.status, m.state])).toEqual([
          [0, 'echo', 'succeeded', null],
          [1, 'tasks', 'succeeded', 'completed'],
          [2, 'fail', 'failed', 'failed'],
          [3, 'down', 'failed', null],
          [4, 'ask', 'succeeded', 'input_required'],
        ]);
        expect(data.members[3].error).toMatchObject({ code: 'missive::transport::connection_refused', exit_code: 69 });
        expect(data.members[2].error).toMatchObject({ code: 'missive::orchestration::task_failed' });
        expect(data.members.filter((m: any) => m.selected_interface).every((m: any) => m.selected_interface.binding === binding)).toBe(true);
        const contextId = data.request.context_id;
        const rows = await storeRows(box, `SELECT message_id, agent_alias, context_id FROM messages WHERE direction = 'request'`);
        expect(rows).toHaveLength(4);
        expect(new Set(rows.map((r) => r.context_id))).toEqual(new Set([contextId]));
        expect(new Set(rows.map((r) => r.message_id)).size).toBe(4);
        const events = await eventTypes('missive.bcast.*');
        expect(events[0]).toBe('missive.bcast.started');
        expect(events.at(-1)).toBe('missive.bcast.completed');
        expect(events.filter((e) => e === 'missive.bcast.member.succeeded')).toHaveLength(3);
        expect(events.filter((e) => e === 'missive.bcast.member.failed')).toHaveLength(2);
      });
    }

    it('refuses bad input once, before sending to anyone', async () => {
      await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks']);
      const missing = await box.run(['bcast', 'g', '--file', 'nope.txt']);
      expect(missing.code).toBe(64);
      expect(missing.stderr).toContain('nope.txt does not exist');
      const big = await box.run(['bcast', 'g', 'x'.repeat(1_200_000)]);
      expect(big.code).toBe(65);
      expect(big.stderr).toContain('max_request_bytes');
      expect(await countMessages('1 = 1')).toBe(0);
    });

    it('stops after the first failure (sequential, exit 70) and skips the rest', async () => {
      await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'down', '--member', 'tasks']);
      const posts = () => fleet.agents.tasks!.requests.filter((r) => r.method === 'POST').length;
      const before = posts();
      const res = await box.run(['bcast', 'g', 'hi', '--execution', 'sequential', '--context', 'ctx-stop', '--json']);
      expect(res.code).toBe(70);
      const data = res.json().data;
      expect(data).toMatchObject({ status: 'failed', execution: 'sequential', request: { context_id: 'ctx-stop', context_created: true } });
      expect(data.members.map((m: any) => m.status)).toEqual(['succeeded', 'failed', 'skipped']);
      expect(JSON.parse(res.stderr).data.code).toBe('missive::orchestration::bcast_failed');
      expect(posts()).toBe(before);
    });

    it('bounds the whole command with --timeout, keeping finished members (exit 82)', async () => {
      await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'slow']);
      const res = await box.run(['bcast', 'g', 'hurry', '--timeout', '600ms', '--json']);
      expect(res.code).toBe(82);
      const data = res.json().data;
      expect(data.status).toBe('timeout');
      expect(data.members.map((m: any) => m.status)).toEqual(['succeeded', 'timeout']);
      expect(data.elapsed_ms).toBeLessThan(1400);
      expect(await countMessages(`direction = 'response' AND agent_alias = 'echo'`)).toBe(1);
    });

    it('fans out to 50 agents with bounded concurrency, one context and 50 distinct message ids', async () => {
      const many = await startAgents(
        Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`e${String(i).padStart(2, '0')}`, { behaviour: 'echo' as const }])),
      );
      try {
        await register(box, many.agents);
        await box.run(['group', 'create', 'big', ...Object.keys(many.agents).flatMap((a) => ['--member', a])]);
        const res = await box.run(['bcast', 'big', 'ping', '--max-concurrency', '8', '--ndjson']);
        expect(res.code).toBe(0);
        const lines = res.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const result = lines.at(-1).data;
        expect(lines.at(-1).kind).toBe('bcast_result');
        expect(result).toMatchObject({ status: 'succeeded', max_concurrency: 8, counts: { succeeded: 50 } });
        expect(result.members.map((m: any) => m.rank)).toEqual([...Array(50).keys()]);
        const progress = lines.filter((l) => l.kind === 'member_progress');
        expect(progress.filter((l) => l.data.status === 'succeeded')).toHaveLength(50);
        let inFlight = 0;
        let peak = 0;
        for (const l of progress) {
          inFlight += l.data.status === 'running' ? 1 : -1;
          peak = Math.max(peak, inFlight);
        }
        expect(peak).toBeLessThanOrEqual(8);
        const ids = await storeRows(
          box,
          `SELECT context_id AS c, count(DISTINCT message_id) AS n FROM messages WHERE direction = 'request' GROUP BY context_id`,
        );
        expect(ids.map((r) => [r.c, Number(r.n)])).toEqual([[result.request.context_id, 50]]);
      } finally {
        await many.close();
      }
    }, 60_000);
  });

  describe('bcast on a terminal', () => {
    it('draws a live per-member view in place, then the summary; plain output off a TTY', async () => {
      await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks']);
      const tty = await box.run(['bcast', 'g', 'hi'], { tty: true });
      expect(tty.code).toBe(0);
      // eslint-disable-next-line no-control-regex -- the progress line starts with a terminal escape (ESC [2K)
      expect(tty.stdout).toMatch(/\x1b\[2K✓ {3}0 echo\s+message|\x1b\[2K✓ {3}0 echo\s+succeeded/);
      // eslint-disable-next-line no-control-regex -- the progress line starts with a terminal escape (ESC [2K)
      expect(tty.stdout).toMatch(/\x1b\[2K✓ {3}1 tasks\s+completed\s+\d+ ms █+/);
      expect(tty.stdout).toContain('bcast succeeded: 2 succeeded');
      const plain = await box.run(['bcast', 'g', 'hi']);
      expect(plain.stdout).not.toContain('\x1b[');
      expect(plain.stdout).toContain('bcast succeeded: 2 succeeded');
    });
  });

  describe('scatter', () => {
    it('deals input i to member i mod N in one context', async () => {
      await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks']);
      writeFileSync(join(box.home, 'inputs.json'), JSON.stringify(['first', 'second', { n: 3 }]));
      const res = await box.run(['scatter', 'g', '--inputs', 'inputs.json', '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data.members.map((m: any) => [m.alias, m.input_index, m.status])).toEqual([
        ['echo', 0, 'succeeded'],
        ['echo', 2, 'succeeded'],
        ['tasks', 1, 'succeeded'],
      ]);
      const texts = (await storeRows(box, `SELECT agent_alias, content_json FROM messages WHERE direction = 'request' ORDER BY agent_alias, rowid`)).map(
        (r) => [r.agent_alias, JSON.parse(r.content_json).parts[0]],
      );
      expect(texts).toEqual([
        ['echo', { text: 'first' }],
        ['echo', { data: { n: 3 }, mediaType: 'application/json' }],
        ['tasks', { text: 'second' }],
      ]);
      writeFileSync(join(box.home, 'lines.txt'), 'a\n\nb\n');
      expect((await box.run(['scatter', 'g', '--inputs', 'lines.txt', '--json'])).json().data.members).toHaveLength(2);
      writeFileSync(join(box.home, 'bad.json'), '[1,');
      expect((await box.run(['scatter', 'g', '--inputs', 'bad.json'])).code).toBe(64);
    });
  });
});
