/**
 * Webhook receiver throughput: missive's receiver (the one `missive webhook run` starts, journaling into the real
 * SQLite store of a temp MISSIVE_HOME) against a bare node:http server that reads the body and answers 202, in the
 * same process and run. Each round posts N valid A2A v1.0 push callbacks (StreamResponse `statusUpdate` JSON) from an
 * undici keep-alive Pool at a fixed concurrency over 127.0.0.1, in two scenarios: callbacks for tasks of a registered
 * agent (the linked path: the task row's status, the update's journal row) and for tasks missive does not know (one unlinked
 * event). Prints requests/s, p99 latency and CPU per request (the in-process client included) of both sides, the
 * ratio of the rates (target ≥ 0.5), and checks that every callback answered 202 is in the journal (exit 1 otherwise).
 * A third server, measured beside the bare one, is the floor of journaling before answering: node:http that inserts
 * each body as one row of a SQLite table with its primary key and a (task, sequence) index, the least a journal that
 * a task's history is read from holds, sets the status of the callback's task in a tasks table indexed by update
 * time as missive's is (a task it does not have: nothing), in WAL with synchronous NORMAL as missive's store, and
 * commits once per loop turn before that turn's 202s; missive's rate is also printed against it.
 *
 *   npm run bench -- webhook              # N = 5000, concurrency 16
 *   node dist/bench/index.js webhook 20000 32
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { callbackStore } from '../electron/core/webhook/callback-store.js';
import { createReceiver } from '../electron/core/webhook/receiver.js';
import { paired, quantile, ratioLine } from './_stats.js';
import { sqliteStore } from '../test/support/sqlite-store.js';

const N = Number(process.argv[2]) || 5000;
const CONCURRENCY = Number(process.argv[3]) || 16;
const ROUNDS = 3;
const TASKS = 64;
const TARGET = 0.5;
/** Callbacks for tasks missive has (the task row's status, the journal row), and for tasks it does not (one unlinked event). */
const SCENARIOS = [
  { name: 'linked', taskPrefix: 'task-' },
  { name: 'unlinked', taskPrefix: 'unknown-' },
];

/** Callback `i`: a working-state update with a short agent message, as an SDK agent posts it. */
const callback = (i: number, taskPrefix: string) =>
  JSON.stringify({
    statusUpdate: {
      taskId: `${taskPrefix}${i % TASKS}`,
      contextId: `ctx-${i % TASKS}`,
      status: {
        state: 'TASK_STATE_WORKING',
        message: { messageId: `m-${i}`, role: 'ROLE_AGENT', parts: [{ text: `step ${i}: fetched the quarterly figures, summarising by region` }] },
        timestamp: new Date(1_700_000_000_000 + i).toISOString(),
      },
    },
  });

/** Posts N callbacks to `url` over `CONCURRENCY` keep-alive connections; returns the rate, the p99 and the 202 count. */
async function load(url: string, taskPrefix: string): Promise<{ rate: number; p99: number; accepted: number; cpu: number }> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  let accepted = 0;
  const worker = async () => {
    for (let i = next++; i < N; i = next++) {
      const t0 = performance.now();
      const res = await pool.request({
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: callback(i, taskPrefix),
      });
      await res.body.dump();
      latencies.push(performance.now() - t0);
      if (res.statusCode === 202) accepted++;
      else throw new Error(`callback ${i}: HTTP ${res.statusCode}`);
    }
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  return { rate: N / seconds, p99: quantile(latencies, 0.99), accepted, cpu: (cpu.user + cpu.system) / N };
}

const home = mkdtempSync(join(tmpdir(), 'missive-bench-webhook-'));
const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
const bare = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => void res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}'));
});
const receiver = createReceiver(callbackStore(() => core.storage()));

/**
 * The journaling floor: each body one row (its task indexed) and its task's status set, one commit per loop turn,
 * then that turn's 202s.
 */
