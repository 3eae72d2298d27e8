/**
 * Checkpoint policy benchmark (issue 23): the WAL and query latency over a long stream, with today's defaults and
 * the candidate policies of `CheckpointPolicy` (db.ts). Per policy, in a fresh database: EVENTS stream events (tasks
 * of a status, 20 appended artifact chunks and a final status, as `missive stream` persists them: `applyUpdateSteps` through
 * a group writer, TICK events per tick of the event loop), a pause of IDLE_MS+ every PAUSE_EVERY ticks (a stream
 * ending, the app idle), and beside it a second connection reading the journal like `events tail` / the GUI (two
 * `events list --limit 50` queries every READ_EVERY ticks, and every fifth time holding its snapshot for HOLD_TICKS
 * ticks, as a paged export does, which stops checkpoints from resetting the WAL). Reported per policy: CPU µs per
 * event (this process, reader included), the reader's query p50/p95, the largest WAL seen, the WAL after the stream
 * and a quiet second, and a cold connection's first `events list --limit 50` after it.
 *
 *   npm run bench -- checkpoint [EVENTS]          # 200,000 events per policy
 *   npm run bench -- checkpoint 50000 steady      # no pauses: what journal_size_limit alone does
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../electron/core/store/store.js';
import { openDatabase, SQLITE_DEFAULT_POLICY, type CheckpointPolicy } from '../electron/core/store/db.js';
import { listEvents } from '../electron/core/store/repos/events.js';
import { applyUpdateSteps } from '../electron/core/tasks/apply-update.js';
import { runStepsSync } from '../electron/core/store/sqlite/run-steps.js';
import type { StreamRecord } from '../electron/core/a2a/stream-response.js';
import { median, quantile } from './_stats.js';

const EVENTS = Number(process.argv[2]) || 200_000;
const TICK = 25;
/** `steady` as the second argument: no pauses (a stream that never lets the store go quiet). */
const STEADY = process.argv[3] === 'steady';
const PAUSE_EVERY = STEADY ? Number.POSITIVE_INFINITY : 400;
const IDLE_MS = 1000;
const READ_EVERY = 10;
const HOLD_TICKS = 100;
const CHUNKS = 20;

const POLICIES: Array<[string, CheckpointPolicy]> = [
  ['SQLite defaults (autocheckpoint 1000, no size limit, 2 MB cache, no idle checkpoint)', SQLITE_DEFAULT_POLICY],
  [
    '+ journal_size_limit 16 MB, idle TRUNCATE after 1 s (CHECKPOINT_POLICY)',
    { ...SQLITE_DEFAULT_POLICY, journalSizeLimit: 16 * 2 ** 20, idleCheckpointMs: IDLE_MS },
  ],
  ['+ cache 16 MB', { ...SQLITE_DEFAULT_POLICY, journalSizeLimit: 16 * 2 ** 20, idleCheckpointMs: IDLE_MS, cacheSizeKib: 16_000 }],
  ['+ autocheckpoint 4000', { walAutocheckpoint: 4000, journalSizeLimit: 16 * 2 ** 20, idleCheckpointMs: IDLE_MS, cacheSizeKib: 16_000 }],
];

const text = 'The quarterly report shows revenue up in every region; the summary lists the figures by product line. '.repeat(4);

/** The records of task `n`, in order. */
function taskRecords(n: number): StreamRecord[] {
  const taskId = `task-${n}`;
  const contextId = `ctx-${Math.floor(n / 3)}`;
  const status = (state: string, i: number) => ({
    taskId,
    contextId,
    status: { state, message: { messageId: `m-${n}-${i}`, role: 'ROLE_AGENT', parts: [{ text: text.slice(0, 60 + (i % 7) * 20) }] } },
  });
  const records: Array<Omit<StreamRecord, 'sequence'>> = [{ variant: 'statusUpdate', payload: status('TASK_STATE_WORKING', 0) }];
  for (let i = 0; i < CHUNKS; i++) {
    records.push({
      variant: 'artifactUpdate',
      payload: {
        taskId,
        contextId,
        artifact: { artifactId: 'report', name: 'report.md', parts: [{ text: text.slice(0, 40 + (i % 11) * 30) }] },
        append: i > 0,
        lastChunk: i === CHUNKS - 1,
      },
    });
  }
  records.push({ variant: 'statusUpdate', payload: status('TASK_STATE_COMPLETED', 1) });
  return records.map((r, i) => ({ ...r, sequence: i }) as StreamRecord);
}

