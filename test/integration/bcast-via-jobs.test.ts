/**
 * Fan-out across hosts: `bcast --via-jobs` and `round --via-jobs` put each member's send on the shared job queue, and
 * the gateways (processes of their own, from the built CLI: run `npm run build` first) make the sends; the command
 * waits for the jobs and prints the summary an in-process fan-out prints. On both stores: one gateway on the embedded
 * SQLite file, two (each in its own MISSIVE_HOME, as on two hosts) on a shared PostgreSQL database, where both run some
 * of the members' jobs. The members are real SDK agents: embedded ones (echo, task, fail) and one that records every
 * message id it receives. Also: `--failure-policy stop` with `--execution sequential` (the members after the failure
 * are skipped and nothing reaches their agents), no gateway running (refused at once, exit 70), the deadline with the only gateway stopped (every member times out, exit
 * 82, the jobs end cancelled and a gateway started later sends none of them), and `job start bcast` refusing the flag.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type CliResult, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { spawnMissive, type MissiveProcess } from '../support/missive-process.js';
import { startRecordingAgent, type RecordingAgent } from '../support/recording-agent.js';
import { storeRows } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';

/** Every embedded agent takes this long to answer, so a gateway running one job at a time is busy while the other claims. */
const DELAY_MS = 400;
/** Gateways per store: one on the profile's SQLite file, two sharing the PostgreSQL queue (as two hosts would). */
const GATEWAYS: Record<StoreKindUnderTest, number> = { sqlite: 1, postgres: 2 };

let fleet: Awaited<ReturnType<typeof startAgents>>;
let recorder: RecordingAgent;
let box: Sandbox;
let store: StoreUnderTest;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  [fleet, recorder] = await Promise.all([
    startAgents({
      echo: { behaviour: 'echo', delayMs: DELAY_MS },
      tasks: { behaviour: 'task', delayMs: DELAY_MS },
      fail: { behaviour: 'fail', delayMs: DELAY_MS },
      echo2: { behaviour: 'echo', delayMs: DELAY_MS },
    }),
    startRecordingAgent({ minMs: DELAY_MS, maxMs: DELAY_MS, name: 'recorder' }),
  ]);
});
afterAll(async () => {
  await fleet.close();
  await recorder.close();
});

const ok = (res: CliResult, what: string) => {
  expect(res.code, `${what}: ${res.stderr}`).toBe(0);
  return res.json().data;
};
const group = async (name: string, members: string[]) =>
  ok(await box.run(['group', 'create', name, ...members.flatMap((m) => ['--member', m]), '--json']), `group create ${name}`);

/** Messages sent to an embedded agent (SendMessage over HTTP+JSON, the binding these tests use). */
const sendsTo = (alias: string) => fleet.agents[alias]!.requests.filter((r) => r.method === 'POST' && r.path.includes('message')).length;

/** Polls the asynchronous `probe` until it returns something truthy, or fails after `ms` naming what it waited for. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts the store's gateways (the first in the test's MISSIVE_HOME, any other in a home of its own on the same
 * store), each running one job at a time, and waits until each says it started.
 */
async function startGateways(kind: StoreKindUnderTest): Promise<MissiveProcess[]> {
  const gateways: MissiveProcess[] = [];
  for (let i = 0; i < GATEWAYS[kind]; i++) {
    const home = i === 0 ? box : sandbox(store.env);
    if (home !== box) cleanups.push(() => home.dispose());
    const gateway = spawnMissive(['gateway', 'run', '--interval', '100ms', '--claim-ttl', '2s', '--concurrency', '1', '--ndjson'], home.env);
    cleanups.push(() => gateway.kill());
    gateways.push(gateway);
  }
  for (const [i, g] of gateways.entries()) {
    await eventually(`gateway ${i + 1} to start`, () => {
      if (g.child.exitCode !== null) throw new Error(`gateway ${i + 1} exited (${g.child.exitCode}): ${g.stderr()}`);
      return g.of('gateway_started')[0];
    });
  }
  return gateways;
}

