/**
 * The journal query benchmark on PostgreSQL (bench/journal.ts is SQLite's): builds the same journal of 1,000,000 events
 * (bench/_journal-mix.ts) in a new database on the server MISSIVE_BENCH_PG_URL names (a user that may create
 * databases; the database is dropped at the end), migrated by missive itself, then ANALYZEd (what autovacuum would
 * have done by then). Times the same 21 shapes, the 18 `events list --limit 50` queries and the 3 `events tail` polls
 * (each reading 10 new events from a cursor), through the core functions the CLI calls (`--store` the database), in
 * process. Each prints its median of 20 runs, the ratio against the 50 ms target, and its plan (EXPLAIN): a plan that
 * reads the whole journal (a sequential scan of events) counts as not met whatever its time. For information: first
 * `events export` pages, and what the writers pay for the tail's index (idx_events_xact).
 *
 *   MISSIVE_BENCH_PG_URL=postgres://user:pw@127.0.0.1:5432/postgres npm run bench -- journal-postgres
 *   MISSIVE_BENCH_PG_URL=… node dist/bench/index.js journal-postgres 200000   # another size
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { journalAfter, journalEnd, listJournal, toQuery, type EventFilter } from '../electron/core/events/journal.js';
import { afterSql, listSql, snapshotCursor } from '../electron/core/store/postgres/repos/journal-reads.js';
import type { Storage } from '../electron/core/store/storage.js';
import type { NewEvent } from '../electron/core/store/rows/events.js';
import { ratioLine } from './_stats.js';
import {
  agentName,
  BUSY_AGENTS,
  journalEvents,
  journalRow,
  listCases,
  QUIET_AGENT,
  SPAN_MS,
  tailCases,
  tailEvents,
  TARGET_MS,
  time,
  type BuiltJournal,
  type TaskRow,
} from './_journal-mix.js';

const EVENTS = Number(process.argv[2]) || 1_000_000;
const BATCH = 2000;
const INGEST_EVENTS = 10_000;
const INGEST_PER_TRANSACTION = 100;
const INGEST_ROUNDS = 4;

const adminUrl = process.env.MISSIVE_BENCH_PG_URL;
if (!adminUrl) {
  process.stderr.write('journal-postgres: set MISSIVE_BENCH_PG_URL to a PostgreSQL server (a user that may create databases)\n');
  process.exit(64);
}

/** `url` naming another database. */
const onDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

/** Inserts rows of `columns` from column arrays (one statement per BATCH rows). */
async function insertColumns(client: pg.Client, table: string, columns: string[], types: string[], rows: unknown[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    const arrays = columns.map((_, c) => batch.map((r) => r[c]));
    await client.query(`INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${types.map((t, n) => `$${n + 1}::${t}[]`).join(', ')})`, arrays);
  }
}

/**
 * Bulk-loads the journal: agents, then per batch (one transaction) the batch's new contexts and tasks and its events,
 * with timestamps over the last SPAN_MS.
 */
