/**
 * The journal the journal benchmarks build (bench/journal.ts on SQLite, bench/journal-postgres.ts on PostgreSQL): the
 * same deterministic mix of events, and the same query shapes timed against it.
 */
import { randomUUID } from 'node:crypto';
import type { EventFilter } from '../electron/core/events/journal.js';
import { NARROW_SINCE_EVENTS } from '../electron/core/store/repos/events.js';
import { type NewEvent } from '../electron/core/store/rows/events.js';
import { extendRun, runKey, updateTypeBit, type UpdateRun } from '../electron/core/store/rows/update-runs.js';
import type { Db } from '../electron/core/store/db.js';
import { median, quantile } from './_stats.js';

export const BUSY_AGENTS = 299;
/** One more agent with only a few events spread over the whole journal: the worst case for an unindexed filter. */
export const QUIET_AGENT = 'agent-quiet';
const QUIET_EVENTS = 30;
/** The journal's events are spread over this span, ending now. */
export const SPAN_MS = 60 * 86_400_000;
export const TARGET_MS = 50;
const RUNS = 20;

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
export const agentName = (i: number) => `agent-${String(i).padStart(3, '0')}`;

export interface TaskRow {
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
    statusUpdate: {
      taskId,
      contextId,
      status: {
        state,
        timestamp: '2025-06-01T12:00:00.000Z',
        message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: LOREM.slice(0, 40 + Math.floor(rand() * 160)) }] },
      },
      final,
    },
  });
  const artifact = (i: number, extra: object = {}) => ({
    message_row: randomUUID(),
    ...extra,
    artifactUpdate: {
      taskId,
      contextId,
      artifact: { artifactId: `report-${i % 2}`, name: 'report.md', parts: [{ text: LOREM.slice(0, 80 + Math.floor(rand() * 1100)) }] },
      append: i > 0,
      lastChunk: false,
    },
  });
  const chunks = 5 + Math.floor(rand() * 21);
  const kind = rand();
  if (kind < 0.6) {
    yield {
      type: 'a2a.stream.started',
      agentAlias,
      contextId,
      payload: { message_id: messageId, interface: iface, parts: 1, bytes: 40 + Math.floor(rand() * 400), push_url: null },
    };
    yield {
      type: 'a2a.stream.task',
      ...on,
      payload: { message_row: randomUUID(), task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } } },
    };
    yield { type: 'a2a.stream.status_update', ...on, payload: status('TASK_STATE_WORKING', false) };
    for (let i = 0; i < chunks; i++) yield { type: 'a2a.stream.artifact_update', ...on, payload: artifact(i) };
    yield { type: 'a2a.stream.status_update', ...on, payload: status('TASK_STATE_COMPLETED', true) };
    yield {
      type: 'a2a.stream.completed',
      ...on,
      payload: { message_id: messageId, events: chunks + 3, counts: { task: 1, statusUpdate: 2, artifactUpdate: chunks }, state: 'completed' },
    };
  } else if (kind < 0.85) {
    yield {
      type: 'a2a.send.started',
      agentAlias,
      contextId,
      payload: { message_id: messageId, interface: iface, parts: 1, bytes: 40 + Math.floor(rand() * 400), push_url: null },
    };
    const task = {
      task_id: taskId,
      context_id: contextId,
      state: 'completed',
      remote_state: 'TASK_STATE_COMPLETED',
      artifacts: 1,
      text: LOREM.slice(0, 100 + Math.floor(rand() * 600)),
    };
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
  if (r < 0.3)
    return {
      type: 'a2a.agent_card.fetched',
      agentAlias,
      payload: { url, etag: `"${randomUUID()}"`, bytes: 1800 + Math.floor(rand() * 4000), protocol_versions: ['1.0'] },
    };
  if (r < 0.5) return { type: 'a2a.agent_card.not_modified', agentAlias, payload: { url } };
  if (r < 0.6)
    return {
      type: 'missive.agent.added',
      agentAlias,
      payload: { alias: agentAlias, base_url: url.replace('/.well-known/agent-card.json', ''), interface_urls: [], trusted_origins: [] },
    };
  if (r < 0.8)
    return {
      type: 'missive.bcast.member.succeeded',
      agentAlias,
      contextId,
      payload: { operation_id: randomUUID(), rank: Math.floor(rand() * 20), task_id: null, state: 'completed' },
    };
  if (r < 0.9)
    return { type: 'missive.gateway.job.succeeded', source: 'gateway', agentAlias, payload: { job_id: randomUUID(), state: 'completed', events: 12 } };
  return { type: 'missive.context.named', contextId, payload: { context_id: contextId, name: `thread-${Math.floor(rand() * 1e6)}` } };
}

/**
 * `count` journal events in order: 16 task scripts interleaved at a time, about 3% other events, and QUIET_AGENT's
 * few card checks spread evenly. Calls `onTask` before a task's first event so its rows can exist first.
 */
export function* journalEvents(count: number, onTask: (t: TaskRow) => void): Generator<NewEvent> {
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
    if (i % quietEvery === quietEvery - 1)
      yield { type: 'a2a.agent_card.not_modified', agentAlias: QUIET_AGENT, payload: { url: 'https://quiet.example.com/.well-known/agent-card.json' } };
    else if (rand() < 0.03) yield otherEvent(rand, busyAgent(), contextId);
    else {
      const slot = Math.floor(rand() * active.length);
      let next = active[slot]!.next();
      while (next.done) next = (active[slot] = startTask()).next();
      yield next.value;
    }
  }
}