/** SIGTERM: each gateway stops cleanly (exit 0). */
async function stopGateways(gateways: MissiveProcess[]): Promise<void> {
  for (const g of gateways) g.child.kill('SIGTERM');
  for (const g of gateways) expect(await g.exited, g.stderr()).toBe(0);
}

/** The job ids a gateway's output says it started. */
const startedBy = (g: MissiveProcess) => new Set(g.of('job_started').map((l) => l.data.job_id as string));

interface JobView {
  job_id: string;
  kind: string;
  state: string;
  agent: string | null;
  context_id: string | null;
  locked_by: string | null;
}
const jobList = async (): Promise<JobView[]> => ok(await box.run(['job', 'list', '--limit', '1000', '--json']), 'job list').jobs;

/** What must be the same in an in-process fan-out's summary and one through the queue: all but ids and timings. */
const comparable = (data: any) => ({
  kind: data.kind,
  group: data.group,
  status: data.status,
  execution: data.execution,
  max_concurrency: data.max_concurrency,
  failure_policy: data.failure_policy,
  // request.bytes counts the request the gateway sent, which asks the agent to answer at once (docs/cli.md, bcast).
  request: { context_created: data.request.context_created, parts: data.request.parts },
  counts: data.counts,
  exit_code: data.exit_code,
  members: data.members.map((m: any) => ({
    rank: m.rank,
    alias: m.alias,
    input_index: m.input_index,
    status: m.status,
    response_shape: m.response_shape,
    state: m.state,
    binding: m.selected_interface?.binding ?? null,
    error: m.error?.code ?? null,
  })),
});

/** Every member that was sent to carries its request's message id, the interface it went out on and its latency. */
function expectDelivered(data: any): void {
  for (const m of data.members.filter((m: any) => m.status !== 'skipped')) {
    expect(m.request_message_id, m.alias).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.selected_interface, m.alias).toMatchObject({ binding: 'http+json', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) });
    expect(m.latency_ms, m.alias).toEqual(expect.any(Number));
    expect(m.context_id).toBe(data.request.context_id);
  }
}

/**
 * What must be the same in two rounds: all but their ids and timings (context and task ids replaced by placeholders in
 * order of appearance; message and operation ids, elapsed times and latencies dropped). Not compared: request.bytes
 * (see `comparable`), and where gather and reduce found a member's text (`text_source`: a send job's task ends through
 * GetTask, which stores the task's final status message in the task, not as a response message row: 'status' with no
 * source message, where the in-process round has 'message'; the text itself is compared).
 */
