/**
 * Journal query benchmark. First the upgrade: a journal of EVENTS events as users have it (schema v13, every row
 * whole) is migrated to narrow update rows (v14), and the migration is timed. Then a journal of EVENTS events as v14
 * writes it (each update a narrow row, one run per agent and context per tick of 64 events: 16 streams of one process
 * sharing its ticks) in a temp MISSIVE_HOME: a few hundred agents, tens of thousands of tasks and contexts,
 * interleaved stream/send/subscription/push task scripts with the real event types and payloads of realistic size.
 * Every query `missive events list --limit 50` runs, unfiltered and for each filter and some combinations, and
 * `events tail`'s poll, is timed through the core functions the CLI calls, in process: its median of 20 runs, the ratio
 * against the target (50 ms up to 1,000,000 events, 200 ms beyond), and the query's EXPLAIN QUERY PLAN (with its runs'
 * when it reads narrow rows through them). For information: first `events export` pages, the whole
 * `missive events list --limit 50 --json` process against that journal and an empty one, and the cost of ingesting
 * 100,000 events of the mix as schema v13 wrote them and as v14 does.
 *
 *   npm run bench -- journal                           # 1,000,000 events
 *   node dist/bench/index.js journal 10000000 queries  # ten million: the journal as v14 writes it and its queries
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
import { appendEvent, eventQuerySql, eventRunsQuery, listEvents, type EventQuery } from '../electron/core/store/repos/events.js';
import { openDatabase, type Db } from '../electron/core/store/db.js';
import { MIGRATIONS } from '../electron/core/store/migrations/index.js';
import * as updateRuns from '../electron/core/store/migrations/0014-update-runs.js';
import { ALL_UPDATE_TYPES, runsSql } from '../electron/core/store/repos/event-runs.js';
import { median, ratioLine } from './_stats.js';
import {
  BUSY_AGENTS,
  insertJournalEvents,
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
/** `queries`: only the journal as v14 writes it and its queries (no upgrade, no load comparison): a ten-million run's hour. */
const QUERIES_ONLY = process.argv[3] === 'queries';
/** Each query's bound: 50 ms up to 1,000,000 events, 200 ms beyond (the issue-38 target at 10,000,000). */
const TARGET = EVENTS > 1_000_000 ? 200 : TARGET_MS;
const INGEST_EVENTS = 100_000;
const INGEST_ROUNDS = 4;
/** The schema before narrow update rows: the journal as users have it, whose upgrade is timed. */
const BEFORE_RUNS = MIGRATIONS.slice(
  0,
  MIGRATIONS.findIndex((m) => m.name === updateRuns.name),
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
function buildJournal(db: Db, count: number, narrowUpdates = false): BuiltJournal {
  seedAgents(db);
  const addTask = taskInserter(db);
  const tasks: TaskRow[] = [];
  const { start, step } = insertJournalEvents(
    db,
    count,
    (t) => {
      addTask(t);
      tasks.push(t);
    },
    { narrowUpdates },
  );
  const middle = tasks[Math.floor(tasks.length / 2)]!;
  return {
    eventCount: count,
    tasks: tasks.length,
    contexts: tasks.filter((t) => t.newContext).length,
    middle,
    sinceOf: (eventsAgo: number) => new Date(start + (count - eventsAgo) * step).toISOString(),
  };
}

const explain = (db: Db, sql: string, params: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');

/** The plan of the rows the query's index holds, and of its runs when it reads narrow rows through them (schema v14). */
const planOf = (db: Db, q: EventQuery) => {
  const { sql, params } = eventQuerySql(db, q);
  const runs = eventRunsQuery(db, q, ALL_UPDATE_TYPES);
  const plan = runs && runsSql(runs);
  const runsPlan = plan ? `; runs: ${explain(db, plan.sql, plan.params)}, each a rowid range` : '';
  return `${explain(db, sql, params)}${runsPlan}`;
};

/** Prints one query's line (its ratio to TARGET, or `info:` when the target is not its) and plan; true when met. */
async function report(db: Db, label: string, query: EventQuery, fn: () => Promise<unknown[]>, targeted = true): Promise<boolean> {
  const r = await time(fn);
  const figures = `[${r.ms.toFixed(2)} ms median, p95 ${r.p95.toFixed(2)} ms, ${r.rows} rows]`;
  console.log(targeted ? `${ratioLine(label, r.ms / TARGET, 1)}  ${figures}` : `info: ${label}  ${figures}`);
  console.log(`    plan: ${planOf(db, query)}`);
  return r.ms <= TARGET;
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

/**
 * Wall and CPU ms of loading `count` events of the mix into a fresh database at `migrations`' schema: as v13 writes
 * them (every row whole), or as v14 does (`narrowUpdates`: each update a narrow row, a run per agent and context of a
 * tick of 64 events).
 */
function ingestMs(migrations: typeof MIGRATIONS, count: number, narrowUpdates: boolean): { wall: number; cpu: number } {
  const dir = mkdtempSync(join(tmpdir(), 'missive-bench-ingest-'));
  const db = openDatabase(join(dir, 'm.sqlite3'), { migrations });
  try {
    seedAgents(db);
    const addTask = taskInserter(db);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    insertJournalEvents(db, count, addTask, { narrowUpdates });
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
// The upgrade: the journal as users have it (schema v13, every row whole), migrated to narrow update rows.
if (!QUERIES_ONLY) {
  const upgradeHome = mkdtempSync(join(tmpdir(), 'missive-bench-journal-upgrade-'));
  try {
    const path = join(upgradeHome, 'm.sqlite3');
    const before = openDatabase(path, { migrations: BEFORE_RUNS });
    before.pragma('cache_size = -262144');
    buildJournal(before, EVENTS);
    before.close();
    const t0 = performance.now();
    const marks: Array<[string, number]> = [];
    openDatabase(path, { onMigration: (p) => marks.push([p.label, performance.now()]) }).close();
    const end = performance.now();
    const steps = marks.map(([label, at], i) => `${label} ${(((marks[i + 1]?.[1] ?? end) - at) / 1000).toFixed(1)} s`);
    console.log(
      `journal upgrade: ${EVENTS.toLocaleString('en')} events, ${(statSync(path).size / 2 ** 20).toFixed(0)} MB; migrating v${BEFORE_RUNS.length} → v${MIGRATIONS.length} took ${((end - t0) / 1000).toFixed(2)} s (${steps.join('; ')})`,
    );
  } finally {
    rmSync(upgradeHome, { recursive: true, force: true });
  }
}

try {
  // The journal as schema v14 writes it (updates narrow rows, found through their runs); the queries are timed on it.
  const path = openCore().paths.database;
  const fresh = openDatabase(path);
  fresh.pragma('cache_size = -262144');
  const t0 = performance.now();
  const built = buildJournal(fresh, EVENTS, true);
  fresh.close();
  const buildMs = performance.now() - t0;
  const core = openCore();
  const db = (await sqliteStore(core)).db;
  const { narrow } = db.prepare(`SELECT count(*) AS narrow FROM events WHERE via_run = 1`).get() as { narrow: number };
  const { runs } = db.prepare(`SELECT count(*) AS runs FROM journal_runs`).get() as { runs: number };
  console.log(
    `journal: ${EVENTS.toLocaleString('en')} events (${BUSY_AGENTS + 1} agents, ${built.tasks.toLocaleString('en')} tasks, ${built.contexts.toLocaleString('en')} contexts; ` +
      `${narrow.toLocaleString('en')} narrow update rows in ${runs.toLocaleString('en')} runs), ${(statSync(path).size / 2 ** 20).toFixed(0)} MB, built in ${(buildMs / 1000).toFixed(1)} s`,
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
  console.log(`events list and tail queries under ${TARGET} ms: ${met} of ${total}`);
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

// For information: what narrow update rows save an ingest of the same events (the task and context rows included).
if (!QUERIES_ONLY) {
  // Alternated, so both schemas see the same machine; CPU time is what other processes disturb least.
  const whole: Array<{ wall: number; cpu: number }> = [];
  const narrow: typeof whole = [];
  for (let i = 0; i < INGEST_ROUNDS; i++) {
    whole.push(ingestMs(BEFORE_RUNS, INGEST_EVENTS, false));
    narrow.push(ingestMs(MIGRATIONS, INGEST_EVENTS, true));
  }
  const change = (key: 'wall' | 'cpu') => {
    const [b, s] = [median(whole.map((r) => r[key])), median(narrow.map((r) => r[key]))];
    return `${key} ${b.toFixed(0)} → ${s.toFixed(0)} ms (${((s / b - 1) * 100).toFixed(1)}%)`;
  };
  console.log(
    `info: load ${INGEST_EVENTS.toLocaleString('en')} events of the mix (20,000 per transaction, fresh db), ` +
      `schema v${BEFORE_RUNS.length} whole rows → v${MIGRATIONS.length} narrow update rows, medians of ${INGEST_ROUNDS}: ${change('cpu')}, ${change('wall')}`,
  );
}
