/**
 * Journal query benchmark: builds a journal of 1,000,000 events in a temp MISSIVE_HOME (bulk inserts in transactions;
 * a few hundred agents, tens of thousands of tasks and contexts, interleaved stream/send/subscription/push task scripts
 * with the real event types and payloads of realistic size) at the schema before the journal indexes (0005), times
 * the migration, then times every query `missive events list --limit 50` runs, unfiltered and for each filter and some
 * combinations, and `events tail`'s poll, through the core functions the CLI calls, in process. Each prints its median
 * of 20 runs, the ratio against the 50 ms target itself, and the query's EXPLAIN QUERY PLAN. For information: first
 * `events export` pages, the whole `missive events list --limit 50 --json` process against that journal and an empty
 * one, and the cost of ingesting 100,000 events through `appendEvent` without the journal indexes and with them.
 *
 *   npm run bench -- journal                 # 1,000,000 events
 *   node dist/bench/index.js journal 200000  # another size
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createCore } from '../electron/core/context.js';
import type { Core } from '../electron/core/handle.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { journalAfter, journalEnd, listJournal, toQuery } from '../electron/core/events/journal.js';
import { appendEvent, eventQuerySql, listEvents, type EventQuery } from '../electron/core/store/repos/events.js';
import { type NewEvent } from '../electron/core/store/rows/events.js';
import { openDatabase, type Db } from '../electron/core/store/db.js';
import { MIGRATIONS } from '../electron/core/store/migrations/index.js';
import * as journalIndexes from '../electron/core/store/migrations/0005-journal-indexes.js';
import { median, ratioLine } from './_stats.js';
import {
  BUSY_AGENTS,
  insertJournalEvents,
  journalEvents,
  listCases,
  QUIET_AGENT,
  seedAgents,
  tailCases,
  tailEvents,
  TARGET_MS,
  time,
  type BuiltJournal,
  type TaskRow,
} from './_journal-mix.js';
import { sqliteStore } from '../test/support/sqlite-store.js';

const EVENTS = Number(process.argv[2]) || 1_000_000;
const INGEST_EVENTS = 100_000;
const INGEST_PER_TRANSACTION = 100;
const INGEST_ROUNDS = 4;
/** The schema before the journal indexes: the journal as users have it, and the ingest baseline. */
const BEFORE = MIGRATIONS.slice(
  0,
  MIGRATIONS.findIndex((m) => m.name === journalIndexes.name),
);