function withoutIds(round: any): unknown {
  const ids = new Map<string, string>();
  const name = (id: string) => {
    if (!ids.has(id)) ids.set(id, `<id ${ids.size}>`);
    return ids.get(id)!;
  };
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  const DROPPED = new Set([
    'elapsed_ms',
    'latency_ms',
    'request_message_id',
    'message_id',
    'reduced_message_id',
    'operation_id',
    'bytes',
    'text_source',
    'source_message_id',
  ]);
  const walk = (value: unknown, key?: string): unknown => {
    if (key && DROPPED.has(key)) return '<dropped>';
    if (typeof value === 'string') return value.replace(UUID, name);
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return walk(round);
}

describe.each(STORES)('bcast and round --via-jobs (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, { ...fleet.agents, recorder }, ['--binding-preference', 'http+json']);
  });
  afterEach(async () => {
    // Last made, first undone: the gateways before the homes and the database they use.
    for (const undo of cleanups.splice(0).reverse()) await undo();
    box.dispose();
    await store.release();
  });

  it(`gives the in-process summary, the members' sends made by ${GATEWAYS[kind] === 1 ? 'the gateway' : 'both gateways'}`, async () => {
    await group('g', ['echo', 'tasks', 'recorder', 'fail', 'echo2']);
    const args = ['bcast', 'g', 'hello all', '--failure-policy', 'continue', '--json'];
    const inProcess = await box.run(args);
    expect(inProcess.code, inProcess.stderr).toBe(0);
    expect(await jobList()).toEqual([]);

    const gateways = await startGateways(kind);
    const viaJobs = await box.run([...args, '--via-jobs']);
    expect(viaJobs.code, viaJobs.stderr).toBe(inProcess.code);
    const [local, queued] = [inProcess.json().data, viaJobs.json().data];
    expect(comparable(queued)).toEqual(comparable(local));
    expect(comparable(queued)).toMatchObject({
      status: 'partial_failure',
      request: { parts: 1 },
      counts: { succeeded: 4, failed: 1, timeout: 0, skipped: 0 },
      members: [
        { rank: 0, alias: 'echo', status: 'succeeded', response_shape: 'message', state: null },
        { rank: 1, alias: 'tasks', status: 'succeeded', response_shape: 'task', state: 'completed' },
        { rank: 2, alias: 'recorder', status: 'succeeded', response_shape: 'task', state: 'completed' },
        { rank: 3, alias: 'fail', status: 'failed', response_shape: 'task', state: 'failed', error: 'missive::orchestration::task_failed' },
        { rank: 4, alias: 'echo2', status: 'succeeded', response_shape: 'message', state: null },
      ],
    });
    expect(queued.request.context_id).not.toBe(local.request.context_id);
    expectDelivered(local);
    expectDelivered(queued);
    // Each member's request id is the message the agent got, and the one the store recorded for it.
    const recorded = queued.members.find((m: any) => m.alias === 'recorder');
    expect(recorder.received.filter((r) => r.messageId === recorded.request_message_id)).toEqual([
      { messageId: recorded.request_message_id, text: 'hello all' },
    ]);
    const requests = await storeRows(box, `SELECT agent_alias, message_id FROM messages WHERE direction = 'request' AND context_id = ? ORDER BY agent_alias`, [
      queued.request.context_id,
    ]);
    expect(requests.map((r) => [r.agent_alias, r.message_id])).toEqual(
      [...queued.members].sort((a: any, b: any) => a.alias.localeCompare(b.alias)).map((m: any) => [m.alias, m.request_message_id]),
    );

    // One send job per member, each ended; between them the gateways ran every one, and with two gateways both ran some.
    const jobs = await jobList();
    expect(jobs.map((j) => [j.kind, j.agent, j.context_id]).sort()).toEqual(
      queued.members.map((m: any) => ['send', m.alias, queued.request.context_id]).sort(),
    );
    expect(jobs.filter((j) => !['succeeded', 'failed'].includes(j.state) || j.locked_by !== null)).toEqual([]);
    const ran = gateways.map(startedBy);
    expect(jobs.filter((j) => !ran.some((r) => r.has(j.job_id))).map((j) => j.agent)).toEqual([]);
    expect(ran.map((r) => r.size > 0)).toEqual(gateways.map(() => true));
    await stopGateways(gateways);

    // The journal reports the run as the in-process one: started, one event per member, completed.
    const res = await box.run(['events', 'list', '--type', 'missive.bcast.*', '--context', queued.request.context_id, '--json']);
    const events = ok(res, 'events list').events as Array<{ type: string; payload: any }>;
    const types = events.map((e) => e.type);
    expect([types[0], types.at(-1)]).toEqual(['missive.bcast.started', 'missive.bcast.completed']);
    expect(types.slice(1, -1).sort()).toEqual(['missive.bcast.member.failed', ...Array(4).fill('missive.bcast.member.succeeded')]);
    expect(events[0]!.payload).toMatchObject({ via_jobs: true });
    expect(events.at(-1)!.payload).toMatchObject({ status: 'partial_failure', counts: queued.counts });
  }, 90_000);

  it('ends round --via-jobs as an in-process round ends', async () => {
    await group('g', ['echo', 'tasks', 'recorder']);
    const args = ['round', 'g', 'plan the day', '--json'];
    const inProcess = await box.run(args);
    expect(inProcess.code, inProcess.stderr).toBe(0);
    const gateways = await startGateways(kind);
    const viaJobs = await box.run([...args, '--via-jobs']);
    expect(viaJobs.code, viaJobs.stderr).toBe(inProcess.code);
    await stopGateways(gateways);
    const [local, queued] = [inProcess.json().data, viaJobs.json().data];
    expect(queued).toMatchObject({
      status: 'succeeded',
      bcast: { status: 'succeeded' },
      barrier: { status: 'succeeded' },
      gather: { counts: { gathered: 3 } },
    });
    expect(comparable(queued.bcast)).toEqual(comparable(local.bcast));
    expectDelivered(queued.bcast);
    for (const step of ['barrier', 'gather', 'reduce'] as const) expect(withoutIds(queued[step]), step).toEqual(withoutIds(local[step]));
    expect(withoutIds(queued)).toEqual(withoutIds(local));
    expect(queued.reduce.reduced_text).toMatch(/^Summary for group 'g' in context '[0-9a-f-]{36}':\n- 0 \(echo\): echo: plan the day\n/);
    expect(new Set([queued.bcast.request.context_id, queued.barrier.context_id, queued.gather.context_id, queued.reduce.context_id])).toEqual(
      new Set([queued.context_id]),
    );
    expect((await jobList()).map((j) => j.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  }, 90_000);

  it('reports each member as first answered under --return-immediately, as an in-process bcast does', async () => {
    await group('g', ['tasks', 'recorder']);
    const args = ['bcast', 'g', 'take your time', '--return-immediately', '--json'];
    const inProcess = await box.run(args);
    expect(inProcess.code, inProcess.stderr).toBe(0);
    const gateways = await startGateways(kind);
    const viaJobs = await box.run([...args, '--via-jobs']);
    await stopGateways(gateways);
    expect(viaJobs.code, viaJobs.stderr).toBe(0);
    const states = (data: any) => data.members.map((m: any) => [m.alias, m.status, m.response_shape, m.state]);
    expect(states(viaJobs.json().data)).toEqual(states(inProcess.json().data));
    // The recorder answers a returnImmediately request with a working task: the job did not wait for it to complete
    // (it once did, and reported `completed` where the in-process bcast reported `working`).
    expect(states(viaJobs.json().data)).toContainEqual(['recorder', 'succeeded', 'task', 'working']);
    expect((await jobList()).map((j) => j.state)).toEqual(['succeeded', 'succeeded']);
  }, 90_000);

  it('stops after a failure (sequential, --failure-policy stop): the members after it are skipped and nothing reaches them', async () => {
    await group('g', ['echo', 'fail', 'tasks', 'echo2']);
    const before = { tasks: sendsTo('tasks'), echo2: sendsTo('echo2') };
    const gateways = await startGateways(kind);
    const res = await box.run(['bcast', 'g', 'one by one', '--via-jobs', '--execution', 'sequential', '--failure-policy', 'stop', '--json']);
    expect(res.code).toBe(70);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::orchestration::bcast_failed');
    const data = res.json().data;
    expect(data).toMatchObject({
      status: 'failed',
      execution: 'sequential',
      max_concurrency: 1,
      failure_policy: 'stop',
      counts: { succeeded: 1, failed: 1, timeout: 0, skipped: 2 },
    });
    expect(data.members.map((m: any) => [m.alias, m.status, m.request_message_id === null])).toEqual([
      ['echo', 'succeeded', false],
      ['fail', 'failed', false],
      ['tasks', 'skipped', true],
      ['echo2', 'skipped', true],
    ]);
    // Only the members before the stop had jobs; the agents after it got nothing, even from a gateway still running.
    const jobs = await jobList();
    expect(jobs.map((j) => j.agent).sort()).toEqual(['echo', 'fail']);
    const jobIds = new Set(jobs.map((j) => j.job_id));
    await eventually(
      'the gateways to have started every job',
      () => gateways.flatMap((g) => [...startedBy(g)]).filter((id) => jobIds.has(id)).length === jobs.length,
    );
    await stopGateways(gateways);
    expect({ tasks: sendsTo('tasks'), echo2: sendsTo('echo2') }).toEqual(before);
  }, 60_000);

  it('is refused up front with no gateway running (exit 70, naming gateway run): nothing is queued, journaled or sent', async () => {
    await group('g', ['echo', 'tasks', 'recorder']);
    const before = { echo: sendsTo('echo'), tasks: sendsTo('tasks'), recorder: recorder.received.length };
    for (const args of [
      ['bcast', 'g', 'anyone there?'],
      ['round', 'g', 'anyone there?'],
      ['scatter', 'g', '--inputs', 'inputs.txt'],
    ]) {
      writeFileSync(join(box.home, 'inputs.txt'), 'one\ntwo\nthree\n');
      // A whole minute to wait: refused at once all the same, not at the deadline.
      const res = await box.run([...args, '--via-jobs', '--timeout', '60s', '--json']);
      expect(res.code, `${args[0]}: ${res.stderr}`).toBe(70);
      const error = JSON.parse(res.stderr).data;
      expect(error.code).toBe('missive::orchestration::no_gateway');
      expect(error.help).toContain('missive gateway run');
      expect(error.message).not.toContain('timeout');
    }
    expect(await jobList()).toEqual([]);
    const journaled = ok(await box.run(['events', 'list', '--limit', '1000', '--json']), 'events list').events.map((e: { type: string }) => e.type);
    expect(journaled.filter((t: string) => /^(missive\.(bcast|scatter|round|job)\.|a2a\.send\.)/.test(t))).toEqual([]);
    expect({ echo: sendsTo('echo'), tasks: sendsTo('tasks'), recorder: recorder.received.length }).toEqual(before);
  });

  it('times out every member while the only gateway is stopped (exit 82); their jobs end cancelled and are never sent', async () => {
    await group('g', ['echo', 'tasks', 'recorder']);
    const before = { echo: sendsTo('echo'), tasks: sendsTo('tasks'), recorder: recorder.received.length };
    // A gateway that runs (its lease or pool row is live) but takes no job: stopped (SIGSTOP) until the deadline passed.
    const stopped = spawnMissive(['gateway', 'run', '--interval', '100ms', '--claim-ttl', '60s', '--ndjson'], box.env);
    cleanups.push(() => stopped.kill());
    await eventually('the gateway to start', () => stopped.of('gateway_started')[0]);
    stopped.child.kill('SIGSTOP');
    cleanups.push(() => void stopped.child.kill('SIGCONT'));
    const res = await box.run(['bcast', 'g', 'anyone there?', '--via-jobs', '--timeout', '2s', '--json']);
    expect(res.code).toBe(82);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::orchestration::bcast_timeout');
    const data = res.json().data;
    expect(data).toMatchObject({ status: 'timeout', counts: { succeeded: 0, failed: 0, timeout: 3, skipped: 0 }, exit_code: 82 });
    expect(data.members.map((m: any) => [m.alias, m.status, m.error?.code])).toEqual([
      ['echo', 'timeout', 'missive::transport::timeout'],
      ['tasks', 'timeout', 'missive::transport::timeout'],
      ['recorder', 'timeout', 'missive::transport::timeout'],
    ]);
    expect(data.elapsed_ms).toBeGreaterThanOrEqual(2000);
    const jobs = await jobList();
    expect(jobs.map((j) => [j.agent, j.state]).sort()).toEqual([
      ['echo', 'cancelled'],
      ['recorder', 'cancelled'],
      ['tasks', 'cancelled'],
    ]);
    // The gateway, woken and stopped cleanly, and one started afterwards have nothing to send.
    stopped.child.kill('SIGCONT');
    stopped.child.kill('SIGTERM');
    expect(await stopped.exited, stopped.stderr()).toBe(0);
    const once = await box.run(['gateway', 'run', '--once', '--interval', '100ms', '--json']);
    expect(once.code, once.stderr).toBe(0);
    expect({ echo: sendsTo('echo'), tasks: sendsTo('tasks'), recorder: recorder.received.length }).toEqual(before);
    expect((await jobList()).map((j) => j.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  }, 60_000);

  it('is no option of job start bcast (exit 64)', async () => {
    await group('g', ['echo']);
    const res = await box.run(['job', 'start', 'bcast', 'g', 'hi', '--via-jobs', '--json']);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain("unknown option '--via-jobs'");
    expect(await jobList()).toEqual([]);
  });
});