async function buildJournal(client: pg.Client, count: number): Promise<BuiltJournal> {
  await insertColumns(
    client,
    'agents',
    ['alias', 'base_url'],
    ['text', 'text'],
    [
      ...Array.from({ length: BUSY_AGENTS }, (_, i) => [agentName(i), `https://${agentName(i)}.agents.example.com`]),
      [QUIET_AGENT, 'https://quiet.example.com'],
    ],
  );
  const tasks: TaskRow[] = [];
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / count;
  const events = journalEvents(count, (t) => tasks.push(t));
  let flushedTasks = 0;
  for (let from = 0; from < count; from += BATCH * 10) {
    const rows: unknown[][] = [];
    for (let i = from; i < Math.min(from + BATCH * 10, count); i++) {
      rows.push(journalRow(events.next().value as NewEvent, new Date(start + i * step).toISOString()));
    }
    // The tasks (and new contexts) these events name, first.
    const fresh = tasks.slice(flushedTasks);
    flushedTasks = tasks.length;
    await client.query('BEGIN');
    await insertColumns(
      client,
      'contexts',
      ['context_id', 'agent_alias'],
      ['text', 'text'],
      fresh.filter((t) => t.newContext).map((t) => [t.contextId, t.agentAlias]),
    );
    await insertColumns(
      client,
      'tasks',
      ['task_id', 'agent_alias', 'context_id', 'state'],
      ['text', 'text', 'text', 'text'],
      fresh.map((t) => [t.taskId, t.agentAlias, t.contextId, 'completed']),
    );
    await insertColumns(
      client,
      'events',
      ['event_id', 'timestamp', 'source', 'event_type', 'agent_alias', 'context_id', 'task_id', 'dedupe_key', 'payload_json', 'metadata_json'],
      Array(10).fill('text'),
      rows,
    );
    await client.query('COMMIT');
  }
  return {
    eventCount: count,
    tasks: tasks.length,
    contexts: tasks.filter((t) => t.newContext).length,
    middle: tasks[Math.floor(tasks.length / 2)]!,
    sinceOf: (eventsAgo) => new Date(start + (count - eventsAgo) * step).toISOString(),
  };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Scan Direction'?: string;
  Filter?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** A plan in one line: each node, its index and direction, children in brackets. */
function planLine(node: PlanNode): string {
  const scan = node['Index Name']
    ? ` ${node['Scan Direction'] === 'Backward' ? 'backward ' : ''}using ${node['Index Name']}`
    : node['Relation Name']
      ? ` on ${node['Relation Name']}`
      : '';
  const children = node.Plans?.length ? ` [${node.Plans.map(planLine).join('; ')}]` : '';
  return `${node['Node Type']}${scan}${children}`;
}

const readsWholeJournal = (node: PlanNode): boolean =>
  (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'events') || !!node.Plans?.some(readsWholeJournal);

const home = mkdtempSync(join(tmpdir(), 'missive-bench-journal-pg-'));
const database = `missive_bench_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const url = onDatabase(adminUrl, database);
const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, MISSIVE_STORE_URL: url };
const core = createCore({ env, cwd: home, secrets: createMemorySecretStore() });
let client: pg.Client | undefined;
try {
  const storage: Storage = await core.storage();
  const schema = core.storeSelection.kind === 'postgres' ? core.storeSelection.schema : '';
  client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  const db = client;
  const settings = (
    await db.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('server_version', 'shared_buffers', 'work_mem', 'effective_cache_size', 'random_page_cost', 'jit', 'fsync')`,
    )
  ).rows;

  let t0 = performance.now();
  const built = await buildJournal(db, EVENTS);
  const buildMs = performance.now() - t0;
  t0 = performance.now();
  await db.query('VACUUM ANALYZE');
  const analyzeMs = performance.now() - t0;
  const size = (await db.query<{ s: string }>(`SELECT pg_size_pretty(pg_total_relation_size('events')) AS s`)).rows[0]!.s;
  console.log(
    `journal on PostgreSQL: ${EVENTS.toLocaleString('en')} events (${BUSY_AGENTS + 1} agents, ${built.tasks.toLocaleString('en')} tasks, ${built.contexts.toLocaleString('en')} contexts), events ${size} with its indexes, ` +
      `built in ${(buildMs / 1000).toFixed(1)} s, VACUUM ANALYZE ${(analyzeMs / 1000).toFixed(1)} s; ${settings.map((s) => `${s.name}=${s.setting}${s.unit ?? ''}`).join(' ')}`,
  );

  /** The plan of `sql` with `params`, in one line, and whether it reads the whole journal. */
  const explain = async (sql: string, params: unknown[]) => {
    const { rows } = await db.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
    return { line: planLine(plan), whole: readsWholeJournal(plan) };
  };

  /** Prints one shape's line and plan; true when under TARGET_MS and not reading the whole journal. */
  const report = async (label: string, statement: { sql: string; params: unknown[] }, fn: () => Promise<unknown[]>, targeted = true): Promise<boolean> => {
    const r = await time(fn);
    const plan = await explain(statement.sql, statement.params);
    const figures = `[${r.ms.toFixed(2)} ms median, p95 ${r.p95.toFixed(2)} ms, ${r.rows} rows]`;
    const ok = r.ms <= TARGET_MS && !plan.whole;
    console.log(
      targeted
        ? `${ratioLine(label, r.ms / TARGET_MS, 1)}${plan.whole ? ' (NOT met: reads the whole journal)' : ''}  ${figures}`
        : `info: ${label}  ${figures}`,
    );
    console.log(`    plan: ${plan.line}`);
    return ok;
  };

  let met = 0;
  let total = 0;
  const count = (ok: boolean) => ((total += 1), (met += ok ? 1 : 0));
  for (const [flags, filter] of listCases(built)) {
    const f = { ...filter, limit: 50 };
    count(await report(`events list --limit 50 ${flags}`.trim(), listSql(toQuery(f)), () => listJournal(core, f)));
  }
  // What `events tail` polls: the cursor taken, then 10 events written (one transaction); each run reads those 10.
  const cursor = await journalEnd(core);
  await storage.transaction(async (tx) => {
    for (const e of tailEvents()) await tx.journal.append(e);
  });
  const upTo = (await db.query<{ s: string }>('SELECT pg_current_snapshot()::text AS s')).rows[0]!.s;
  const poll = (filter: EventFilter) => {
    const { limit: _limit, ...filters } = toQuery(filter);
    return afterSql(filters, { seen: snapshotCursor(cursor).seen, upTo, after: 0 }, 500);
  };
  for (const [flags, filter] of tailCases(built)) {
    const label = `events tail ${flags}${flags ? ' ' : ''}(poll${flags ? '' : ', 10 new'})`;
    count(await report(label, poll(filter), async () => (await journalAfter(core, filter, cursor)).events));
  }
  console.log(`events list and tail queries under ${TARGET_MS} ms: ${met} of ${total}`);

  // For information: the first page of `events export` (1000 rows of the snapshot the export's first call takes).
  const firstPage = (filter: EventFilter) => {
    const { limit: _limit, ...filters } = toQuery(filter);
    return {
      statement: afterSql(filters, { seen: null, upTo, after: 0 }, 1000),
      run: async () => (await journalAfter(core, filter, storage.journalReads.start(), 1000)).events,
    };
  };
  for (const [flags, filter] of [
    ['', {}],
    [`--agent ${QUIET_AGENT}`, { agent: QUIET_AGENT }],
    ['--since <half ago>', { since: built.sinceOf(Math.floor(EVENTS / 2)) }],
  ] as Array<[string, EventFilter]>) {
    const page = firstPage(filter);
    await report(flags ? `events export ${flags}, first page` : 'events export, first page', page.statement, page.run, false);
  }

  // For information: what idx_events_xact costs the writers (appends through the journal writer, fresh rows each).
  const ingest = async (): Promise<number> => {
    const t = performance.now();
    for (let i = 0; i < INGEST_EVENTS; i += INGEST_PER_TRANSACTION) {
      await storage.transaction(async (tx) => {
        for (let j = 0; j < INGEST_PER_TRANSACTION; j++)
          await tx.journal.append({
            type: 'a2a.agent_card.not_modified',
            agentAlias: agentName(j),
            payload: { url: 'https://example.com/.well-known/agent-card.json', i, j },
          });
      });
    }
    return ((performance.now() - t) * 1000) / INGEST_EVENTS;
  };
  const withIndex: number[] = [];
  const without: number[] = [];
  // Alternated (with, without, without, with, …) so both see the same machine and a table of about the same size.
  for (let round = 0; round < INGEST_ROUNDS * 2; round++) {
    const indexed = round % 4 === 0 || round % 4 === 3;
    if (!indexed) await db.query('DROP INDEX IF EXISTS idx_events_xact');
    (indexed ? withIndex : without).push(await ingest());
    if (!indexed) await db.query('CREATE INDEX IF NOT EXISTS idx_events_xact ON events(xact_id)');
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `info: append ${INGEST_EVENTS.toLocaleString('en')} events through the journal writer (${INGEST_PER_TRANSACTION} per transaction), medians of ${INGEST_ROUNDS}: ` +
      `${mid(without).toFixed(0)} µs/event without idx_events_xact, ${mid(withIndex).toFixed(0)} µs/event with it (${((mid(withIndex) / mid(without) - 1) * 100).toFixed(1)}%)`,
  );
} finally {
  await client?.end().catch(() => undefined);
  core.close();
  // The pool closes in the background: the database is dropped WITH (FORCE) all the same.
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: Error) => console.error(`could not drop ${database}: ${error.message}`));
  await admin.end();
  rmSync(home, { recursive: true, force: true });
}
