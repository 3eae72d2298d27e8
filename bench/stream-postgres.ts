/**
 * A stream persisted in a team's PostgreSQL store against the same stream in the embedded SQLite store and the SDK
 * client that stores nothing: missive's `streamMessage` of EVENTS events (bench/_stream-peer.ts, a peer process that
 * writes as fast as the socket takes: the task, appended artifact chunks, a status every 100) into each store,
 * ROUNDS rounds after a warm-up, medians. Prints CPU of this process per event (the server's is not counted: it is
 * another process), wall time per event and events/s, the ratios PostgreSQL / SQLite and PostgreSQL / SDK, and checks
 * that every event was journaled in PostgreSQL.
 *
 * The cluster: MISSIVE_BENCH_PG_URL (a user that may create databases), else a throw-away one started here: fsync
 * off, as the tests'; with `durable`, fsync and synchronous_commit on, as a server has them by default, so each commit
 * waits for its WAL to reach the disk.
 *
 *   npm run bench -- stream-postgres [EVENTS] [ROUNDS] [durable]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { streamMessage } from '../electron/core/messaging/stream.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import type { Core } from '../electron/core/handle.js';
import { startBenchCluster, type BenchCluster } from './_private-postgres.js';
import { median } from './_stats.js';

const EVENTS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const DURABLE = process.argv[4] === 'durable';
const here = fileURLToPath(new URL('.', import.meta.url));

interface Run {
  cpuUs: number;
  wallUs: number;
}

async function measured(consume: () => Promise<number>): Promise<Run> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const events = await consume();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (events !== EVENTS) throw new Error(`read ${events} of ${EVENTS} events`);
  return { cpuUs: (cpu.user + cpu.system) / EVENTS, wallUs: (wallMs * 1000) / EVENTS };
}

let cluster: BenchCluster | undefined;
const adminUrl = process.env.MISSIVE_BENCH_PG_URL ?? (cluster = await startBenchCluster({ durable: DURABLE })).url;
const database = `missive_bench_stream_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const storeUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

const peer: ChildProcess = spawn(process.execPath, [join(here, '_stream-peer.js'), String(EVENTS)], { stdio: ['pipe', 'pipe', 'inherit'] });
const baseUrl = await new Promise<string>((resolve) => createInterface({ input: peer.stdout! }).once('line', resolve));
const homes: string[] = [];
const cores: Core[] = [];

async function storeCore(env: Record<string, string>): Promise<Core> {
  const home = mkdtempSync(join(tmpdir(), 'missive-bench-stream-pg-'));
  homes.push(home);
  const core = createCore({
    env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH ?? '', ...env },
    cwd: home,
    secrets: createMemorySecretStore(),
    timeoutMs: 120_000,
  });
  cores.push(core);
  await addAgent(core, { alias: 'peer', baseUrl });
  await loadCard(core, 'peer');
  return core;
}

try {
  const sqlite = await storeCore({});
  const postgres = await storeCore({ MISSIVE_STORE_URL: storeUrl });
  const client = await new ClientFactory().createFromUrl(baseUrl);
  const cases = {
    sdk: async () => {
      let n = 0;
      const request = SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } });
      for await (const _event of client.sendMessageStream(request)) n++;
      return n;
    },
    sqlite: async () => (await streamMessage(sqlite, { agent: 'peer', text: 'go', cwd: homes[0]! })).events,
    postgres: async () => (await streamMessage(postgres, { agent: 'peer', text: 'go', cwd: homes[1]! })).events,
  };
  const runs = { sdk: [] as Run[], sqlite: [] as Run[], postgres: [] as Run[] };
  for (const consume of Object.values(cases)) await measured(consume);
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, consume] of Object.entries(cases)) runs[name as keyof typeof runs].push(await measured(consume));

  const cpu = (name: keyof typeof runs) => median(runs[name].map((r) => r.cpuUs));
  const wall = (name: keyof typeof runs) => median(runs[name].map((r) => r.wallUs));
  console.log(
    `${EVENTS} events per stream, ${ROUNDS} rounds after a warm-up, medians; PostgreSQL ${cluster ? `${cluster.version} (throw-away, ${DURABLE ? 'fsync and synchronous_commit on' : 'fsync off'})` : 'at MISSIVE_BENCH_PG_URL'}`,
  );
  for (const name of Object.keys(runs) as Array<keyof typeof runs>)
    console.log(`${name.padEnd(8)} ${cpu(name).toFixed(1)} µs CPU/event, ${wall(name).toFixed(1)} µs wall/event, ${Math.round(1e6 / wall(name))} events/s`);
  console.log(`PostgreSQL / SQLite: CPU ${(cpu('postgres') / cpu('sqlite')).toFixed(2)}×, wall ${(wall('postgres') / wall('sqlite')).toFixed(2)}×`);
  console.log(
    `PostgreSQL / SDK client (for information: the server's CPU is not counted): CPU ${(cpu('postgres') / cpu('sdk')).toFixed(2)}×, wall ${(wall('postgres') / wall('sdk')).toFixed(2)}×`,
  );
  const store = new pg.Client({ connectionString: storeUrl });
  await store.connect();
  try {
    const persisted = await store.query<{ n: string }>(
      `SELECT count(*) AS n FROM missive_default.events WHERE event_type IN ('a2a.stream.task', 'a2a.stream.status_update', 'a2a.stream.artifact_update')`,
    );
    const expected = EVENTS * (ROUNDS + 1);
    const n = Number(persisted.rows[0]!.n);
    console.log(`persisted in PostgreSQL: ${n} of ${expected} stream events as journal events${n === expected ? '' : ' — SOME LOST'}`);
  } finally {
    await store.end();
  }
} finally {
  for (const core of cores) core.close();
  await closeSharedDispatcher();
  peer.stdin!.end();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  cluster?.stop();
}
