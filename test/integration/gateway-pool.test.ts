/**
 * The shared job queue (team mode): two `gateway run` processes, each in its own MISSIVE_HOME, on one PostgreSQL
 * database share 200 send jobs against a real SDK agent that records every message id it receives. One gateway is
 * SIGKILLed mid-run, with jobs of its own waiting on their tasks: the other takes over its jobs once their claims
 * expire (a job whose task was recorded is waited on, not sent again), every job ends, no message reaches the agent
 * twice, and a message that never arrived belongs to a job that failed as unconfirmed (a send the killed gateway had
 * on the wire: at most once, never twice). With MISSIVE_STORE_URL unset, jobs and the gateway stay on SQLite and
 * nothing reaches PostgreSQL. The CLI runs built (`npm run build`): the gateways are processes of their own.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bounded, eventually, okData } from '../support/waits.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';
import { startRecordingAgent, type RecordingAgent } from '../support/recording-agent.js';
import { runMissive, spawnMissive, type MissiveProcess } from '../support/missive-process.js';
import { pgTrap, type PgTrap } from '../support/pg-trap.js';
import { STORES, storeUnderTest } from '../support/stores.js';

const JOBS = 200;
/** `job start` commands in flight at once (each opens its own pool of connections). */
const STARTING_AT_ONCE = 8;
/** Jobs gateway 1 must have started before it is killed (it runs 16 at once: most are then still running). */
const STARTED_BEFORE_KILL = 10;
const UNCONFIRMED = 'missive::orchestration::job_dispatch_unconfirmed';

interface JobView {
  job_id: string;
  state: string;
  task_id: string | null;
  locked_by: string | null;
  summary: { message_id?: string } | null;
  exit_code: number | null;
  result: { error?: { code?: string } } | null;
}