function taskInserter(db: Db) {
  const context = db.prepare(`INSERT INTO contexts (context_id, agent_alias) VALUES (?, ?)`);
  const task = db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id, state) VALUES (?, ?, ?, 'completed')`);
  return (t: TaskRow) => {
    if (t.newContext) context.run(t.contextId, t.agentAlias);
    task.run(t.taskId, t.agentAlias, t.contextId);
  };
}

/** Bulk-loads the journal with explicit timestamps over the last SPAN_MS; returns ids to filter by. */
function buildJournal(db: Db, count: number): BuiltJournal {
  seedAgents(db);
  const addTask = taskInserter(db);
  const tasks: TaskRow[] = [];
  const { start, step } = insertJournalEvents(db, count, (t) => {
    addTask(t);
    tasks.push(t);
  });
  const middle = tasks[Math.floor(tasks.length / 2)]!;
  return {
    eventCount: count,
    tasks: tasks.length,
    contexts: tasks.filter((t) => t.newContext).length,
    middle,
    sinceOf: (eventsAgo: number) => new Date(start + (count - eventsAgo) * step).toISOString(),
  };
}

const planOf = (db: Db, q: EventQuery) => {
  const { sql, params } = eventQuerySql(db, q);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
};

/** Prints one query's line (its ratio to TARGET_MS, or `info:` when the target is not its) and plan; true when met. */
async function report(db: Db, label: string, query: EventQuery, fn: () => Promise<unknown[]>, targeted = true): Promise<boolean> {
  const r = await time(fn);
  const figures = `[${r.ms.toFixed(2)} ms median, p95 ${r.p95.toFixed(2)} ms, ${r.rows} rows]`;
  console.log(targeted ? `${ratioLine(label, r.ms / TARGET_MS, 1)}  ${figures}` : `info: ${label}  ${figures}`);
  console.log(`    plan: ${planOf(db, query)}`);
  return r.ms <= TARGET_MS;
}

/** Wall times of three whole `missive events list --limit 50 --json` processes against `env`'s MISSIVE_HOME. */
function cliWallMs(env: NodeJS.ProcessEnv, events: number): string {
  const bin = fileURLToPath(new URL('../../bin/missive.js', import.meta.url));
  const walls: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const run = spawnSync(process.execPath, [bin, 'events', 'list', '--limit', '50', '--json'], { env, encoding: 'utf8' });
    walls.push(performance.now() - t);
    if (run.status !== 0 || JSON.parse(run.stdout).data.count !== events) throw new Error(`missive events list failed: ${run.stderr}`);
  }
  return `${median(walls).toFixed(0)} ms median of 3 (${walls.map((w) => w.toFixed(0)).join(', ')})`;
}

/** Wall and CPU ms of `appendEvent` for `events` into a fresh database at `migrations`' schema (not timed: its tasks). */
function ingestMs(migrations: typeof MIGRATIONS, events: NewEvent[], tasks: TaskRow[]): { wall: number; cpu: number } {
  const dir = mkdtempSync(join(tmpdir(), 'missive-bench-ingest-'));
  const db = openDatabase(join(dir, 'm.sqlite3'), { migrations });
  try {
    seedAgents(db);
    const addTask = taskInserter(db);
    db.transaction(() => tasks.forEach(addTask))();
    const batch = db.transaction((from: number) => {
      for (let i = from; i < Math.min(from + INGEST_PER_TRANSACTION, events.length); i++) appendEvent(db, events[i]!);
    });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < events.length; i += INGEST_PER_TRANSACTION) batch(i);
    const cpu = process.cpuUsage(cpu0);
    return { wall: performance.now() - t0, cpu: (cpu.user + cpu.system) / 1000 };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const home = mkdtempSync(join(tmpdir(), 'missive-bench-journal-'));
const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH };
const openCore = (): Core => createCore({ env, cwd: home, secrets: createMemorySecretStore() });
try {
  // Build at the schema before the journal indexes (the journal as users have it), then time the upgrade.
  const path = openCore().paths.database;
  const before = openDatabase(path, { migrations: BEFORE });
  before.pragma('cache_size = -262144');
  let t0 = performance.now();
  const built = buildJournal(before, EVENTS);
  before.close();
  const buildMs = performance.now() - t0;
  t0 = performance.now();
  const core = openCore();
  const db = (await sqliteStore(core)).db;
  const migrateMs = performance.now() - t0;
  console.log(
    `journal: ${EVENTS.toLocaleString('en')} events (${BUSY_AGENTS + 1} agents, ${built.tasks.toLocaleString('en')} tasks, ${built.contexts.toLocaleString('en')} contexts), ` +
      `${(statSync(path).size / 2 ** 20).toFixed(0)} MB, built in ${(buildMs / 1000).toFixed(1)} s; migrating v${BEFORE.length} → v${MIGRATIONS.length} took ${(migrateMs / 1000).toFixed(2)} s`,
  );

  const wide = built.sinceOf(Math.floor(EVENTS / 2));
  let met = 0;
  let total = 0;
  const count = (ok: boolean) => ((total += 1), (met += ok ? 1 : 0));
  for (const [flags, filter] of listCases(built)) {
    const f = { ...filter, limit: 50 };
    count(await report(db, `events list --limit 50 ${flags}`.trim(), toQuery(f), () => listJournal(core, f)));
  }
  // What `events tail` polls: the cursor taken, then 10 events written; each run reads those 10 from that cursor.
  const cursor = await journalEnd(core);
  const last = listEvents(db, { limit: 1 }).at(-1)!.sequence;
  db.transaction(() => tailEvents().forEach((e) => appendEvent(db, e)))();
  for (const [flags, filter] of tailCases(built)) {
    const label = `events tail ${flags}${flags ? ' ' : ''}(poll${flags ? '' : ', 10 new'})`;
    count(await report(db, label, { ...toQuery(filter), limit: 500, afterSequence: last }, async () => (await journalAfter(core, filter, cursor)).events));
  }
  console.log(`events list and tail queries under ${TARGET_MS} ms: ${met} of ${total}`);
  // For information: the first page of `events export` (1000 rows from the start; later pages start at their cursor).
  const page = (q: EventQuery) => async () => listEvents(db, { ...q, afterSequence: 0, limit: 1000 });
  await report(db, 'events export, first page', { afterSequence: 0, limit: 1000 }, page({}), false);
  await report(
    db,
    `events export --agent ${QUIET_AGENT}, first page`,
    { agentAlias: QUIET_AGENT, afterSequence: 0, limit: 1000 },
    page({ agentAlias: QUIET_AGENT }),
    false,
  );
  await report(db, 'events export --since <half ago>, first page', { since: wide, afterSequence: 0, limit: 1000 }, page({ since: wide }), false);
  core.close();

  // For information: the whole CLI process, start-up included, against this journal and an empty one.
  const empty = mkdtempSync(join(tmpdir(), 'missive-bench-journal-empty-'));
  try {
    console.log(
      `info: whole process \`missive events list --limit 50 --json\`: ${EVENTS.toLocaleString('en')} events ${cliWallMs(env, 50)}; empty journal ${cliWallMs({ ...env, MISSIVE_HOME: empty, HOME: empty }, 0)}`,
    );
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}

// For information: what the journal indexes cost an ingest.
{
  const tasks: TaskRow[] = [];
  const events = [...journalEvents(INGEST_EVENTS, (t) => tasks.push(t))];
  // Alternated, so both schemas see the same machine; CPU time is what other processes disturb least.
  const without: Array<{ wall: number; cpu: number }> = [];
  const withIndexes: typeof without = [];
  for (let i = 0; i < INGEST_ROUNDS; i++) {
    without.push(ingestMs(BEFORE, events, tasks));
    withIndexes.push(ingestMs(MIGRATIONS, events, tasks));
  }
  const change = (key: 'wall' | 'cpu') => {
    const [b, s] = [median(without.map((r) => r[key])), median(withIndexes.map((r) => r[key]))];
    return `${key} ${b.toFixed(0)} → ${s.toFixed(0)} ms (${((s / b - 1) * 100).toFixed(1)}%)`;
  };
  console.log(
    `info: ingest ${INGEST_EVENTS.toLocaleString('en')} events via appendEvent (${INGEST_PER_TRANSACTION} per transaction, fresh db), ` +
      `schema v${BEFORE.length} → v${MIGRATIONS.length}, medians of ${INGEST_ROUNDS}: ${change('cpu')}, ${change('wall')}`,
  );
}
