/**
 * The store going away under a running team (docs/team.md, "When the database goes away"): two `gateway run`
 * processes and a `webhook run` on one PostgreSQL store, a private cluster (test/support/private-postgres.ts) that the
 * test stops and starts again. Jobs are queued against real SDK agents, some of them in flight (waiting on their
 * tasks) when the store stops, the others queued behind them. While it is away, callbacks are answered 503 with
 * Retry-After; each process says once that the store went away and once that it is back, on stderr with a timestamp;
 * and after the restart every job finishes, once, within 5 s (not when the claims of the jobs in flight expire, 30 s).
 *
 * Run `npm run build` first: the gateways and the receiver are the built CLI.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { spawnMissive, type MissiveProcess } from '../support/missive-process.js';
import { withUrl } from '../support/postgres.js';
import { privatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { eventually, okData } from '../support/waits.js';

const SLOW_JOBS = 4;
const QUEUED_JOBS = 4;
const RESUME_DEADLINE_MS = 5_000;
/** A log line: ISO timestamp, level, id, message. */
const LOG_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO |WARN |ERROR) \S+ /;

let cluster: PrivatePostgres;
let storeUrl: string;
let fleet: Awaited<ReturnType<typeof startAgents>>;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  cluster = await privatePostgres();
  const admin = new pg.Client({ connectionString: cluster.url });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query('CREATE DATABASE missive_outage');
  await admin.end();
  storeUrl = withUrl(cluster.url, { database: 'missive_outage' });
  // slow: a task that completes after the time its message names ("take 4s"); echo: a message at once.
  fleet = await startAgents({ slow: { behaviour: 'slow', streaming: false }, echo: { behaviour: 'echo' } });
}, 60_000);
afterAll(async () => {
  await fleet?.close();
  await cluster?.close();
});
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

interface JobView {
  job_id: string;
  state: string;
  task_id: string | null;
  locked_by: string | null;
  last_error: string | null;
}

const launch = (args: string[], box: Sandbox): MissiveProcess => {
  const p = spawnMissive(args, box.env);
  cleanups.push(() => p.kill());
  return p;
};

/** The lines of `p`'s stderr that match `pattern`. */
const linesOf = (p: MissiveProcess, pattern: RegExp) =>
  p
    .stderr()
    .split('\n')
    .filter((l) => pattern.test(l));

const AWAY = /store is away/;
const BACK = /store is back after \d+(\.\d+)? (ms|s|min)/;

/** A callback a receiver accepts: a status update of a task it does not know (journaled, unlinked). */
const callback = (n: number) => ({
  statusUpdate: {
    taskId: `outside-task-${n}`,
    contextId: 'outside-context',
    status: { state: 'TASK_STATE_WORKING', message: { messageId: `cb-${n}`, role: 'ROLE_AGENT', parts: [{ text: `callback ${n}` }] } },
  },
});
const post = (url: string, n: number) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify(callback(n)) });