let agent: RecordingAgent;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  agent = await startRecordingAgent({ minMs: 150, maxMs: 300 });
});
afterAll(() => agent.close());
afterEach(async () => {
  // Last made, first undone: processes before the homes and the database they use.
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

const ok = okData;

const launchGateway = (box: Sandbox): MissiveProcess => {
  const gateway = spawnMissive(['gateway', 'run', '--interval', '200ms', '--claim-ttl', '1s', '--concurrency', '16', '--ndjson'], box.env);
  cleanups.push(() => gateway.kill());
  return gateway;
};

/** The job ids a gateway's output says it started, and those it says it finished (succeeded or failed). */
const startedBy = (g: MissiveProcess) => new Set(g.of('job_started').map((l) => l.data.job_id as string));
const endedBy = (g: MissiveProcess) => new Set([...g.of('job_succeeded'), ...g.of('job_failed')].map((l) => l.data.job_id as string));

describe('two gateways sharing one PostgreSQL job queue', () => {
  it('survive one of them SIGKILLed mid-run: every job ends, no message reaches the agent twice', async () => {
    const db: FreshDatabase = await freshPostgresUrl();
    cleanups.push(() => db.drop());
    const password = new URL(db.url).password;
    const alice = sandbox({ MISSIVE_STORE_URL: db.url });
    const bob = sandbox({ MISSIVE_STORE_URL: db.url });
    cleanups.push(
      () => alice.dispose(),
      () => bob.dispose(),
    );

    // An agent one home adds is the other's too.
    ok(await alice.run(['agent', 'add', 'worker', agent.baseUrl, '--json']), 'agent add');
    expect(ok(await bob.run(['agent', 'list', '--json']), 'agent list').agents.map((a: { alias: string }) => a.alias)).toEqual(['worker']);

    // 200 jobs, queued through both homes.
    const jobOfText = new Map<string, string>();
    await bounded(JOBS, STARTING_AT_ONCE, async (i) => {
      const text = `job ${i}`;
      const started = ok(await (i % 2 === 0 ? alice : bob).run(['job', 'start', 'send', 'worker', text, '--json']), `job start ${i}`);
      expect(started).toMatchObject({ kind: 'send', state: 'queued', agent: 'worker' });
      jobOfText.set(text, started.job_id);
    });
    expect(new Set(jobOfText.values()).size).toBe(JOBS);
    expect(agent.received).toHaveLength(0);

    const textOf = new Map([...jobOfText].map(([text, id]) => [id, text]));
    const first = launchGateway(alice);
    const second = launchGateway(bob);
    // Gateway 1 is killed with jobs of its own in flight, at least one of them waiting on its task at the agent (the
    // task recorded: whoever takes the job over must wait on that task, not send again).
    const holder = (await eventually('gateway 1 to start', async () => first.of('gateway_started')[0], 30_000, 20)).data.holder as string;
    const runningOfFirst = async () =>
      (ok(await alice.run(['job', 'list', '--state', 'running', '--limit', '1000', '--json']), 'job list').jobs as JobView[]).filter(
        (j) => j.locked_by === holder,
      );
    let resumable: JobView[] = [];
    await eventually(
      'gateway 1 to have jobs of its own waiting on their tasks',
      async () => {
        if (first.child.exitCode !== null) throw new Error(`gateway 1 exited early (${first.child.exitCode}): ${first.stderr()}`);
        if (startedBy(first).size < STARTED_BEFORE_KILL) return false;
        resumable = (await runningOfFirst()).filter((j) => j.task_id);
        return resumable.length > 0;
      },
      60_000,
      20,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const claimedByFirst = startedBy(first);
    const finishedByFirst = endedBy(first);
    // The jobs it left running (read before their 1 s claims expire; one gateway 2 already took is not among them).
    // Its output may lack the end of a job it ended just before it died: the store says which it left.
    const orphaned = (await runningOfFirst()).map((j) => j.job_id);

    const list = async (): Promise<JobView[]> => ok(await bob.run(['job', 'list', '--limit', '1000', '--json']), 'job list').jobs;
    const jobs = await eventually(
      'every job to end',
      async () => {
        if (second.child.exitCode !== null) throw new Error(`gateway 2 exited early (${second.child.exitCode}): ${second.stderr()}`);
        const all = await list();
        return all.length === JOBS && all.every((j) => !['queued', 'running', 'retrying'].includes(j.state)) && all;
      },
      90_000,
      500,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stderr()).toBe(0);
    expect(second.of('gateway_stopped')).toHaveLength(1);

    // Every job ended, succeeded or failed (none cancelled, none left behind).
    expect(
      jobs.filter((j) => j.state !== 'succeeded' && j.state !== 'failed').map((j) => [j.job_id, j.state]),
      'jobs neither succeeded nor failed',
    ).toEqual([]);
    const byId = new Map(jobs.map((j) => [j.job_id, j]));
    expect([...jobOfText.values()].every((id) => byId.has(id))).toBe(true);

    // No message id, and no job's text, reached the agent twice.
    expect(
      [...agent.countsByMessageId()].filter(([, n]) => n > 1),
      'message ids that reached the agent twice',
    ).toEqual([]);
    expect(
      [...agent.countsByText()].filter(([, n]) => n > 1),
      'texts that reached the agent twice',
    ).toEqual([]);
    const arrived = agent.countsByText();
    const idsArrived = agent.countsByMessageId();

    // Each succeeded job's message reached the agent exactly once, under the message id fixed at `job start`.
    const succeeded = jobs.filter((j) => j.state === 'succeeded');
    expect(
      succeeded.filter((j) => arrived.get(textOf.get(j.job_id)!) !== 1).map((j) => textOf.get(j.job_id)),
      'succeeded jobs whose text did not reach the agent once',
    ).toEqual([]);
    expect(
      succeeded.filter((j) => idsArrived.get(j.summary?.message_id ?? '') !== 1).map((j) => textOf.get(j.job_id)),
      'succeeded jobs whose message id did not reach the agent once',
    ).toEqual([]);

    // A failed job is one the killed gateway had sent (or was sending) without an answer recorded: unconfirmed, not
    // sent again; and a message that never arrived is such a job's.
    const failed = jobs.filter((j) => j.state === 'failed');
    expect(
      failed.map((j) => [textOf.get(j.job_id), j.result?.error?.code, j.exit_code]).filter(([, code, exit]) => code !== UNCONFIRMED || exit !== 70),
      'failed jobs not unconfirmed',
    ).toEqual([]);
    expect(
      failed.filter((j) => !claimedByFirst.has(j.job_id)).map((j) => textOf.get(j.job_id)),
      'failed jobs the killed gateway never started',
    ).toEqual([]);
    const neverArrived = [...jobOfText].filter(([text]) => !arrived.has(text));
    expect(
      neverArrived.filter(([, id]) => byId.get(id)?.state !== 'failed').map(([text]) => text),
      'jobs not failed whose message never reached the agent',
    ).toEqual([]);

    // Gateway 2 took over the jobs gateway 1 had claimed and not finished, and ended them; those whose message had
    // already reached the agent were not sent again (each text arrived once, above).
    const takenOver = [...claimedByFirst].filter((id) => !finishedByFirst.has(id) && startedBy(second).has(id));
    expect(takenOver.length).toBeGreaterThan(0);
    expect(
      takenOver.filter((id) => !endedBy(second).has(id)),
      'jobs gateway 2 took over and did not end',
    ).toEqual([]);
    expect(
      orphaned.filter((id) => !startedBy(second).has(id) || !endedBy(second).has(id)).map((id) => textOf.get(id)),
      'jobs gateway 1 left running that gateway 2 did not end',
    ).toEqual([]);
    // A job whose task was recorded when its gateway died is resumed on that task: it succeeds, sent once.
    expect(resumable.map((j) => [textOf.get(j.job_id), byId.get(j.job_id)?.state, byId.get(j.job_id)?.task_id === j.task_id])).toEqual(
      resumable.map((j) => [textOf.get(j.job_id), 'succeeded', true]),
    );
    // Between them the two gateways ran every job.
    expect(
      jobs.filter((j) => !claimedByFirst.has(j.job_id) && !startedBy(second).has(j.job_id)).map((j) => textOf.get(j.job_id)),
      'jobs no gateway started',
    ).toEqual([]);

    // The store URL's password is never printed.
    for (const g of [first, second]) expect(g.stdout() + g.stderr()).not.toContain(password);

    console.info(
      `gateway pool: ${JOBS} jobs, ${succeeded.length} succeeded, ${failed.length} failed as unconfirmed (${neverArrived.length} of them never reached the agent); ` +
        `gateway 1 started ${claimedByFirst.size} and finished ${finishedByFirst.size} before SIGKILL (it left ${orphaned.length} running, ${resumable.length} of them seen waiting on their tasks), gateway 2 took over ${takenOver.length}`,
    );
  }, 240_000);
});

describe('with MISSIVE_STORE_URL unset', () => {
  let trap: PgTrap;
  beforeAll(async () => (trap = await pgTrap()));
  afterAll(() => trap.close());

  it('job start and gateway run --once still run on the SQLite file, and nothing reaches PostgreSQL', async () => {
    const box = sandbox();
    cleanups.push(() => box.dispose());
    const env = { ...box.env, ...trap.env };
    expect(env.MISSIVE_STORE_URL).toBeUndefined();
    const before = agent.received.length;

    const added = await runMissive(['agent', 'add', 'solo', agent.baseUrl, '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const started = await runMissive(['job', 'start', 'send', 'solo', 'sqlite job', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const job = JSON.parse(started.stdout).data;
    const gateway = await runMissive(['gateway', 'run', '--once', '--interval', '100ms', '--ndjson'], env);
    expect(gateway.code, gateway.stderr).toBe(0);
    expect(gateway.lines.filter((l) => l.kind === 'job_succeeded').map((l) => l.data.job_id)).toEqual([job.job_id]);

    const shown = await runMissive(['job', 'show', job.job_id, '--json'], env);
    expect(JSON.parse(shown.stdout).data).toMatchObject({ state: 'succeeded', outcome: 'completed', exit_code: 0 });
    expect(agent.received.slice(before)).toEqual([{ messageId: job.summary.message_id, text: 'sqlite job' }]);

    expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(true);
    for (const res of [added, started, gateway, shown]) expect(res.stdout + res.stderr).not.toMatch(/postgres/i);
    expect(trap.connections()).toBe(0);
  }, 60_000);
});

describe.each(STORES)('a gateway running send jobs (%s store)', (kind) => {
  it('follows no task a send job already waits on', async () => {
    const store = await storeUnderTest(kind);
    cleanups.push(() => store.release());
    const box = sandbox(store.env);
    cleanups.push(() => box.dispose());
    ok(await box.run(['agent', 'add', 'worker', agent.baseUrl, '--json']), 'agent add');
    const count = 60;
    // One at a time on SQLite: each in-process run is a core of its own, and two cores of one process writing one
    // SQLite file at once wait on each other's lock synchronously (a CLI process has one core).
    await bounded(
      count,
      kind === 'sqlite' ? 1 : STARTING_AT_ONCE,
      async (i) => void ok(await box.run(['job', 'start', 'send', 'worker', `follow ${i}`, '--json']), `job start ${i}`),
    );
    // A short scan interval: the answer of a send is stored a moment before its job names the task as its target, and a
    // scan in between once took the task for one nobody followed (a follow job and its GetTask polls besides the job's).
    const gateway = spawnMissive(['gateway', 'run', '--interval', '50ms', '--ndjson'], box.env);
    cleanups.push(() => gateway.kill());
    await eventually('every job to end', async () => gateway.of('job_succeeded').length + gateway.of('job_failed').length >= count && true, 120_000);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(gateway.of('job_succeeded')).toHaveLength(count);
    expect(gateway.of('job_settled').map((l) => l.data.task_id)).toEqual([]);
    expect(ok(await box.run(['events', 'list', '--type', 'missive.gateway.job.*', '--limit', '1000', '--json']), 'events list').events).toEqual([]);
  }, 180_000);
});
