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
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { journalAfter, latestSequence, listJournal, toQuery, type EventFilter } from '../electron/core/events/journal.js';
import { appendEvent, eventQuerySql, listEvents, NARROW_SINCE_EVENTS, type EventQuery, type NewEvent } from '../electron/core/store/repos/events.js';
import { openDatabase, type Db } from '../electron/core/store/db.js';
import { MIGRATIONS } from '../electron/core/store/migrations/index.js';
import * as journalIndexes from '../electron/core/store/migrations/0005-journal-indexes.js';
import { median, quantile, ratioLine } from './_stats.js';

const EVENTS = Number(process.argv[2]) || 1_000_000;
const BUSY_AGENTS = 299;
/** One more agent with only a few events spread over the whole journal: the worst case for an unindexed filter. */
const QUIET_AGENT = 'agent-quiet';
const QUIET_EVENTS = 30;
const SPAN_MS = 60 * 86_400_000;
const TARGET_MS = 50;
const RUNS = 20;
const INGEST_EVENTS = 100_000;
const INGEST_PER_TRANSACTION = 100;
const INGEST_ROUNDS = 4;
/** The schema before the journal indexes: the journal as users have it, and the ingest baseline. */
const BEFORE = MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.name === journalIndexes.name));

/** Deterministic PRNG (mulberry32): every run builds the same mix. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LOREM = 'The quarterly report shows revenue up in every region; the summary below lists the figures by product line. '.repeat(20);
const agentName = (i: number) => `agent-${String(i).padStart(3, '0')}`;

interface TaskRow {
  taskId: string;
  contextId: string;
  agentAlias: string;
  /** False when the task continues an earlier context (a multi-turn conversation). */
  newContext: boolean;
}

/** One task's events as the services journal them: a stream (60%), a send (25%), a subscription (10%) or push callbacks. */
function* taskEvents(rand: () => number, t: TaskRow): Generator<NewEvent> {
  const { taskId, contextId, agentAlias } = t;
  const on = { agentAlias, contextId, taskId };
  const messageId = randomUUID();
  const iface = { url: `https://${agentAlias}.agents.example.com/a2a/v1`, protocol_binding: 'HTTP+JSON', protocol_version: '1.0' };
  const status = (state: string, final: boolean, extra: object = {}) => ({
    message_row: randomUUID(),
    ...extra,
    statusUpdate: { taskId, contextId, status: { state, timestamp: '2025-06-01T12:00:00.000Z', message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: LOREM.slice(0, 40 + Math.floor(rand() * 160)) }] } }, final },
  });
  const artifact = (i: number, extra: object = {}) => ({
    message_row: randomUUID(),
    ...extra,
    artifactUpdate: { taskId, contextId, artifact: { artifactId: `report-${i % 2}`, name: 'report.md', parts: [{ text: LOREM.slice(0, 80 + Math.floor(rand() * 1100)) }] }, append: i > 0, lastChunk: false },
  });
  const chunks = 5 + Math.floor(rand() * 21);
  const kind = rand();
  if (kind < 0.6) {
    yield { type: 'a2a.stream.started', agentAlias, contextId, payload: { message_id: messageId, interface: iface, parts: 1, bytes: 40 + Math.floor(rand() * 400), push_url: null } };
    yield { type: 'a2a.stream.task', ...on, payload: { message_row: randomUUID(), task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } } } };
    yield { type: 'a2a.stream.status_update', ...on, payload: status('TASK_STATE_WORKING', false) };
    for (let i = 0; i < chunks; i++) yield { type: 'a2a.stream.artifact_update', ...on, payload: artifact(i) };
    yield { type: 'a2a.stream.status_update', ...on, payload: status('TASK_STATE_COMPLETED', true) };
    yield { type: 'a2a.stream.completed', ...on, payload: { message_id: messageId, events: chunks + 3, counts: { task: 1, statusUpdate: 2, artifactUpdate: chunks }, state: 'completed' } };
  } else if (kind < 0.85) {
    yield { type: 'a2a.send.started', agentAlias, contextId, payload: { message_id: messageId, interface: iface, parts: 1, bytes: 40 + Math.floor(rand() * 400), push_url: null } };
    const task = { task_id: taskId, context_id: contextId, state: 'completed', remote_state: 'TASK_STATE_COMPLETED', artifacts: 1, text: LOREM.slice(0, 100 + Math.floor(rand() * 600)) };
    yield { type: 'a2a.send.completed', ...on, payload: { message_id: messageId, response_shape: 'task', task } };
  } else if (kind < 0.95) {
    const source = 'gateway';
    yield { type: 'a2a.subscription.started', source, ...on, payload: { interface: iface } };
    let sequence = 0;
    const keyed = (payload: object) => ({ source, ...on, dedupeKey: `${taskId}:${sequence}`, payload: { sequence: sequence++, ...payload } });
    yield { type: 'a2a.subscription.status_update', ...keyed(status('TASK_STATE_WORKING', false)) };
    for (let i = 0; i < chunks / 2; i++) yield { type: 'a2a.subscription.artifact_update', ...keyed(artifact(i)) };
    yield { type: 'a2a.subscription.status_update', ...keyed(status('TASK_STATE_COMPLETED', true)) };
    yield { type: 'a2a.subscription.closed', source, ...on, payload: { events: sequence, state: 'completed' } };
  } else {
    const push = { source: 'webhook', ...on, metadata: { 'a2a.inbound_version': '1.0', 'a2a.dialect': 'v1' } };
    yield { type: 'a2a.push.status_update', ...push, payload: status('TASK_STATE_WORKING', false, { a2a_version: '1.0', dialect: 'v1' }) };
    yield { type: 'a2a.push.status_update', ...push, payload: status('TASK_STATE_COMPLETED', true, { a2a_version: '1.0', dialect: 'v1' }) };
  }
}

