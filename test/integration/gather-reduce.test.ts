/**
 * gather, reduce (local strategies, templates, reducer agent, command) and round, against SDK agents and a raw peer, on
 * both stores (the embedded SQLite file and a shared PostgreSQL database): the journal and contexts read back as
 * `events list` and `context show` show them, the message rows (no command shows them yet) by the same SQL on either
 * engine.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { storeRows } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let raw: RawServer;
let box: Sandbox;
let store: StoreUnderTest;

/** Raw peers under path prefixes: `data1`/`data2` answer with JSON data parts and a score, `empty` with a bare task. */
function rawAgent(prefix: string, answer: (contextId: string) => unknown) {
  raw.route(`/${prefix}/.well-known/agent-card.json`, (_req, res) => json(res, 200, minimalCard(`${raw.url}/${prefix}`)));
  raw.route(`/${prefix}/a2a/rest/message:send`, (_req, res, body) => json(res, 200, answer(JSON.parse(body).message.contextId)));
}

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    echo2: { behaviour: 'echo' },
    tasks: { behaviour: 'task' },
    slow: { behaviour: 'slow', delayMs: 300 },
    fail: { behaviour: 'fail' },
    reducer: { behaviour: 'reducer' },
  });
  raw = await startRawServer();
  rawAgent('data1', (c) => ({
    message: { messageId: 'd1', contextId: c, role: 'ROLE_AGENT', parts: [{ data: { config: { a: 1, keep: true }, list: [1] } }], metadata: { score: 2 } },
  }));
  rawAgent('data2', (c) => ({
    message: { messageId: 'd2', contextId: c, role: 'ROLE_AGENT', parts: [{ data: { config: { a: 2 }, list: [2] } }], metadata: { score: 9 } },
  }));
  let n = 0;
  rawAgent('empty', (c) => ({ task: { id: `empty-${++n}`, contextId: c, status: { state: 'TASK_STATE_COMPLETED' } } }));
});
afterAll(async () => {
  await fleet.close();
  await raw.close();
});
const group = async (name: string, members: string[]) =>
  expect((await box.run(['group', 'create', name, ...members.flatMap((m) => ['--member', m])])).code).toBe(0);
const bcast = async (name: string, text: string, context: string) =>
  expect((await box.run(['bcast', name, text, '--context', context, '--failure-policy', 'continue'])).code).toBe(0);
/** The types of the journal's events of `type` (a type or a prefix ending in .*), oldest first, as `events list` shows them. */
const eventTypes = async (type: string): Promise<string[]> => {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '1000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events.map((e: { type: string }) => e.type);
};
const eventCount = async () => Number((await storeRows(box, `SELECT count(*) AS n FROM events`))[0]!.n);

