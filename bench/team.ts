/**
 * What a job costs in team mode (issue 34; the queue's first bench was issue 24's): send jobs on one PostgreSQL
 * database, run by `missive gateway run` processes of the built CLI (each in its own MISSIVE_HOME, as on its own
 * host), against an echo agent that answers at once (the SDK's server, in a process of its own). One run records:
 *
 * 1. PostgreSQL transactions per send job, from pg_stat_database's xact_commit on a database only the gateway uses:
 *    a `gateway run --once` over TX_JOBS jobs against one over none (the gateway's own start and stop taken off),
 *    counted once every server process of the database has exited (each flushes its statistics as it exits).
 * 2. Jobs/s for 1 and 2 gateways (`--concurrency 16 --interval 250ms`), each size on a fresh database of JOBS jobs,
 *    from the spawn to the last job ended (every job must succeed).
 * 3. The gateway's CPU per job (from /proc/<pid>/stat, 1 gateway) against the CPU of one direct send in this process
 *    (`sendMessage`, the service `missive send` calls, to the same agent on the same store).
 * 4. `job start send --from-file` queueing FILE_JOBS jobs in one process, against 50 `job start` processes, timed one
 *    after the other and scaled to FILE_JOBS.
 *
 * With `--baseline-cli PATH` (a previous build's bin/missive.js: the lead runs it against a worktree of HEAD), 1 and 2
 * are measured for that CLI too, in the same run, and the ratios printed. Jobs are queued the same way for every CLI:
 * one `job start` by that CLI, then its row copied in SQL (each copy a new job id and message id).
 *
 * The cluster: MISSIVE_BENCH_PG_URL (a user that may create databases), else a throw-away one started here
 * (_private-postgres.ts). Loopback only; every wait is bounded.
 *
 *   npm run bench:team -- [--jobs 1000] [--baseline-cli /path/to/bin/missive.js]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { sendMessage } from '../electron/core/messaging/send.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { startBenchCluster, type BenchCluster } from './_private-postgres.js';

const { values: flags } = parseArgs({ options: { jobs: { type: 'string' }, 'baseline-cli': { type: 'string' } } });
const JOBS = Number(flags.jobs) || 1000;
const TX_JOBS = 300;
const FILE_JOBS = 10_000;
const PROCESSES = 50;
const DIRECT_SENDS = 300;
const POOLS = [1, 2];
/** Bound of any one child process, and of one pool's run. */
const LIMIT_MS = 5 * 60_000;

const root = fileURLToPath(new URL('../../', import.meta.url));
const currentCli = join(root, 'bin/missive.js');
const clis: Array<{ name: string; path: string }> = [
  { name: 'this build', path: currentCli },
  ...(flags['baseline-cli'] ? [{ name: 'baseline', path: flags['baseline-cli'] }] : []),
];

let cluster: BenchCluster | undefined;
const adminUrl = process.env.MISSIVE_BENCH_PG_URL ?? (cluster = await startBenchCluster()).url;
const onDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};
const admin = new pg.Client({ connectionString: adminUrl });
admin.on('error', () => undefined);
await admin.connect();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` (bounded) until it returns something truthy. */
async function until<T>(what: string, probe: () => Promise<T | false | undefined>, ms = LIMIT_MS, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`team: timed out waiting for ${what}`);
    await sleep(every);
  }
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI to its end (bounded), with `env`; optional stdin. */
function runCli(cli: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => void (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => void (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const ok = (run: Run, what: string) => {
  if (run.code !== 0) throw new Error(`team: ${what} exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
  return run;
};

/** A fresh database for `fn`, dropped after it; a home (MISSIVE_HOME) on it. */
async function withDatabase<T>(fn: (db: { name: string; url: string; env: NodeJS.ProcessEnv; home: string }) => Promise<T>): Promise<T> {
  const name = `missive_bench_team_${randomBytes(5).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = onDatabase(adminUrl, name);
  const home = mkdtempSync(join(tmpdir(), 'missive-bench-team-'));
  try {
    return await fn({ name, url, home, env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, MISSIVE_STORE_URL: url } });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((e: Error) => console.error(`could not drop ${name}: ${e.message}`));
    rmSync(home, { recursive: true, force: true });
  }
}

/** Committed transactions of `database`, once no connection is left on it (each flushed its statistics). */
async function commits(database: string): Promise<number> {
  await until('the database to have no connection left', async () => {
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [database]);
    return rows[0].n === 0;
  });
  await admin.query('SELECT pg_stat_clear_snapshot()');
  return Number((await admin.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = $1`, [database])).rows[0].xact_commit);
}