/** Registry, card, collective and gateway events that belong to no task: about 3% of the journal. */
function otherEvent(rand: () => number, agentAlias: string, contextId: string): NewEvent {
  const url = `https://${agentAlias}.agents.example.com/.well-known/agent-card.json`;
  const r = rand();
  if (r < 0.3) return { type: 'a2a.agent_card.fetched', agentAlias, payload: { url, etag: `"${randomUUID()}"`, bytes: 1800 + Math.floor(rand() * 4000), protocol_versions: ['1.0'] } };
  if (r < 0.5) return { type: 'a2a.agent_card.not_modified', agentAlias, payload: { url } };
  if (r < 0.6) return { type: 'missive.agent.added', agentAlias, payload: { alias: agentAlias, base_url: url.replace('/.well-known/agent-card.json', ''), interface_urls: [], trusted_origins: [] } };
  if (r < 0.8) return { type: 'missive.bcast.member.succeeded', agentAlias, contextId, payload: { operation_id: randomUUID(), rank: Math.floor(rand() * 20), task_id: null, state: 'completed' } };
  if (r < 0.9) return { type: 'missive.gateway.job.succeeded', source: 'gateway', agentAlias, payload: { job_id: randomUUID(), state: 'completed', events: 12 } };
  return { type: 'missive.context.named', contextId, payload: { context_id: contextId, name: `thread-${Math.floor(rand() * 1e6)}` } };
}

/**
 * `count` journal events in order: 16 task scripts interleaved at a time, about 3% other events, and QUIET_AGENT's
 * few card checks spread evenly. Calls `onTask` before a task's first event so its rows can exist first.
 */
function* journalEvents(count: number, onTask: (t: TaskRow) => void): Generator<NewEvent> {
  const rand = prng(42);
  const busyAgent = () => agentName(Math.floor(BUSY_AGENTS * rand() ** 2));
  let contextId = '';
  const startTask = () => {
    const newContext = !contextId || rand() < 0.4;
    if (newContext) contextId = randomUUID();
    const t = { taskId: randomUUID(), contextId, agentAlias: busyAgent(), newContext };
    onTask(t);
    return taskEvents(rand, t);
  };
  const active = Array.from({ length: 16 }, startTask);
  const quietEvery = Math.floor(count / QUIET_EVENTS);
  for (let i = 0; i < count; i++) {
    if (i % quietEvery === quietEvery - 1) yield { type: 'a2a.agent_card.not_modified', agentAlias: QUIET_AGENT, payload: { url: 'https://quiet.example.com/.well-known/agent-card.json' } };
    else if (rand() < 0.03) yield otherEvent(rand, busyAgent(), contextId);
    else {
      const slot = Math.floor(rand() * active.length);
      let next = active[slot]!.next();
      while (next.done) next = (active[slot] = startTask()).next();
      yield next.value;
    }
  }
}

