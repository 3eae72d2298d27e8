/**
 * `missive job start send|stream|bcast --from-file FILE|-`: one job per line of a file (a message per line, or NDJSON
 * objects naming their agent or group), queued by one process. Every line is checked before anything is queued: one
 * bad line is reported with its number, exit 64, and no job is queued. Thousands of lines are queued in batches and
 * run by a gateway, each job once, with its own line's message.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { storeUnderTest, STORES, type StoreUnderTest } from '../support/stores.js';
import { eventually, okData } from '../support/waits.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
beforeAll(async () => {
  fleet = await startAgents({ alpha: { behaviour: 'echo', streaming: true }, beta: { behaviour: 'echo', streaming: true } });
});
afterAll(() => fleet.close());

interface JobRow {
  job_id: string;
  kind: string;
  state: string;
  agent: string | null;
  group: string | null;
  result: { text?: string } | null;
}

describe.each(STORES)('job start --from-file (%s store)', (kind) => {
  let store: StoreUnderTest;
  let box: Sandbox;
  const jobs = async (): Promise<JobRow[]> => okData(await box.run(['job', 'list', '--limit', '10000', '--json']), 'job list').jobs;

  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    for (const [alias, agent] of Object.entries(fleet.agents)) okData(await box.run(['agent', 'add', alias, agent.baseUrl, '--json']), `agent add ${alias}`);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  it('queues one send job per line: plain lines go to the agent given, NDJSON lines to the agent they name', async () => {
    const file = join(box.home, 'jobs.ndjson');
    writeFileSync(file, ['first message', '{"agent": "beta", "text": "to beta"}', '', '{"message": "as message"}', 'last message', ''].join('\n'));
    const res = await box.run(['job', 'start', 'send', 'alpha', '--from-file', file, '--json']);
    const started = okData(res, 'job start --from-file');
    expect(started.count).toBe(4);
    expect(started.job_ids).toHaveLength(4);
    // No gateway runs: the jobs wait for one, as a single `job start` says.
    expect(res.stderr).toMatch(/no gateway runs for this profile/);
    const queued = await jobs();
    expect(queued.map((j) => j.job_id).sort()).toEqual([...started.job_ids].sort());
    expect(queued.every((j) => j.kind === 'send' && j.state === 'queued')).toBe(true);
    expect(queued.filter((j) => j.agent === 'beta')).toHaveLength(1);
    expect(queued.filter((j) => j.agent === 'alpha')).toHaveLength(3);
  });

  it('reads the lines from standard input with -, for stream jobs too', async () => {
    const started = okData(await box.run(['job', 'start', 'stream', 'alpha', '--from-file', '-', '--json'], { stdin: 'one\ntwo\n' }), 'job start stream -');
    expect(started.count).toBe(2);
    expect((await jobs()).map((j) => j.kind)).toEqual(['stream', 'stream']);
    // Human output: the count, then the ids.
    const human = await box.run(['job', 'start', 'send', 'alpha', '--from-file', '-'], { stdin: 'three\n' });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^queued 1 send job\(s\)\n[0-9a-f-]{36}\n$/);
  });

  it('queues one bcast job per line for a group', async () => {
    okData(await box.run(['group', 'create', 'pair', '--json']), 'group create');
    for (const alias of ['alpha', 'beta']) okData(await box.run(['group', 'add', 'pair', alias, '--json']), `group add ${alias}`);
    const started = okData(
      await box.run(['job', 'start', 'bcast', 'pair', '--from-file', '-', '--json'], { stdin: 'hello all\n{"text": "again"}\n' }),
      'bcast',
    );
    expect(started.count).toBe(2);
    expect((await jobs()).map((j) => [j.kind, j.group])).toEqual([
      ['bcast', 'pair'],
      ['bcast', 'pair'],
    ]);
  });

  it('reports every bad line by its number, exits 64 and queues nothing', async () => {
    const file = join(box.home, 'bad.ndjson');
    writeFileSync(
      file,
      ['fine', '{"agent": "alpha", "text": ', '{"agent": "nobody", "text": "hi"}', '{"agent": "alpha", "txt": "typo"}', 'fine too'].join('\n'),
    );
    const res = await box.run(['job', 'start', 'send', 'alpha', '--from-file', file, '--json']);
    expect(res.code).toBe(64);
    const error = JSON.parse(res.stderr).data;
    expect(error.code).toBe('missive::validation::invalid_job_file');
    expect(error.message).toMatch(/3 line\(s\) of .*bad\.ndjson are not jobs; nothing was queued/);
    expect(error.message).toMatch(/line 2: not JSON/);
    expect(error.message).toMatch(/line 3: .*nobody/);
    expect(error.message).toMatch(/line 4: .*txt/);
    expect(error.message).not.toMatch(/line [15]:/);
    expect(error.message).not.toMatch(/\n/);
    expect(await jobs()).toEqual([]);
    // Plain lines need an agent: none given, none named.
    const none = await box.run(['job', 'start', 'send', '--from-file', '-', '--json'], { stdin: 'orphan line\n' });
    expect(none.code).toBe(64);
    expect(JSON.parse(none.stderr).data.message).toMatch(/line 1: no agent/);
    expect(await jobs()).toEqual([]);
  });
});

describe('job start --from-file at scale (postgres store)', () => {
  it('queues 2,000 jobs in one process, and a gateway runs each once with its own line', async () => {
    const store = await storeUnderTest('postgres');
    const box = sandbox(store.env);
    try {
      okData(await box.run(['agent', 'add', 'alpha', fleet.agents.alpha!.baseUrl, '--json']), 'agent add');
      const lines = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? `line ${i + 1}` : JSON.stringify({ agent: 'alpha', text: `line ${i + 1}` })));
      const file = join(box.home, 'many.txt');
      writeFileSync(file, `${lines.join('\n')}\n`);
      const started = okData(await box.run(['job', 'start', 'send', 'alpha', '--from-file', file, '--json']), 'job start --from-file');
      expect(started.count).toBe(2000);

      const core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
      const stop = new AbortController();
      const gateway = runGateway(core, { intervalMs: 200, concurrency: 16, signal: stop.signal });
      try {
        const ended = await eventually(
          'every job to end',
          async () => {
            const all = await (await core.storage()).jobs.counts();
            return (all.succeeded ?? 0) + (all.failed ?? 0) === 2000 ? all : false;
          },
          120_000,
          200,
        );
        expect(ended).toMatchObject({ succeeded: 2000 });
      } finally {
        stop.abort();
        await gateway;
      }
      const done = (await jobsOf(box)).filter((j) => j.state === 'succeeded');
      expect(new Set(done.map((j) => j.result?.text))).toEqual(new Set(lines.map((_, i) => `echo: line ${i + 1}`)));
      core.close();
    } finally {
      box.dispose();
      await store.release();
    }
  }, 180_000);
});

const jobsOf = async (box: Sandbox): Promise<JobRow[]> => okData(await box.run(['job', 'list', '--limit', '10000', '--json']), 'job list').jobs;