const floorDb = new Database(join(home, 'floor.sqlite3'));
floorDb.pragma('journal_mode = WAL');
floorDb.pragma('synchronous = NORMAL');
floorDb.exec('CREATE TABLE journal (sequence INTEGER PRIMARY KEY, task_id TEXT, payload TEXT NOT NULL)');
floorDb.exec('CREATE INDEX journal_task ON journal(task_id, sequence)');
floorDb.exec('CREATE TABLE tasks (task_id TEXT PRIMARY KEY, agent TEXT, context_id TEXT, status_json TEXT, updated_at TEXT)');
floorDb.exec('CREATE INDEX tasks_agent ON tasks(agent, updated_at)');
floorDb.exec('CREATE INDEX tasks_context ON tasks(context_id, updated_at)');
for (let t = 0; t < TASKS; t++) floorDb.prepare(`INSERT INTO tasks VALUES (?, 'worker', ?, '{}', '')`).run(`task-${t}`, `ctx-${t}`);
const floorInsert = floorDb.prepare('INSERT INTO journal (task_id, payload) VALUES (?, ?)');
const floorStatus = floorDb.prepare('UPDATE tasks SET status_json = ?, updated_at = ? WHERE task_id = ?');
let floorQueue: Array<{ text: string; res: ServerResponse }> = [];
const floorCommit = () => {
  const turn = floorQueue;
  floorQueue = [];
  floorDb.transaction(() => {
    for (const { text } of turn) {
      const update = (JSON.parse(text) as { statusUpdate: { taskId: string; status: unknown } }).statusUpdate;
      floorInsert.run(update.taskId, text);
      floorStatus.run(JSON.stringify(update.status), new Date().toISOString(), update.taskId);
    }
  })();
  for (const { res } of turn) res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}');
};
const floor = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (floorQueue.push({ text: Buffer.concat(chunks).toString('utf8'), res }) === 1) setImmediate(floorCommit);
  });
});
let allJournaled = true;
try {
  // Set-up, not timed: the agent and its tasks, so callbacks link to them.
  await addAgent(core, { alias: 'worker', baseUrl: 'http://127.0.0.1:9' });
  await (
    await core.storage()
  ).transaction(async (tx) => {
    for (let t = 0; t < TASKS; t++) await tx.conversation.ensurePlaceholderTask(`task-${t}`, 'worker');
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/a2a/push`;
  await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
  const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}/a2a/push`;
  const missiveUrl = (await receiver.start()).url;

  for (const scenario of SCENARIOS) {
    const p99 = { bare: [] as number[], missive: [] as number[] };
    const cpu = { bare: [] as number[], missive: [] as number[] };
    let accepted = 0;
    const floorRates: number[] = [];
    const rates = await paired(
      ROUNDS,
      async () => {
        floorRates.push((await load(floorUrl, scenario.taskPrefix)).rate);
        const r = await load(bareUrl, scenario.taskPrefix);
        p99.bare.push(r.p99);
        cpu.bare.push(r.cpu);
        return r.rate;
      },
      async () => {
        const r = await load(missiveUrl, scenario.taskPrefix);
        p99.missive.push(r.p99);
        cpu.missive.push(r.cpu);
        accepted += r.accepted;
        return r.rate;
      },
    );
    // paired() runs one warm-up of each first: its p99 and CPU are not reported (the median of the timed rounds is).
    const ofRounds = (xs: number[]) => quantile(xs.slice(1), 0.5);
    console.log(
      `webhook ${scenario.name}, ${N} callbacks × ${ROUNDS} rounds at concurrency ${CONCURRENCY} (medians): ` +
        `missive ${rates.subject.toFixed(0)} req/s, p99 ${ofRounds(p99.missive).toFixed(2)} ms; ` +
        `bare node:http ${rates.baseline.toFixed(0)} req/s, p99 ${ofRounds(p99.bare).toFixed(2)} ms`,
    );
    // The client runs in this process too: both figures include its CPU, so their difference is what missive adds.
    console.log(
      `  CPU per request, client included (medians): missive ${ofRounds(cpu.missive).toFixed(0)} µs, bare node:http ${ofRounds(cpu.bare).toFixed(0)} µs`,
    );
    console.log(ratioLine(`webhook ${scenario.name} req/s, missive / bare node:http`, rates.subject / rates.baseline, TARGET, false));
    const floorRate = ofRounds(floorRates);
    console.log(
      `  the journaling floor (one row, its task indexed, the task's status set, a commit per turn): ${floorRate.toFixed(0)} req/s, ${(floorRate / rates.baseline).toFixed(2)}× bare; missive ${(rates.subject / floorRate).toFixed(2)}× the floor`,
    );
    const journaled = (
      (await sqliteStore(core)).db
        .prepare(`SELECT count(*) AS n FROM events WHERE event_type = 'a2a.push.status_update' AND task_id GLOB ?`)
        .get(`${scenario.taskPrefix}*`) as { n: number }
    ).n;
    console.log(
      `  journal: ${journaled} a2a.push.status_update events for ${accepted} callbacks answered 202: ${journaled === accepted ? 'all journaled' : 'MISSING'}`,
    );
    if (journaled !== accepted) allJournaled = false;
  }
} finally {
  await receiver.stop();
  await new Promise((r) => bare.close(r));
  await new Promise((r) => floor.close(r));
  floorDb.close();
  core.close();
  rmSync(home, { recursive: true, force: true });
}
if (!allJournaled) process.exitCode = 1;