function seedAgents(db: Db) {
  const insert = db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < BUSY_AGENTS; i++) insert.run(agentName(i), `https://${agentName(i)}.agents.example.com`);
    insert.run(QUIET_AGENT, 'https://quiet.example.com');
  })();
}

function taskInserter(db: Db) {
  const context = db.prepare(`INSERT INTO contexts (context_id, agent_alias) VALUES (?, ?)`);
  const task = db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id, state) VALUES (?, ?, ?, 'completed')`);
  return (t: TaskRow) => {
    if (t.newContext) context.run(t.contextId, t.agentAlias);
    task.run(t.taskId, t.agentAlias, t.contextId);
  };
}

/** Bulk-loads the journal with explicit timestamps over the last SPAN_MS; returns ids to filter by. */
function buildJournal(db: Db, count: number) {
  seedAgents(db);
  const addTask = taskInserter(db);
  const tasks: TaskRow[] = [];
  const insert = db.prepare(
    `INSERT INTO events (event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / count;
  const events = journalEvents(count, (t) => (addTask(t), tasks.push(t)));
  const chunk = db.transaction((n: number, from: number) => {
    for (let i = from; i < from + n; i++) {
      const e = events.next().value as NewEvent;
      insert.run(randomUUID(), new Date(start + i * step).toISOString(), e.source ?? 'cli', e.type, e.agentAlias ?? null, e.contextId ?? null, e.taskId ?? null, e.dedupeKey ?? null, JSON.stringify(e.payload ?? {}), JSON.stringify(e.metadata ?? {}));
    }
  });
  for (let i = 0; i < count; i += 20_000) chunk(Math.min(20_000, count - i), i);
  const middle = tasks[Math.floor(tasks.length / 2)]!;
  return { tasks: tasks.length, contexts: tasks.filter((t) => t.newContext).length, middle, sinceOf: (eventsAgo: number) => new Date(start + (count - eventsAgo) * step).toISOString() };
}

/** Median and p95 of RUNS calls after one warm-up, in ms; and how many rows the call returned. */
function time(fn: () => unknown[]): { ms: number; p95: number; rows: number } {
  const rows = fn().length;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), p95: quantile(times, 0.95), rows };
}

const planOf = (db: Db, q: EventQuery) => {
  const { sql, params } = eventQuerySql(db, q);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
};

