/**
 * Narrow update rows (schema v14): the updates a tick writes are indexed by task only, and the journal's other filters
 * find them through the tick's runs. Whatever the mix of narrow rows, whole rows and overlapping runs, every filter
 * (alone, combined, with a limit, a cursor, a type prefix, a search) returns what it means, computed from every row;
 * a context's thread, export and counts hold its narrow rows once; a failing write leaves neither its row nor its run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { tickValues } from '../../electron/core/store/sqlite/update-sink.js';
import { appendEvent, listEvents, type EventQuery, type EventRow } from '../../electron/core/store/repos/events.js';
import { journalEvents, type JournalQuery } from '../../electron/core/store/repos/journal-query.js';
import { ensureContext } from '../../electron/core/store/repos/conversation.js';
import { listContexts, contextRows } from '../../electron/core/store/repos/contexts.js';
import { taskFreeUpdatesOf, updatesOfContext } from '../../electron/core/store/repos/update-rows.js';
import { UPDATE_EVENT_TYPES } from '../../electron/core/store/rows/update-rows.js';
import type { NewEvent } from '../../electron/core/store/rows/events.js';
import { sqliteStorage } from '../../electron/core/store/sqlite/storage.js';
import type { TickValues } from '../../electron/core/store/storage.js';
import { applyUpdateSteps } from '../../electron/core/tasks/apply-update.js';
import { openDatabase, type MigrationProgress } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';

const AGENTS = ['a0', 'a1', 'a2'];
const CONTEXTS = ['c0', 'c1', 'c2'];
const TASKS = [null, 't0', 't1', 't2'];
const OTHER_TYPES = ['a2a.send.completed', 'x.other', 'x.fail.failed'];

/** A small deterministic generator, so a failure names a journal that can be written again. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function storeAt(): Store {
  const store = openStore(join(mkdtempSync(join(tmpdir(), 'missive-journal-runs-')), 'm.sqlite3'));
  for (const alias of AGENTS) store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias);
  for (const c of CONTEXTS) ensureContext(store.db, c, 'a0');
  return store;
}

/** The key an update's payload holds it under (`a2a.stream.status_update` → `statusUpdate`). */
const variantKey = (type: string) => type.slice(type.lastIndexOf('.') + 1).replace(/_(.)/g, (_, c: string) => c.toUpperCase());

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * TICKS ticks of a group writer, each holding narrow updates of random agents, contexts and tasks (so runs of one
 * tick overlap) and whole rows written in the same tick; between ticks, whole rows of any type in transactions of
 * their own, update types included (what a webhook's burst writes).
 */
async function fill(store: Store, ticks: number, seed: number): Promise<void> {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const writer = store.grouped();
  const tick = tickValues(writer, store.db);
  let n = 0;
  const event = (type: string): NewEvent => ({
    type,
    agentAlias: pick(AGENTS),
    contextId: next() < 0.1 ? null : pick(CONTEXTS),
    taskId: pick(TASKS),
    payload: { n: n++, text: `token ${n % 7}`, ...(UPDATE_EVENT_TYPES.includes(type) ? { [variantKey(type)]: { n } } : {}) },
  });
  for (let t = 0; t < ticks; t++) {
    const size = 1 + Math.floor(next() * 12);
    for (let i = 0; i < size; i++) {
      if (next() < 0.8) writer.write(() => tick.appendUpdate(event(pick(UPDATE_EVENT_TYPES))));
      else writer.write(() => appendEvent(store.db, event(pick(OTHER_TYPES))));
    }
    writer.flush();
    for (let i = Math.floor(next() * 3); i > 0; i--)
      store.transaction(() => appendEvent(store.db, event(next() < 0.5 ? pick(UPDATE_EVENT_TYPES) : pick(OTHER_TYPES))));
  }
  await turn();
}

/** Every row, read by a walk of the table (no index, no run). */
const everyRow = (store: Store): EventRow[] => listEvents(store.db, { afterSequence: 0, limit: 1_000_000 });

/** What a query means, computed from every row: the newest `limit` matches oldest first, or the first after the cursor. */
function expected(all: EventRow[], q: JournalQuery): EventRow[] {
  const text = q.search?.toLowerCase();
  const matches = all.filter(
    (e) =>
      (!q.type || e.type === q.type) &&
      (!q.typePrefix || e.type.startsWith(q.typePrefix)) &&
      (!q.outcome || e.type.endsWith('.failed')) &&
      (!q.agentAlias || e.agentAlias === q.agentAlias) &&
      (!q.taskId || e.taskId === q.taskId) &&
      (!q.contextId || e.contextId === q.contextId) &&
      (!q.since || e.timestamp >= q.since) &&
      (!text || JSON.stringify(e.payload).toLowerCase().includes(text) || e.type.includes(text)) &&
      (q.afterSequence === undefined || e.sequence > q.afterSequence) &&
      (q.beforeSequence === undefined || e.sequence < q.beforeSequence) &&
      (q.fromSequence === undefined || e.sequence >= q.fromSequence),
  );
  return q.afterSequence === undefined ? matches.slice(-(q.limit ?? 50)) : matches.slice(0, q.limit ?? 500);
}

function queries(all: EventRow[]): JournalQuery[] {
  const middle = all[Math.floor(all.length / 2)]!;
  const late = all[all.length - 40]!;
  const out: JournalQuery[] = [];
  for (const type of [undefined, 'a2a.stream.artifact_update', 'a2a.push.status_update', 'x.other'])
    for (const agentAlias of [undefined, 'a1'])
      for (const contextId of [undefined, 'c2'])
        for (const taskId of [undefined, 't1'])
          for (const since of [undefined, late.timestamp])
            for (const limit of [undefined, 3, 5000])
              for (const afterSequence of [undefined, middle.sequence]) out.push({ type, agentAlias, contextId, taskId, since, limit, afterSequence });
  for (const typePrefix of ['a2a.push.', 'a2a.stream.', 'x.'])
    for (const agentAlias of [undefined, 'a2'])
      for (const contextId of [undefined, 'c0'])
        out.push({ typePrefix, agentAlias, contextId, limit: 20 }, { typePrefix, agentAlias, afterSequence: middle.sequence });
  for (const agentAlias of ['a0', 'a1']) out.push({ agentAlias, outcome: 'failed', limit: 10 }, { agentAlias, search: 'token 3', limit: 10 });
  out.push({ contextId: 'c1', beforeSequence: middle.sequence, fromSequence: middle.sequence - 200, limit: 5000 });
  return out;
}

/** Every query of `queries(all)` answers what it means (`expected`), through the reader the CLI would use. */
function expectEveryQueryAnswered(store: Store, all: EventRow[]): void {
  for (const q of queries(all)) {
    const { typePrefix, outcome, search, ...base } = q;
    const got = typePrefix || outcome || search ? journalEvents(store.db, q) : listEvents(store.db, base as EventQuery);
    expect(
      got.map((e) => e.sequence),
      JSON.stringify(q),
    ).toEqual(expected(all, q).map((e) => e.sequence));
  }
}

describe('narrow update rows and their runs', () => {
  it('answers every filter with what it means, from narrow rows, whole rows and overlapping runs alike', async () => {
    const store = storeAt();
    await fill(store, 300, 7);
    const all = everyRow(store);
    const narrow = store.db.prepare(`SELECT count(*) AS n FROM events WHERE via_run = 1`).get() as { n: number };
    const runs = store.db.prepare(`SELECT count(*) AS n FROM journal_runs`).get() as { n: number };
    expect(narrow.n).toBeGreaterThan(all.length / 2);
    expect(runs.n).toBeGreaterThan(300);
    expectEveryQueryAnswered(store, all);
    store.close();
  });

  it("follows an agent's journal from a cursor inside a tick's run without repeating the rows up to the cursor", () => {
    const store = storeAt();
    const writer = store.grouped();
    const tick = tickValues(writer, store.db);
    for (let n = 0; n < 5; n++)
      writer.write(() => tick.appendUpdate({ type: 'a2a.stream.status_update', agentAlias: 'a1', contextId: 'c1', taskId: 't1', payload: { n } }));
    writer.flush();
    const sequences = everyRow(store).map((e) => e.sequence);
    for (const filter of [{ agentAlias: 'a1' }, { contextId: 'c1' }, { type: 'a2a.stream.status_update' }])
      expect(
        listEvents(store.db, { ...filter, afterSequence: sequences[2] }).map((e) => e.sequence),
        JSON.stringify(filter),
      ).toEqual(sequences.slice(3));
    store.close();
  });

  it('returns only matching rows, each once, when runs were forged or changed outside missive', async () => {
    const store = storeAt();
    await fill(store, 120, 5);
    const all = everyRow(store);
    const last = all.at(-1)!.sequence;
    // Runs that lie: one for a1 in c1 reaching from below the journal's start to past its end (every type, a huge
    // count), one for a2 in c0 over rows of every agent and context, and one with no type and no count.
    const forge = store.db.prepare(
      `INSERT INTO journal_runs (last_sequence, first_sequence, agent_alias, context_id, types, update_count) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    forge.run(last + 1_000_000, -5, 'a1', 'c1', 0x7fffffff, 2_000_000_000);
    forge.run(last + 1_000_001, 1, 'a2', 'c0', 0x7fffffff, 1);
    forge.run(last + 1_000_002, Math.floor(last / 2), 'a0', null, 0, 0);
    expectEveryQueryAnswered(store, all);
    store.close();
  });

  it("reads a context's thread, export and counts with its narrow rows, each once", async () => {
    const store = storeAt();
    await fill(store, 120, 11);
    const all = everyRow(store);
    const isUpdate = (e: EventRow) => UPDATE_EVENT_TYPES.includes(e.type);
    for (const c of CONTEXTS) {
      const events = all.filter((e) => e.contextId === c);
      expect(updatesOfContext(store.db, c).map((u) => u.row)).toEqual(events.filter(isUpdate).map((e) => e.sequence));
      expect(contextRows(store.db, c).events.map((e) => e.sequence)).toEqual(events.map((e) => e.sequence));
      const listed = listContexts(store.db, 10).find((row) => row.context_id === c)!;
      expect({ events: listed.events, messages: listed.messages }).toEqual({ events: events.length, messages: events.filter(isUpdate).length });
      for (const a of AGENTS)
        expect(taskFreeUpdatesOf(store.db, a, c).map((u) => u.row)).toEqual(
          events.filter((e) => isUpdate(e) && e.agentAlias === a && e.taskId === null).map((e) => e.sequence),
        );
    }
    store.close();
  });

  it('drops a failing write with its narrow row and its share of the run, keeping the rest of the tick', async () => {
    const store = storeAt();
    const writer = store.grouped();
    const tick = tickValues(writer, store.db);
    const update = (n: number): NewEvent => ({ type: 'a2a.stream.status_update', agentAlias: 'a1', contextId: 'c1', taskId: 't1', payload: { n } });
    writer.write(() => tick.appendUpdate(update(1)));
    expect(() =>
      writer.write(() => {
        tick.appendUpdate(update(2));
        throw new Error('the write fails after its update');
      }),
    ).toThrow(/fails/);
    writer.write(() => tick.appendUpdate(update(3)));
    writer.flush();
    const byAgent = listEvents(store.db, { agentAlias: 'a1' }).map((e) => (e.payload as { n: number }).n);
    expect(byAgent).toEqual([1, 3]);
    const [run] = store.db.prepare(`SELECT first_sequence, last_sequence, update_count FROM journal_runs`).all() as Array<Record<string, number>>;
    const rows = everyRow(store);
    expect(run).toEqual({ first_sequence: rows[0]!.sequence, last_sequence: rows[1]!.sequence, update_count: 2 });
    store.close();
  });

  it("journals a webhook burst's callbacks as narrow rows that every filter finds, one group at a time or alone after a failure", async () => {
    const store = storeAt();
    const storage = sqliteStorage(store);
    store.db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id, state) VALUES ('t1', 'a1', 'c1', 'working'), ('t2', 'a2', 'c1', 'working')`).run();
    const callback = (taskId: string, n: number) => (tick?: TickValues) =>
      applyUpdateSteps(
        { eventPrefix: 'a2a.push', source: 'webhook', alias: taskId === 't1' ? 'a1' : 'a2', protocolVersion: '1.0', metadata: {} },
        {
          variant: 'statusUpdate',
          payload: {
            taskId,
            contextId: 'c1',
            status: { state: 'TASK_STATE_WORKING', message: { messageId: `m${n}`, role: 'ROLE_AGENT', parts: [{ text: `${n}` }] } },
          },
        },
        tick,
      );
    // One burst of 20 callbacks of two tasks, then one whose group fails (a write throws): each goes again alone.
    await Promise.all(Array.from({ length: 20 }, (_, n) => storage.write(callback(n % 2 ? 't1' : 't2', n), 'burst')));
    const failing = storage.write(() => {
      throw new Error('refused');
    }, 'burst');
    await Promise.all([storage.write(callback('t1', 20), 'burst'), expect(failing).rejects.toThrow(/refused/), storage.write(callback('t2', 21), 'burst')]);
    const narrow = store.db.prepare(`SELECT count(*) AS n FROM events WHERE via_run = 1`).get() as { n: number };
    expect(narrow.n).toBe(22);
    const texts = (q: EventQuery) =>
      listEvents(store.db, { ...q, limit: 100 }).map(
        (e) => (e.payload as { statusUpdate: { status: { message: { parts: Array<{ text: string }> } } } }).statusUpdate.status.message.parts[0]!.text,
      );
    expect(texts({ agentAlias: 'a1' })).toEqual(['1', '3', '5', '7', '9', '11', '13', '15', '17', '19', '20']);
    expect(texts({ contextId: 'c1', type: 'a2a.push.status_update' })).toHaveLength(22);
    expect(updatesOfContext(store.db, 'c1')).toHaveLength(22);
    store.close();
  });

  it('reads a run by the range of its tick, and the runs of a filter by their index', async () => {
    const store = storeAt();
    await fill(store, 50, 3);
    const plan = (sql: string, ...params: unknown[]) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('; ');
    const { runRowsSql, runsSql } = await import('../../electron/core/store/repos/event-runs.js');
    const q = { runs: { agentAlias: 'a1', narrowSince: false, types: 1 }, rows: { where: ['+agent_alias = ?'], params: ['a1'] }, limit: 10, bounds: {} };
    expect(plan(runRowsSql(q, false), 1, 2, 'a1', 10)).toMatch(/SEARCH events USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    const runs = runsSql(q);
    expect(plan(runs.sql, ...runs.params)).toMatch(/USING INDEX idx_runs_agent/);
    const byContext = runsSql({ ...q, runs: { ...q.runs, contextId: 'c1' } });
    expect(plan(byContext.sql, ...byContext.params)).toMatch(/USING INDEX idx_runs_context/);
    store.close();
  });
});

describe('the upgrade to narrow update rows (schema v14)', () => {
  /** A journal written by schema v13, as users have it: whole rows of every kind, keys, actors, a counter past the last row. */
  function v13Journal(path: string): Array<Record<string, unknown>> {
    const db = openDatabase(path, { migrations: MIGRATIONS.slice(0, 13) });
    db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('a0', 'http://127.0.0.1:1')`).run();
    db.prepare(`INSERT INTO contexts (context_id, agent_alias) VALUES ('c0', 'a0')`).run();
    const insert = db.prepare(
      `INSERT INTO events (event_id, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, actor_host, actor_user, actor_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < 300; i++) {
        const type = i % 3 === 0 ? 'a2a.stream.artifact_update' : i % 3 === 1 ? 'a2a.subscription.status_update' : 'a2a.send.completed';
        insert.run(
          `e${i}`,
          i % 2 ? 'cli' : 'gateway',
          type,
          'a0',
          i % 5 ? 'c0' : null,
          `t${i % 7}`,
          i % 4 ? null : `k${i}`,
          JSON.stringify({ i }),
          '{"m":1}',
          'h',
          'u',
          `cli:${i}`,
        );
      }
      // The counter ran past the last row (an insert rolled back after taking a number): the next event must not reuse it.
      db.prepare(`UPDATE sqlite_sequence SET seq = seq + 5 WHERE name = 'events'`).run();
    })();
    const rows = db.prepare(`SELECT * FROM events ORDER BY sequence`).all() as Array<Record<string, unknown>>;
    db.close();
    return rows;
  }

  it('keeps every row, sequence and column of a v13 journal, and the counter, saying where it is', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'missive-journal-v14-')), 'm.sqlite3');
    const before = v13Journal(path);
    const progress: MigrationProgress[] = [];
    const db = openDatabase(path, { onMigration: (p) => progress.push(p) });
    const after = db.prepare(`SELECT * FROM events ORDER BY sequence`).all() as Array<Record<string, unknown>>;
    expect(after).toEqual(before.map((row) => ({ ...row, via_run: null })));
    // Every old row stays whole: each filter reads it from its index as before.
    expect(listEvents(db, { contextId: 'c0', limit: 1000 }).map((e) => e.sequence)).toEqual(before.filter((r) => r.context_id === 'c0').map((r) => r.sequence));
    expect(listEvents(db, { type: 'a2a.stream.artifact_update', limit: 1000 })).toHaveLength(100);
    const next = appendEvent(db, { type: 'x.after' })!;
    expect(next.sequence).toBe(Number(before.at(-1)!.sequence) + 6);
    expect(progress.map((p) => [p.version, p.step, p.steps])).toEqual(progress.map((_, i) => [14, i + 1, progress.length]));
    expect(progress[0]!.label).toBe("copying the journal's events into their new table");
    db.close();
  });

  it('says nothing while it creates a new store', () => {
    const progress: MigrationProgress[] = [];
    openDatabase(join(mkdtempSync(join(tmpdir(), 'missive-journal-v14-')), 'm.sqlite3'), { onMigration: (p) => progress.push(p) }).close();
    expect(progress).toEqual([]);
  });
});