/** What the builders return: ids and times to filter by. */
export interface BuiltJournal {
  eventCount: number;
  tasks: number;
  contexts: number;
  middle: TaskRow;
  /** The timestamp `eventsAgo` events before the end. */
  sinceOf(eventsAgo: number): string;
}

/** The 18 `events list --limit 50` shapes: unfiltered, each filter, some combinations (flags as printed, filter). */
export function listCases(built: BuiltJournal): Array<[string, EventFilter]> {
  const { middle } = built;
  const narrow = built.sinceOf(10);
  const wide = built.sinceOf(Math.floor(built.eventCount / 2));
  return [
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
}

/** The 3 `events tail` polls, each reading 10 new events from a cursor taken before them (flags as printed, filter). */
export function tailCases(built: BuiltJournal): Array<[string, EventFilter]> {
  const wide = built.sinceOf(Math.floor(built.eventCount / 2));
  return [
    ['', {}],
    [`--agent ${QUIET_AGENT}`, { agent: QUIET_AGENT }],
    ['--since <half ago>', { since: wide }],
  ];
}

/** The events a tail poll finds new: ten card checks of a busy agent. */
export const tailEvents = (): NewEvent[] =>
  Array.from({ length: 10 }, (_, i) => ({
    type: 'a2a.agent_card.not_modified',
    agentAlias: agentName(i),
    payload: { url: `https://${agentName(i)}.agents.example.com/.well-known/agent-card.json` },
  }));

/** Median and p95 of RUNS calls after one warm-up, in ms; and how many rows the call returned. */
export async function time(fn: () => Promise<unknown[]>): Promise<{ ms: number; p95: number; rows: number }> {
  const rows = (await fn()).length;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), p95: quantile(times, 0.95), rows };
}

/** The mix's agents (the busy ones and the quiet one) in a SQLite store's agents table, one transaction. */
export function seedAgents(db: Db): void {
  const insert = db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < BUSY_AGENTS; i++) insert.run(agentName(i), `https://${agentName(i)}.agents.example.com`);
    insert.run(QUIET_AGENT, 'https://quiet.example.com');
  })();
}

/**
 * Bulk-loads `count` events of the mix into a SQLite store's journal, 20,000 per transaction, with explicit timestamps
 * spread over the last SPAN_MS (`start`, `step` apart); `onTask` sees each task the mix starts.
 */
/** An event's columns as the benches' bulk loaders insert them (event id, time, source, type, agent, context, task, dedupe key, payload, metadata). */
export const journalRow = (e: NewEvent, at: string): unknown[] => [
  randomUUID(),
  at,
  e.source ?? 'cli',
  e.type,
  e.agentAlias ?? null,
  e.contextId ?? null,
  e.taskId ?? null,
  e.dedupeKey ?? null,
  JSON.stringify(e.payload ?? {}),
  JSON.stringify(e.metadata ?? {}),
];

export function insertJournalEvents(
  db: Db,
  count: number,
  onTask: (t: TaskRow) => void,
  options: { narrowUpdates?: boolean } = {},
): { start: number; step: number } {
  const insert = db.prepare(
    `INSERT INTO events (event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / count;
  const events = journalEvents(count, onTask);
  const write = options.narrowUpdates ? narrowWriter(db) : null;
  const chunk = db.transaction((n: number, from: number) => {
    for (let i = from; i < from + n; i++) {
      const event = events.next().value as NewEvent;
      const at = new Date(start + i * step).toISOString();
      if (write) write(event, at, i % TICK_EVENTS === TICK_EVENTS - 1 || i === from + n - 1);
      else insert.run(...journalRow(event, at));
    }
  });
  for (let i = 0; i < count; i += 20_000) chunk(Math.min(20_000, count - i), i);
  return { start, step };
}

/** Events per tick when the journal is written as schema v14 writes it: 16 streams of one process share each tick. */
const TICK_EVENTS = 64;

/**
 * The journal as schema v14 writes it: each update a narrow row (`via_run = 1`), and at the end of each tick of
 * TICK_EVENTS events one run per agent and context of its updates (journal_runs); other events whole rows.
 */
function narrowWriter(db: Db): (event: NewEvent, at: string, endOfTick: boolean) => void {
  const whole = db.prepare(
    `INSERT INTO events (event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const narrow = db.prepare(
    `INSERT INTO events (event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, via_run)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const run = db.prepare(
    `INSERT INTO journal_runs (last_sequence, first_sequence, agent_alias, context_id, types, update_count, last_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  /** The open tick's runs, each with the time of its last update. */
  let runs = new Map<string, { run: UpdateRun; at: string }>();
  return (event, at, endOfTick) => {
    if (updateTypeBit(event.type) === 0) whole.run(...journalRow(event, at));
    else {
      // Stored once: no message row beside it (the mix's updates name one, as versions before issue 23 wrote them).
      const { message_row: _row, ...payload } = event.payload as Record<string, unknown>;
      const sequence = Number(narrow.run(...journalRow({ ...event, payload }, at)).lastInsertRowid);
      const key = runKey(event.agentAlias, event.contextId);
      runs.set(key, { run: extendRun(runs.get(key)?.run ?? null, sequence, event), at });
    }
    if (!endOfTick) return;
    for (const { run: r, at: last } of runs.values()) run.run(r.last, r.first, r.agentAlias, r.contextId, r.types, r.count, last);
    runs = new Map();
  };
}