const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tick = () => new Promise((resolve) => setImmediate(resolve));

async function run(policy: CheckpointPolicy) {
  const dir = mkdtempSync(join(tmpdir(), 'missive-bench-checkpoint-'));
  const path = join(dir, 'm.sqlite3');
  const store = openStore(path, { checkpoint: policy });
  store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('peer', 'http://127.0.0.1:1')`).run();
  const reader = openDatabase(path, { readonly: true });
  reader.pragma(`cache_size = -${policy.cacheSizeKib}`);
  const writer = store.grouped();
  const ensured = new Set<string>();
  const source = { eventPrefix: 'a2a.stream', alias: 'peer', protocolVersion: '1.0', metadata: {}, ensured };
  const reads: number[] = [];
  let maxWal = 0;
  let holding = 0;
  let reading = 0;
  let task = 0;
  let records: StreamRecord[] = [];
  let paused = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    for (let written = 0, ticks = 0; written < EVENTS; ticks++) {
      for (let i = 0; i < TICK && written < EVENTS; i++, written++) {
        if (records.length === 0) records = taskRecords(task++);
        const record = records.shift()!;
        writer.write(() => runStepsSync(store.db, applyUpdateSteps(source, record)));
      }
      if (ticks % READ_EVERY === 0) {
        const r0 = performance.now();
        listEvents(reader, { limit: 50 });
        listEvents(reader, { taskId: `task-${Math.max(0, task - 2)}`, limit: 50 });
        reads.push(performance.now() - r0);
        maxWal = Math.max(maxWal, walBytes(path));
        // Every fifth read keeps its snapshot open for HOLD_TICKS ticks (an export paging through the journal).
        if (holding === 0 && ++reading % 5 === 0) {
          reader.exec('BEGIN');
          reader.prepare('SELECT count(*) FROM agents').get();
          holding = HOLD_TICKS;
        }
      }
      if (holding > 0 && --holding === 0) reader.exec('COMMIT');
      if (ticks % PAUSE_EVERY === PAUSE_EVERY - 1) {
        const p0 = performance.now();
        await sleep(IDLE_MS + 100);
        paused += performance.now() - p0;
      } else await tick();
    }
    writer.flush();
    if (holding > 0) reader.exec('COMMIT');
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0 - paused;
    maxWal = Math.max(maxWal, walBytes(path));
    const walEnd = walBytes(path);
    await sleep(IDLE_MS + 100);
    const walAfter = walBytes(path);
    // A cold connection (a CLI process) reads while the store is still open: the WAL is still there to search.
    const cold = openDatabase(path, { readonly: true });
    const c0 = performance.now();
    listEvents(cold, { limit: 50 });
    const coldMs = performance.now() - c0;
    cold.close();
    return {
      cpuUs: (cpu.user + cpu.system) / EVENTS,
      rate: EVENTS / (wallMs / 1000),
      p50: median(reads),
      p95: quantile(reads, 0.95),
      maxWal,
      walEnd,
      walAfter,
      coldMs,
      db: statSync(path).size,
    };
  } finally {
    reader.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `checkpoint: ${EVENTS.toLocaleString('en')} stream events per policy, ${TICK} per tick, ${STEADY ? 'no pauses' : `a ${IDLE_MS + 100} ms pause every ${PAUSE_EVERY} ticks`}, a reader every ${READ_EVERY} ticks holding a snapshot ${HOLD_TICKS} ticks every fifth time`,
);
for (const [label, policy] of POLICIES) {
  const r = await run(policy);
  console.log(
    `${label}: ${r.cpuUs.toFixed(1)} µs CPU/event, ${Math.round(r.rate).toLocaleString('en')} events/s; reader p50 ${r.p50.toFixed(2)} ms p95 ${r.p95.toFixed(2)} ms; ` +
      `WAL max ${mb(r.maxWal)}, at the end ${mb(r.walEnd)}, after a quiet second ${mb(r.walAfter)}; cold first query ${r.coldMs.toFixed(2)} ms; database ${mb(r.db)}`,
  );
}