/** Prints one query's line (its ratio to TARGET_MS, or `info:` when the target is not its) and plan; true when met. */
function report(db: Db, label: string, query: EventQuery, fn: () => unknown[], targeted = true): boolean {
  const r = time(fn);
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
  const db = core.store().db;
  const migrateMs = performance.now() - t0;
  console.log(
    `journal: ${EVENTS.toLocaleString('en')} events (${BUSY_AGENTS + 1} agents, ${built.tasks.toLocaleString('en')} tasks, ${built.contexts.toLocaleString('en')} contexts), ` +
      `${(statSync(path).size / 2 ** 20).toFixed(0)} MB, built in ${(buildMs / 1000).toFixed(1)} s; migrating v${BEFORE.length} → v${MIGRATIONS.length} took ${(migrateMs / 1000).toFixed(2)} s`,
  );

  const { middle } = built;
  const narrow = built.sinceOf(10);
  const wide = built.sinceOf(Math.floor(EVENTS / 2));
  const cases: Array<[string, EventFilter]> = [
    ['', {}],
    ['--type a2a.stream.artifact_update', { type: 'a2a.stream.artifact_update' }],
    ['--type missive.agent.added', { type: 'missive.agent.added' }],
    ['--agent agent-000', { agent: 'agent-000' }],
    [`--agent ${QUIET_AGENT}`, { agent: QUIET_AGENT }],
    ['--agent never-used', { agent: 'never-used' }],
    ['--context <mid-journal>', { context: middle.contextId }],
    ['--task <mid-journal>', { task: middle.taskId }],
    ['--since <10 events ago>', { since: narrow }],
    [`--since <${NARROW_SINCE_EVENTS} events ago>`, { since: built.sinceOf(NARROW_SINCE_EVENTS) }],
    [`--since <${NARROW_SINCE_EVENTS + 1} events ago>`, { since: built.sinceOf(NARROW_SINCE_EVENTS + 1) }],
    ['--since <half the journal ago>', { since: wide }],
    ['--agent agent-000 --type a2a.stream.status_update', { agent: 'agent-000', type: 'a2a.stream.status_update' }],
    [`--agent ${QUIET_AGENT} --type a2a.stream.status_update`, { agent: QUIET_AGENT, type: 'a2a.stream.status_update' }],
    ['--context <mid> --type a2a.stream.completed', { context: middle.contextId, type: 'a2a.stream.completed' }],
    ['--type missive.agent.added --since <half ago>', { type: 'missive.agent.added', since: wide }],
    [`--agent ${QUIET_AGENT} --since <half ago>`, { agent: QUIET_AGENT, since: wide }],
    ['--agent agent-000 --since <10 events ago>', { agent: 'agent-000', since: narrow }],
  ];
  let met = 0;
  let total = 0;
  const count = (ok: boolean) => ((total += 1), (met += ok ? 1 : 0));
  for (const [flags, filter] of cases) {
    const f = { ...filter, limit: 50 };
    count(report(db, `events list --limit 50 ${flags}`.trim(), toQuery(f), () => listJournal(core, f)));
  }
  // What `events tail` polls (from 10 events back).
  const latest = latestSequence(core);
  count(report(db, 'events tail (poll, 10 new)', { afterSequence: latest - 10, limit: 500 }, () => journalAfter(core, {}, latest - 10)));
  count(report(db, `events tail --agent ${QUIET_AGENT} (poll)`, { agentAlias: QUIET_AGENT, afterSequence: latest - 10, limit: 500 }, () => journalAfter(core, { agent: QUIET_AGENT }, latest - 10)));
  count(report(db, 'events tail --since <half ago> (poll)', { since: wide, afterSequence: latest - 10, limit: 500 }, () => journalAfter(core, { since: wide }, latest - 10)));
  console.log(`events list and tail queries under ${TARGET_MS} ms: ${met} of ${total}`);
  // For information: the first page of `events export` (1000 rows from the start; later pages start at their cursor).
  const page = (q: EventQuery) => () => listEvents(db, { ...q, afterSequence: 0, limit: 1000 });
  report(db, 'events export, first page', { afterSequence: 0, limit: 1000 }, page({}), false);
  report(db, `events export --agent ${QUIET_AGENT}, first page`, { agentAlias: QUIET_AGENT, afterSequence: 0, limit: 1000 }, page({ agentAlias: QUIET_AGENT }), false);
  report(db, 'events export --since <half ago>, first page', { since: wide, afterSequence: 0, limit: 1000 }, page({ since: wide }), false);
  core.close();

  // For information: the whole CLI process, start-up included, against this journal and an empty one.
  const empty = mkdtempSync(join(tmpdir(), 'missive-bench-journal-empty-'));
  try {
    console.log(`info: whole process \`missive events list --limit 50 --json\`: ${EVENTS.toLocaleString('en')} events ${cliWallMs(env, 50)}; empty journal ${cliWallMs({ ...env, MISSIVE_HOME: empty, HOME: empty }, 0)}`);
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
  for (let i = 0; i < INGEST_ROUNDS; i++) (without.push(ingestMs(BEFORE, events, tasks)), withIndexes.push(ingestMs(MIGRATIONS, events, tasks)));
  const change = (key: 'wall' | 'cpu') => {
    const [b, s] = [median(without.map((r) => r[key])), median(withIndexes.map((r) => r[key]))];
    return `${key} ${b.toFixed(0)} → ${s.toFixed(0)} ms (${((s / b - 1) * 100).toFixed(1)}%)`;
  };
  console.log(
    `info: ingest ${INGEST_EVENTS.toLocaleString('en')} events via appendEvent (${INGEST_PER_TRANSACTION} per transaction, fresh db), ` +
      `schema v${BEFORE.length} → v${MIGRATIONS.length}, medians of ${INGEST_ROUNDS}: ${change('cpu')}, ${change('wall')}`,
  );
}