/** Registers the echo agent with `cli` (the schema made by that CLI's migrations). */
async function addEcho(cli: string, env: NodeJS.ProcessEnv, agentUrl: string) {
  ok(await runCli(cli, ['agent', 'add', 'echo', agentUrl, '--json'], env), 'agent add');
  ok(await runCli(cli, ['agent', 'inspect', 'echo', '--json'], env), 'agent inspect');
}

/** `n` send jobs queued as `cli` queues one, that one copied n - 1 times in SQL (each a new job and message id). */
async function queueJobs(cli: string, db: { url: string; env: NodeJS.ProcessEnv }, n: number) {
  const started = JSON.parse(ok(await runCli(cli, ['job', 'start', 'send', 'echo', 'hello', '--json'], db.env), 'job start').stdout).data;
  if (n <= 1) return;
  const client = new pg.Client({ connectionString: db.url, options: '-c search_path=missive_default' });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, group_name, context_id, target_task_id, request_json, summary_json, max_attempts, next_run_at)
       SELECT ids.job_id, kind, state, agent_alias, group_name, context_id, target_task_id, replace(request_json, $2, ids.message_id), replace(summary_json, $2, ids.message_id), max_attempts, next_run_at
       FROM gateway_jobs, (SELECT gen_random_uuid()::text AS job_id, gen_random_uuid()::text AS message_id FROM generate_series(2, $3)) AS ids WHERE gateway_jobs.job_id = $1`,
      [started.job_id, started.summary.message_id, n],
    );
  } finally {
    await client.end();
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The echo agent, in a process of its own (its CPU is not the gateway's, nor this process's). */
async function startAgentProcess() {
  const module = new URL('../electron/core/demo/embedded-agent.js', import.meta.url).href;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { startEmbeddedAgent } = await import(${JSON.stringify(module)}); const a = await startEmbeddedAgent({ name: 'echo', behaviour: 'echo', streaming: false }); console.log(a.baseUrl);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
  const baseUrl = await until('the agent to listen', async () => out.includes('\n') && out.trim(), 30_000);
  return { baseUrl, stop: () => child.kill('SIGTERM') };
}

// ------------------------------------------------------------------------------------------------ measurements

/** 1. Transactions per send job: a gateway --once over TX_JOBS jobs against one over none. */
async function transactionsPerJob(cli: string, agentUrl: string): Promise<number> {
  return withDatabase(async (db) => {
    await addEcho(cli, db.env, agentUrl);
    const gatewayOnce = async () => {
      const before = await commits(db.name);
      ok(await runCli(cli, ['gateway', 'run', '--once', '--json'], db.env), 'gateway run --once');
      return (await commits(db.name)) - before;
    };
    const idle = await gatewayOnce();
    await queueJobs(cli, db, TX_JOBS);
    const busy = await gatewayOnce();
    return (busy - idle) / TX_JOBS;
  });
}

interface PoolRun {
  jobsPerSecond: number;
  /** The gateways' CPU per job, in ms (null off Linux). */
  cpuPerJobMs: number | null;
}

/** 2. JOBS jobs run by `size` gateways of `cli`, from their spawn to the last job ended. */
async function poolRun(cli: string, size: number, agentUrl: string): Promise<PoolRun> {
  return withDatabase(async (db) => {
    await addEcho(cli, db.env, agentUrl);
    await queueJobs(cli, db, JOBS);
    const client = new pg.Client({ connectionString: db.url, options: '-c search_path=missive_default' });
    await client.connect();
    const gateways = Array.from({ length: size }, (_, i) => {
      const home = mkdtempSync(join(tmpdir(), `missive-bench-team-gw${i}-`));
      const child = spawn(process.execPath, [cli, 'gateway', 'run', '--interval', '250ms', '--concurrency', '16', '--ndjson'], {
        env: { ...db.env, MISSIVE_HOME: home, HOME: home },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (c: string) => void (stderr = (stderr + c).slice(-4000)));
      return { child, home, stderr: () => stderr, exited: new Promise((r) => child.once('close', r)) };
    });
    try {
      const t0 = performance.now();
      await until(
        `${size} gateway(s) to end ${JOBS} jobs`,
        async () => {
          const dead = gateways.find((g) => g.child.exitCode !== null);
          if (dead) throw new Error(`team: a gateway exited (${dead.child.exitCode}): ${dead.stderr()}`);
          const { rows } = await client.query(`SELECT state, count(*)::int AS n FROM gateway_jobs WHERE kind = 'send' GROUP BY state`);
          const n = Object.fromEntries(rows.map((r: { state: string; n: number }) => [r.state, r.n]));
          const ended = (n.succeeded ?? 0) + (n.failed ?? 0) + (n.cancelled ?? 0);
          if (ended === JOBS && n.succeeded !== JOBS) throw new Error(`team: not every job succeeded: ${JSON.stringify(n)}`);
          return ended === JOBS;
        },
        LIMIT_MS,
        25,
      );
      const seconds = (performance.now() - t0) / 1000;
      const cpu = gateways.map((g) => cpuSeconds(g.child.pid));
      const cpuPerJobMs = cpu.every((c) => c !== null) ? ((cpu as number[]).reduce((a, b) => a + b, 0) * 1000) / JOBS : null;
      return { jobsPerSecond: JOBS / seconds, cpuPerJobMs };
    } finally {
      for (const g of gateways) g.child.kill('SIGTERM');
      await Promise.race([Promise.all(gateways.map((g) => g.exited)), sleep(20_000)]);
      for (const g of gateways) if (g.child.exitCode === null) g.child.kill('SIGKILL');
      await client.end();
      for (const g of gateways) rmSync(g.home, { recursive: true, force: true });
    }
  });
}

/** 3. CPU of one direct send in this process (sendMessage to the same agent, on a store of the same server), in ms. */
async function directSendCpuMs(agentUrl: string): Promise<number> {
  return withDatabase(async (db) => {
    const core = createCore({ env: db.env, cwd: db.home, secrets: createMemorySecretStore(), timeoutMs: 30_000 });
    try {
      await addAgent(core, { alias: 'echo', baseUrl: agentUrl });
      await loadCard(core, 'echo');
      for (let i = 0; i < 30; i++) await sendMessage(core, { agent: 'echo', text: `warm ${i}`, cwd: db.home });
      const before = process.cpuUsage();
      for (let i = 0; i < DIRECT_SENDS; i++) await sendMessage(core, { agent: 'echo', text: `direct ${i}`, cwd: db.home });
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / DIRECT_SENDS;
    } finally {
      await (await core.storage()).close();
    }
  });
}

/** 4. `--from-file` queueing FILE_JOBS jobs, against PROCESSES `job start` processes scaled to FILE_JOBS (seconds). */
async function queueing(agentUrl: string): Promise<{ fileSeconds: number; processesSeconds: number }> {
  return withDatabase(async (db) => {
    await addEcho(currentCli, db.env, agentUrl);
    const file = join(db.home, 'jobs.txt');
    writeFileSync(file, Array.from({ length: FILE_JOBS }, (_, i) => `message ${i}`).join('\n'));
    let t0 = performance.now();
    const queued = JSON.parse(
      ok(await runCli(currentCli, ['job', 'start', 'send', 'echo', '--from-file', file, '--json'], db.env), 'job start --from-file').stdout,
    ).data;
    const fileSeconds = (performance.now() - t0) / 1000;
    if (queued.count !== FILE_JOBS) throw new Error(`team: --from-file queued ${queued.count}, not ${FILE_JOBS}`);
    t0 = performance.now();
    for (let i = 0; i < PROCESSES; i++) ok(await runCli(currentCli, ['job', 'start', 'send', 'echo', `process ${i}`, '--json'], db.env), 'job start');
    const processesSeconds = (((performance.now() - t0) / 1000) * FILE_JOBS) / PROCESSES;
    return { fileSeconds, processesSeconds };
  });
}

// ------------------------------------------------------------------------------------------------------ the run

const version = (await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]!.v;
console.log(
  `team: PostgreSQL ${version}${cluster ? ' (a throw-away cluster)' : ''}; ${JOBS.toLocaleString('en')} send jobs per pool run against an echo agent ` +
    `answering at once; CLIs: ${clis.map((c) => `${c.name} (${c.path})`).join(', ')}; load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