describe('PostgreSQL stopped and restarted under two gateways and a receiver', () => {
  it('each says once that the store went away and once that it is back, callbacks get 503 + Retry-After, and every job ends once within 5 s of the restart', async () => {
    const alice = sandbox({ MISSIVE_STORE_URL: storeUrl });
    const bob = sandbox({ MISSIVE_STORE_URL: storeUrl });
    cleanups.push(
      () => alice.dispose(),
      () => bob.dispose(),
    );
    await register(alice, fleet.agents);

    // Jobs queued before the gateways start: each gateway takes two (its --concurrency) of the four slow ones, each
    // waiting on its task at the agent; the echo jobs wait behind them. The store stops as soon as the four are in
    // flight (read from the store directly: quick).
    const list = async (): Promise<JobView[]> => okData(await bob.run(['job', 'list', '--limit', '100', '--json']), 'job list').jobs;
    const slow: string[] = [];
    const queued: string[] = [];
    for (let i = 0; i < SLOW_JOBS; i++) slow.push(okData(await alice.run(['job', 'start', 'send', 'slow', `take 4s (${i})`, '--json']), 'job start').job_id);
    for (let i = 0; i < QUEUED_JOBS; i++) queued.push(okData(await alice.run(['job', 'start', 'send', 'echo', `queued ${i}`, '--json']), 'job start').job_id);
    const rows = new pg.Client({ connectionString: storeUrl, options: '-c search_path=missive_default' });
    rows.on('error', () => undefined);
    await rows.connect();
    const receiver = launch(['webhook', 'run', '--port', '0', '--ndjson'], alice);
    const gateways = [alice, bob].map((box) => launch(['gateway', 'run', '--interval', '200ms', '--concurrency', '2', '--ndjson'], box));
    const url = (
      await eventually(
        'the receiver to listen',
        () => {
          if (receiver.child.exitCode !== null) throw new Error(`webhook run exited (${receiver.child.exitCode}): ${receiver.stderr()}`);
          return receiver.of('webhook_listening')[0];
        },
        30_000,
      )
    ).data.url as string;
    for (const [i, g] of gateways.entries()) {
      await eventually(
        `gateway ${i + 1} to start`,
        () => {
          if (g.child.exitCode !== null) throw new Error(`gateway ${i + 1} exited (${g.child.exitCode}): ${g.stderr()}`);
          return g.of('gateway_started')[0];
        },
        30_000,
      );
    }
    expect((await post(url, 0)).status).toBe(202);

    const inFlight = await eventually(
      'every slow job to wait on its task',
      async () => {
        const { rows: running } = await rows.query<{ locked_by: string }>(
          `SELECT locked_by FROM gateway_jobs WHERE job_id = ANY($1::text[]) AND state = 'running' AND target_task_id IS NOT NULL`,
          [slow],
        );
        return running.length === SLOW_JOBS && running;
      },
      20_000,
      20,
    );
    cluster.stop('fast');
    await rows.end().catch(() => undefined);
    // Both gateways held jobs in flight.
    expect(new Set(inFlight.map((j) => j.locked_by)).size).toBe(2);
    for (const [i, g] of gateways.entries()) await eventually(`gateway ${i + 1} to say the store is away`, () => linesOf(g, AWAY).length > 0, 20_000);

    // Callbacks during the outage: 503 with Retry-After, none answered 500 or dropped.
    const refused = await Promise.all([1, 2, 3].map((n) => post(url, n)));
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
    }
    await eventually('the receiver to say the store is away', () => linesOf(receiver, AWAY).length > 0, 10_000);

    cluster.start();
    const restarted = Date.now();
    // Every job ends within 5 s of the restart: a condition waited on, with that deadline counted from the restart.
    const ended = await eventually(
      'every job to end',
      async () => {
        const jobs = await list();
        return jobs.length === SLOW_JOBS + QUEUED_JOBS && jobs.every((j) => ['succeeded', 'failed', 'cancelled'].includes(j.state)) && jobs;
      },
      Math.max(0, RESUME_DEADLINE_MS - (Date.now() - restarted)),
      100,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}; jobs: ${JSON.stringify((await list()).map((j) => [j.job_id.slice(0, 8), j.state]))}`);
    });
    expect(
      ended.filter((j) => j.state !== 'succeeded').map((j) => [j.job_id, j.state, j.last_error]),
      `jobs that did not succeed; gateways said:\n${gateways.map((g) => g.stderr()).join('\n')}`,
    ).toEqual([]);
    expect(ended.map((j) => j.job_id).sort()).toEqual([...slow, ...queued].sort());

    // Each job finished once: one `succeeded` event per job, and each message reached its agent once.
    const succeeded = okData(await bob.run(['events', 'list', '--type', 'missive.job.succeeded', '--limit', '1000', '--json']), 'events list').events;
    expect(succeeded.map((e: { payload: { job_id: string } }) => e.payload.job_id).sort()).toEqual([...slow, ...queued].sort());
    const sends = (a: string) => fleet.agents[a]!.requests.filter((r) => r.method === 'POST').length;
    expect(sends('echo')).toBe(QUEUED_JOBS);

    // The callbacks the receiver refused are taken when their senders try again.
    for (const n of [1, 2, 3]) expect((await post(url, n)).status).toBe(202);

    // One "away" and one "back" line per process, each a timestamped log line on stderr.
    const processes = [...gateways, receiver];
    for (const [i, p] of processes.entries()) await eventually(`process ${i + 1} to say the store is back`, () => linesOf(p, BACK).length > 0, 20_000);
    for (const p of processes) {
      const away = linesOf(p, AWAY);
      const back = linesOf(p, BACK);
      expect(away, p.stderr()).toHaveLength(1);
      expect(back, p.stderr()).toHaveLength(1);
      for (const line of [...away, ...back]) expect(line).toMatch(LOG_LINE);
      // Nothing else told per scan: no store error line repeated while it was away.
      expect(linesOf(p, /ERROR/), p.stderr()).toEqual([]);
      expect(p.stdout() + p.stderr()).not.toContain(cluster.password);
    }
    expect(linesOf(receiver, AWAY)[0]).toMatch(/503 with Retry-After: 5/);
    expect(linesOf(receiver, BACK)[0]).toMatch(/3 callback\(s\) were answered 503/);

    for (const g of gateways) g.child.kill('SIGTERM');
    receiver.child.kill('SIGTERM');
    for (const p of processes) expect(await p.exited, p.stderr()).toBe(0);
  }, 120_000);
});

describe("gateway run's log", () => {
  it('goes to stderr, one JSON object per line with --log-format json, and stdout keeps only the summary', async () => {
    const box = sandbox();
    cleanups.push(() => box.dispose());
    await register(box, { echo: fleet.agents.echo! });
    const job = okData(await box.run(['job', 'start', 'send', 'echo', 'hello', '--json']), 'job start').job_id as string;
    const gateway = launch(['gateway', 'run', '--once', '--log-format', 'json'], box);
    expect(await gateway.exited, gateway.stderr()).toBe(0);
    expect(gateway.stdout()).toMatch(/^stopped after 1 scan\(s\): .*1 job\(s\) succeeded/);
    const lines = gateway
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(expect.arrayContaining(['time', 'level', 'id', 'msg', 'event']));
      expect(new Date(line.time).toISOString()).toBe(line.time);
    }
    expect(lines.map((l) => l.event)).toEqual(['gateway_started', 'job_started', 'job_succeeded']);
    expect(lines[2]).toMatchObject({ level: 'info', job_id: job, msg: `job succeeded ${job.slice(0, 8)}` });
    expect(new Set(lines.map((l) => l.id)).size).toBe(1);
  }, 60_000);
});