describe.each(STORES)('gather, reduce and round (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, {
      ...fleet.agents,
      data1: { baseUrl: `${raw.url}/data1` },
      data2: { baseUrl: `${raw.url}/data2` },
      empty: { baseUrl: `${raw.url}/empty` },
    });
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  describe('gather', () => {
    it('collects text per member in rank order, with missing and empty members, and exports rank-prefixed artifacts', async () => {
      await group('g', ['echo', 'tasks', 'empty', 'slow']);
      await box.run(['group', 'remove', 'g', 'slow']);
      await bcast('g', 'question', 'ctx-g');
      await box.run(['group', 'add', 'g', 'slow']);
      const res = await box.run(['gather', 'g', '--context', 'ctx-g', '--output-dir', 'out', '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data.counts).toEqual({ gathered: 2, missing_task: 1, empty_output: 1 });
      expect(data.members.map((m: any) => [m.rank, m.alias, m.status, m.text_source, m.text])).toEqual([
        [0, 'echo', 'gathered', 'message', 'echo: question'],
        [1, 'tasks', 'gathered', 'message', 'done: question'],
        [2, 'empty', 'empty_output', null, null],
        [3, 'slow', 'missing_task', null, null],
      ]);
      expect(readdirSync(join(box.home, 'out')).sort()).toEqual(['1-tasks-result.txt', 'manifest.json']);
      expect(readFileSync(join(box.home, 'out/1-tasks-result.txt'), 'utf8')).toBe('result for: question');
      expect((await box.run(['gather', 'g', '--context', 'ctx-g', '--output-dir', 'out'])).code).toBe(64);
      expect((await box.run(['gather', 'g', '--context', 'ctx-g', '--output-dir', 'out', '--force'])).code).toBe(0);
      const human = await box.run(['gather', 'g', '--context', 'ctx-g']);
      expect(human.stdout).toContain('## 1 tasks (completed)\n\ndone: question');
      expect(human.stdout).toContain('## 3 slow\n\n_no task or answer in this context_');
    });

    it('creates the context row when it is absent and journals each member', async () => {
      await group('g', ['echo']);
      const res = await box.run(['gather', 'g', '--context', 'brand-new', '--json']);
      expect(res.json().data.members[0].status).toBe('missing_task');
      const shown = await box.run(['context', 'show', 'brand-new', '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json().data.context.context_id).toBe('brand-new');
      expect(await eventTypes('missive.gather.*')).toEqual(['missive.gather.started', 'missive.gather.member.missing_task', 'missive.gather.completed']);
    });
  });

  describe('reduce', () => {
    beforeEach(async () => {
      await group('g', ['echo', 'echo2', 'tasks']);
      await bcast('g', 'hi', 'ctx-r');
    });

    it('summarises and votes deterministically, recording one local message with provenance', async () => {
      const summary = (await box.run(['reduce', 'g', '--context', 'ctx-r', '--json'])).json().data;
      expect(summary.reduced_text.split('\n')).toEqual([
        `Summary for group 'g' in context 'ctx-r':`,
        '- 0 (echo): echo: hi',
        '- 1 (echo2): echo: hi',
        expect.stringMatching(/^- 2 \(tasks, task [0-9a-f-]+\): done: hi$/),
      ]);
      expect(summary.reducer).toMatchObject({ method: 'local', template_applied: false });
      const vote = (await box.run(['reduce', 'g', '--context', 'ctx-r', '--strategy', 'vote', '--json'])).json().data;
      expect(vote.reduced_text.split('\n')[0]).toBe('Vote result: "echo: hi" received 2 of 3 vote(s).');
      expect(vote.provenance.map((p: any) => [p.agent, p.rank, p.status])).toEqual([
        ['echo', 0, 'gathered'],
        ['echo2', 1, 'gathered'],
        ['tasks', 2, 'gathered'],
      ]);
      expect(vote.provenance[2].artifacts).toEqual([{ artifact_id: 'result', version: 1 }]);
      const [row] = await storeRows(box, `SELECT direction, role, content_json, metadata_json FROM messages WHERE message_id = ?`, [
        vote.persistence.reduced_message_id,
      ]);
      expect(row).toMatchObject({ direction: 'local', role: 'system' });
      expect(JSON.parse(row!.content_json).parts[0].text).toBe(vote.reduced_text);
      expect(JSON.parse(row!.metadata_json)).toMatchObject({ strategy: 'vote', provenance: [{ agent: 'echo' }, { agent: 'echo2' }, { agent: 'tasks' }] });
    });

    it('breaks a vote tie with the smallest normalised text', async () => {
      await group('pair', ['echo', 'tasks']);
      await bcast('pair', 'tie', 'ctx-tie');
      const vote = (await box.run(['reduce', 'pair', '--context', 'ctx-tie', '--strategy', 'vote', '--json'])).json().data;
      expect(vote.reduced_text.split('\n')[0]).toBe('Vote result: "done: tie" received 1 of 2 vote(s).');
    });

    it('deep-merges JSON data parts and ranks by metadata score', async () => {
      await group('data', ['data1', 'data2']);
      await bcast('data', 'config please', 'ctx-d');
      const merged = (await box.run(['reduce', 'data', '--context', 'ctx-d', '--strategy', 'merge', '--json'])).json().data;
      expect(JSON.parse(merged.reduced_text)).toEqual({ config: { a: 2, keep: true }, list: [1, 2] });
      const ranked = (await box.run(['reduce', 'data', '--context', 'ctx-d', '--strategy', 'rank', '--json'])).json().data;
      expect(
        ranked.reduced_text
          .split('\n')
          .slice(1)
          .map((l: string) => l.split(' — ').slice(0, 2).join(' — ')),
      ).toEqual(['1. 1 (data2) — score 9', '2. 0 (data1) — score 2']);
      const text = (await box.run(['reduce', 'g', '--context', 'ctx-r', '--strategy', 'merge', '--json'])).json().data.reduced_text;
      expect(text).toContain('## 2 (tasks)\n\ndone: hi');
    });

    it('renders templates and validates before any work', async () => {
      const custom = (
        await box.run([
          'reduce',
          'g',
          '--context',
          'ctx-r',
          '--strategy',
          'custom',
          '--template',
          '{{group}}/{{context_id}}: {{input_count}} via {{strategy}}',
          '--json',
        ])
      ).json().data;
      expect(custom.reduced_text).toBe('g/ctx-r: 3 via custom');
      expect(custom.reducer.template_applied).toBe(true);
      const before = await eventCount();
      expect((await box.run(['reduce', 'g', '--context', 'ctx-r', '--strategy', 'custom'])).code).toBe(64);
      expect((await box.run(['reduce', 'g', '--context', 'ctx-r', '--reducer-agent', 'reducer', '--command', 'cat'])).code).toBe(64);
      expect((await box.run(['reduce', 'g', '--context', 'nothing'])).stderr).toContain('has output in context nothing');
      expect((await box.run(['reduce', 'g', '--context', 'ctx-r', '--strategy', 'best'])).code).toBe(64);
      expect(await eventCount()).toBe(before);
    });

    it('sends the prompt to a reducer agent through the normal send path', async () => {
      const res = await box.run(['reduce', 'g', '--context', 'ctx-r', '--reducer-agent', 'reducer', '--json']);
      expect(res.code).toBe(0);
      const data = res.json().data;
      expect(data.reduced_text.split('\n')).toEqual(['Reduced 3 input(s):', '- 0 (echo): echo: hi', '- 1 (echo2): echo: hi', '- 2 (tasks): done: hi']);
      expect(data.reducer).toMatchObject({ method: 'agent', agent: 'reducer' });
      const [request] = await storeRows(box, `SELECT context_id, content_json FROM messages WHERE agent_alias = 'reducer' AND direction = 'request'`);
      expect(request!.context_id).toBe('ctx-r');
      expect(JSON.parse(request!.content_json).metadata).toMatchObject({
        'missive.collective': 'reduce',
        'missive.reduce.strategy': 'summarise',
        'missive.group': 'g',
      });
    });

    it('pipes the prompt to a local command and fails cleanly on bad output', async () => {
      const ok = (await box.run(['reduce', 'g', '--context', 'ctx-r', '--command', 'grep -c "^### "', '--json'])).json().data;
      expect(ok).toMatchObject({ reduced_text: '3', reducer: { method: 'command' } });
      for (const [command, reason] of [
        ['echo oops >&2; exit 3', 'reducer_command_failed'],
        ['true', 'reducer_output_empty'],
        ["printf '\\377\\376'", 'reducer_output_not_utf8'],
      ] as const) {
        const res = await box.run(['reduce', 'g', '--context', 'ctx-r', '--command', command, '--json']);
        expect(res.code).toBe(70);
        expect(JSON.parse(res.stderr).data.code).toBe(`missive::orchestration::${reason}`);
      }
      const failed = await box.run(['reduce', 'g', '--context', 'ctx-r', '--command', 'echo oops >&2; exit 3']);
      expect(failed.stderr).toContain('stderr: oops');
    });
  });

  describe('round', () => {
    for (const binding of ['http+json', 'json-rpc'] as const) {
      it(`runs bcast → barrier → gather → reduce in one context over ${binding}`, async () => {
        await group('g', ['echo', 'tasks', 'slow']);
        const res = await box.run(['round', 'g', 'plan the day', '--binding', binding, '--reducer-agent', 'reducer', '--json']);
        expect(res.code).toBe(0);
        const data = res.json().data;
        expect(data).toMatchObject({
          status: 'succeeded',
          bcast: { status: 'succeeded' },
          barrier: { status: 'succeeded' },
          gather: { counts: { gathered: 3 } },
        });
        expect(data.reduce.reduced_text).toMatch(/^Reduced 3 input\(s\):/);
        expect(new Set([data.bcast.request.context_id, data.barrier.context_id, data.gather.context_id, data.reduce.context_id]).size).toBe(1);
        const journal = (await eventTypes('missive.*')).filter((t) => t.endsWith('.started'));
        expect(journal).toEqual(['missive.bcast.started', 'missive.barrier.started', 'missive.gather.started', 'missive.reduce.started']);
      });
    }

    it('still gathers and reduces when a member fails under continue (status partial)', async () => {
      await group('g', ['echo', 'fail']);
      const res = await box.run(['round', 'g', 'try', '--failure-policy', 'continue', '--ndjson']);
      const lines = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.kind === 'round_step').map((l) => l.data.step)).toEqual(['bcast', 'barrier', 'gather', 'reduce']);
      const result = lines.at(-1).data;
      expect(result.status).toBe('partial');
      expect(result.reduce.reduced_text).toContain('- 1 (fail, task');
      expect(result.bcast.status).toBe('partial_failure');
      expect(res.code).toBe(0);
      const stopped = await box.run(['round', 'g', 'again', '--json']);
      expect(stopped.code).toBe(70);
      expect(stopped.json().data).toMatchObject({ status: 'partial', bcast: { status: 'failed' } });
    });
  });
});