const agent = await startAgentProcess();
let failed = false;
try {
  const tx = new Map<string, number>();
  for (const c of clis) {
    tx.set(c.name, await transactionsPerJob(c.path, agent.baseUrl));
    console.log(`1. ${c.name}: ${tx.get(c.name)!.toFixed(2)} PostgreSQL transactions per send job (over ${TX_JOBS} jobs, gateway start and stop taken off)`);
  }
  const thisTx = tx.get('this build')!;
  console.log(
    `   target at most 4: ${thisTx <= 4 ? 'met' : 'NOT met'}${tx.has('baseline') ? `; ratio this / baseline ${(thisTx / tx.get('baseline')!).toFixed(2)}` : ''}`,
  );
  failed ||= thisTx > 4;

  const pools = new Map<string, PoolRun>();
  for (const size of POOLS)
    for (const c of clis) {
      const run = await poolRun(c.path, size, agent.baseUrl);
      pools.set(`${c.name}/${size}`, run);
      console.log(
        `2. ${c.name}, ${size} gateway(s): ${run.jobsPerSecond.toFixed(1)} jobs/s; gateways' CPU per job ${run.cpuPerJobMs === null ? 'n/a' : `${run.cpuPerJobMs.toFixed(2)} ms`}`,
      );
    }
  for (const size of POOLS) {
    const mine = pools.get(`this build/${size}`)!;
    const base = pools.get(`baseline/${size}`);
    const one = pools.get('this build/1')!;
    console.log(
      `   ${size} gateway(s): ${mine.jobsPerSecond.toFixed(1)} jobs/s, ratio ${(mine.jobsPerSecond / one.jobsPerSecond).toFixed(2)} against 1 gateway` +
        (base ? `, ratio ${(mine.jobsPerSecond / base.jobsPerSecond).toFixed(2)} against the baseline's ${base.jobsPerSecond.toFixed(1)}` : ''),
    );
  }

  const direct = await directSendCpuMs(agent.baseUrl);
  const perJob = pools.get('this build/1')!.cpuPerJobMs;
  const cpuRatio = perJob === null ? null : perJob / direct;
  console.log(
    `3. CPU of one direct send in-process: ${direct.toFixed(2)} ms; a gateway's CPU per job: ${perJob === null ? 'n/a' : `${perJob.toFixed(2)} ms`}; ` +
      `ratio ${cpuRatio === null ? 'n/a' : `${cpuRatio.toFixed(2)}×`} (target at most 3×: ${cpuRatio !== null && cpuRatio <= 3 ? 'met' : 'NOT met'})`,
  );
  failed ||= cpuRatio === null || cpuRatio > 3;

  const q = await queueing(agent.baseUrl);
  const speedup = q.processesSeconds / q.fileSeconds;
  console.log(
    `4. queueing ${FILE_JOBS.toLocaleString('en')} jobs: --from-file ${q.fileSeconds.toFixed(2)} s (${(FILE_JOBS / q.fileSeconds).toFixed(0)} jobs/s); ` +
      `${PROCESSES} \`job start\` processes scaled: ${q.processesSeconds.toFixed(0)} s; ${speedup.toFixed(0)}× faster (target at least 20×: ${speedup >= 20 ? 'met' : 'NOT met'})`,
  );
  failed ||= speedup < 20;
} finally {
  agent.stop();
  await admin.end();
  await closeSharedDispatcher();
  cluster?.stop();
}
if (failed) process.exitCode = 1;
