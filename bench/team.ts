/**
 * The shared job queue's throughput (team mode, issue 24): JOBS send jobs queued on one PostgreSQL database, then run
 * by 1, 2 and 3 `missive gateway run` processes sharing that queue, against slow agents (the SDK's server, embedded
 * here, each task completing a fixed delay after it arrived: 50 ms, then 500 ms, AGENT_DELAYS_MS). Prints jobs/s for
 * each pool size and the ratio against one gateway, the baseline measured in the same run (each size on a fresh
 * database: the same table, the same plans), how full the gateways' slots were, and the CPU per job of the gateways
 * and of the agents.
 *
 * The clock starts when the gateways are spawned (their start-up counts, the same for every size) and stops when the
 * last job has ended; every job must have succeeded. The gateways are the built CLI (`npm run build`), each in its
 * own MISSIVE_HOME (as on its own host), all on one new `missive_bench_team_*` database of the server
 * MISSIVE_BENCH_PG_URL names (a user that may create databases; each database is dropped at the end).
 *
 *   MISSIVE_BENCH_PG_URL=postgres://user:pw@127.0.0.1:5432/postgres npm run bench -- team [JOBS] [ROUNDS]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { startJob } from '../electron/core/jobs/queue.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { startEmbeddedAgent, type EmbeddedAgent } from '../electron/core/demo/embedded-agent.js';
import { median } from './_stats.js';

const JOBS = Number(process.argv[2]) || 1000;
const ROUNDS = Number(process.argv[3]) || 1;
/** Pool sizes measured; the first is the baseline. */
const POOLS = [1, 2, 3];
/**
 * How long each task takes at the agent, one pass per value. A job's time is then mostly waiting on its agent, as a
 * real (model-backed) agent's is: what a second gateway adds is more jobs waited on at once, the point of a pool.
 * 50 ms: a job costs the machine about as much CPU (gateway, PostgreSQL, agent) as it waits, so on a small machine
 * the cores, not the gateways' slots, are the limit: what a pool costs. 500 ms: one gateway's slots are the limit
 * (CONCURRENCY jobs per ~0.6–0.75 s), far below the cores': what a pool gains.
 */
const AGENT_DELAYS_MS = [50, 500];
/**
 * Jobs each gateway runs at once: `gateway run`'s default. One gateway's throughput is bounded by CONCURRENCY / the
 * time of one job (the agent's delay plus up to a poll interval plus the rows written); every gateway in the pool
 * adds CONCURRENCY slots.
 */
const CONCURRENCY = 16;
/**
 * Scan and GetTask poll interval: a job whose task is still working when sent is polled this often. Each poll that
 * finds the task still working costs a GetTask at the agents (in this process) and a task update in PostgreSQL; at
 * 250 ms a job's polls find its task still working two or three times with the 500 ms agents, once with the 50 ms
 * ones, so the bench measures the queue more than the polling.
 */
const INTERVAL = '250ms';
/** Slow agents the jobs are spread over (round robin). */
const AGENTS = 3;
/** Bound of one pool's run: a run that has not ended by then fails. */
const RUN_LIMIT_MS = 10 * 60_000;

const adminUrl = process.env.MISSIVE_BENCH_PG_URL;
if (!adminUrl) {
  process.stderr.write('team: set MISSIVE_BENCH_PG_URL to a PostgreSQL server (a user that may create databases)\n');
  process.exit(64);
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(root, 'bin/missive.js');

/** `url` naming another database. */
const onDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

interface Gateway {
  child: ChildProcess;
  home: string;
  /** Jobs its NDJSON output says it ended (succeeded or failed). */
  ended: number;
  stderr: string;
  exited: Promise<number | null>;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    // The fields after the command name (which may hold spaces): state (field 3) first; utime and stime are 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function spawnGateway(url: string): Gateway {
  const home = mkdtempSync(join(tmpdir(), 'missive-bench-team-gw-'));
  const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, MISSIVE_STORE_URL: url };
  const child = spawn(process.execPath, [cli, 'gateway', 'run', '--interval', INTERVAL, '--concurrency', String(CONCURRENCY), '--ndjson'], {
    cwd: home,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gateway: Gateway = { child, home, ended: 0, stderr: '', exited: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (/"kind":"job_(succeeded|failed)"/.test(line)) gateway.ended++;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (gateway.stderr += chunk));
  return gateway;
}

interface PoolRun {
  gateways: number;
  /** Jobs running at once (claimed), on average from the first claim to the end: how full the gateways' slots were. */
  meanRunning: number;
  /** CPU the gateways used per job, in ms (null off Linux). */
  cpuPerJobMs: number | null;
  /** Transactions committed and rows written (inserted, updated, deleted) per job, from pg_stat_database. */
  commitsPerJob: number;
  rowsPerJob: number;
  /** CPU PostgreSQL's server processes serving the gateways used per job, in ms (null unless the server is local). */
  serverCpuPerJobMs: number | null;
  /** CPU this process (the agents, and the bench's own polling) used per job, in ms. */
  agentCpuPerJobMs: number;
  seconds: number;
  jobsPerSecond: number;
  /** Seconds from the spawn to the first job claimed (process start-up, joining the pool). */
  firstClaim: number;
  perGateway: number[];
  queuedPerSecond: number;
}

/** One pool size on a fresh database: queue JOBS send jobs, run them with `size` gateways, time it. */
async function runPool(size: number, agents: EmbeddedAgent[]): Promise<PoolRun> {
  const database = `missive_bench_team_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = onDatabase(adminUrl!, database);
  const home = mkdtempSync(join(tmpdir(), 'missive-bench-team-'));
  const core = createCore({
    env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, MISSIVE_STORE_URL: url },
    cwd: home,
    secrets: createMemorySecretStore(),
    timeoutMs: 30_000,
  });
  const gateways: Gateway[] = [];
  let client: pg.Client | undefined;
  try {
    for (const [i, agent] of agents.entries()) {
      await addAgent(core, { alias: `slow-${i}`, baseUrl: agent.baseUrl });
      await loadCard(core, `slow-${i}`);
    }
    let t0 = performance.now();
    for (let i = 0; i < JOBS; i++) {
      await startJob(core, { kind: 'send', input: { agent: `slow-${i % agents.length}`, text: `job ${i}`, cwd: home, messageId: randomUUID() } });
    }
    const queuedPerSecond = JOBS / ((performance.now() - t0) / 1000);
    const schema = core.storeSelection.kind === 'postgres' ? core.storeSelection.schema : '';
    // Its connections go (in the background): the server processes left are the gateways' and the poller's.
    core.close();

    client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    const db = client;
    const states = async () => {
      const { rows } = await db.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM gateway_jobs WHERE kind = 'send' GROUP BY state`);
      return Object.fromEntries(rows.map((r) => [r.state, r.n])) as Record<string, number>;
    };

    // What the server did for the jobs: transactions committed and rows written (the poller's own queries taken off).
    const activity = async () =>
      (
        await db.query<{ commits: string; rows: string }>(
          `SELECT xact_commit AS commits, tup_inserted + tup_updated + tup_deleted AS rows FROM pg_stat_database WHERE datname = current_database()`,
        )
      ).rows[0]!;
    const activityBefore = await activity();
    let polls = 1;
    t0 = performance.now();
    const ownCpu = process.cpuUsage();
    for (let i = 0; i < size; i++) gateways.push(spawnGateway(url));
    let firstClaim = 0;
    const running: number[] = [];
    for (;;) {
      const s = await states();
      polls++;
      const now = performance.now();
      if (firstClaim) running.push(s.running ?? 0);
      if (!firstClaim && (s.running || s.succeeded || s.failed)) firstClaim = now - t0;
      if ((s.succeeded ?? 0) + (s.failed ?? 0) + (s.cancelled ?? 0) === JOBS) {
        if (s.succeeded !== JOBS) throw new Error(`${size} gateway(s): ${JSON.stringify(s)}: every job should have succeeded`);
        break;
      }
      const dead = gateways.find((g) => g.child.exitCode !== null);
      if (dead) throw new Error(`a gateway exited (${dead.child.exitCode}) before the jobs ended: ${dead.stderr.slice(0, 2000)}`);
      if (now - t0 > RUN_LIMIT_MS) throw new Error(`${size} gateway(s): not done after ${RUN_LIMIT_MS / 1000} s: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const seconds = (performance.now() - t0) / 1000;
    const sum = (xs: Array<number | null>) =>
      xs.length > 0 && xs.every((c) => c !== null) ? ((xs as number[]).reduce((a, b) => a + b, 0) * 1000) / JOBS : null;
    const cpuPerJobMs = sum(gateways.map((g) => cpuSeconds(g.child.pid)));
    // The gateways' server processes, when the server runs on this machine (at least: a connection a gateway's pool
    // closed during the run took its CPU time with it).
    const backends = (await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows;
    const serverCpuPerJobMs = sum(backends.map((b) => cpuSeconds(b.pid)));
    const own = process.cpuUsage(ownCpu);
    const agentCpuPerJobMs = (own.user + own.system) / 1000 / JOBS;
    for (const g of gateways) g.child.kill('SIGTERM');
    const codes = await Promise.all(gateways.map((g) => g.exited));
    if (codes.some((c) => c !== 0)) throw new Error(`a gateway stopped with ${codes.join(', ')}: ${gateways.map((g) => g.stderr.slice(0, 500)).join('\n')}`);
    // The statistics are flushed by each server process within a second of its transactions (and when it exits).
    await new Promise((r) => setTimeout(r, 1500));
    await db.query('SELECT pg_stat_clear_snapshot()');
    const activityAfter = await activity();
    const commitsPerJob = (Number(activityAfter.commits) - Number(activityBefore.commits) - polls - 1) / JOBS;
    const rowsPerJob = (Number(activityAfter.rows) - Number(activityBefore.rows)) / JOBS;
    return {
      gateways: size,
      commitsPerJob,
      rowsPerJob,
      cpuPerJobMs,
      serverCpuPerJobMs,
      agentCpuPerJobMs,
      meanRunning: running.reduce((a, b) => a + b, 0) / Math.max(1, running.length),
      seconds,
      jobsPerSecond: JOBS / seconds,
      firstClaim: firstClaim / 1000,
      perGateway: gateways.map((g) => g.ended),
      queuedPerSecond,
    };
  } finally {
    for (const g of gateways) if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL');
    await Promise.all(gateways.map((g) => g.exited));
    for (const g of gateways) rmSync(g.home, { recursive: true, force: true });
    await client?.end().catch(() => undefined);
    core.close();
    // The pool closes in the background: the database is dropped WITH (FORCE) all the same.
    await admin
      .query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      .catch((error: Error) => console.error(`could not drop ${database}: ${error.message}`));
    await admin.end();
    rmSync(home, { recursive: true, force: true });
  }
}

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
const version = (await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
await admin.end();
console.log(
  `team: ${JOBS.toLocaleString('en')} send jobs on one PostgreSQL ${version} database, ${AGENTS} slow agents, gateways of --concurrency ${CONCURRENCY} ` +
    `--interval ${INTERVAL}; ${ROUNDS} round(s) (medians); load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
const ms = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(1)} ms`);
for (const delay of AGENT_DELAYS_MS) {
  const agents = await Promise.all(
    Array.from({ length: AGENTS }, (_, i) => startEmbeddedAgent({ name: `slow-${i}`, behaviour: 'slow', delayMs: delay, streaming: false })),
  );
  try {
    console.log(`agents taking ${delay} ms per task:`);
    const runs = new Map<number, PoolRun[]>(POOLS.map((n) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order from round to round, so no pool size always runs on the warmest (or the busiest) machine.
      for (const size of round % 2 === 0 ? POOLS : [...POOLS].reverse()) {
        const run = await runPool(size, agents);
        runs.get(size)!.push(run);
        console.log(
          `  round ${round + 1}, ${size} gateway(s): ${run.seconds.toFixed(2)} s, ${run.jobsPerSecond.toFixed(1)} jobs/s ` +
            `(first claim after ${run.firstClaim.toFixed(2)} s; ${run.meanRunning.toFixed(1)} running at once on average; jobs per gateway ${run.perGateway.join(' / ')}; ` +
            `CPU per job: gateways ${ms(run.cpuPerJobMs)}, PostgreSQL ${ms(run.serverCpuPerJobMs)}, agents ${ms(run.agentCpuPerJobMs)}; ${run.commitsPerJob.toFixed(1)} transactions and ${run.rowsPerJob.toFixed(1)} rows written per job; queued at ${run.queuedPerSecond.toFixed(0)} jobs/s)`,
        );
      }
    }
    const rate = (size: number) => median(runs.get(size)!.map((r) => r.jobsPerSecond));
    const baseline = rate(POOLS[0]!);
    for (const size of POOLS) {
      const r = rate(size);
      console.log(
        `${delay} ms agents, ${size} gateway(s): ${r.toFixed(1)} jobs/s, ratio ${(r / baseline).toFixed(2)} against 1 gateway (${size}.00 would be linear)`,
      );
    }
  } finally {
    await Promise.all(agents.map((a) => a.close()));
  }
}
await closeSharedDispatcher();
