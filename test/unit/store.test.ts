import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openDatabase, SCHEMA_VERSION, appliedMigrations, type Db } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';
import { getAgent } from '../../electron/core/store/repos/agents.js';
import {
  appendEvent,
  eventQuerySql,
  eventRowOf,
  listEvents,
  NARROW_SINCE_EVENTS,
  type EventQuery,
  type RawEvent,
} from '../../electron/core/store/repos/events.js';
import { type EventRow } from '../../electron/core/store/rows/events.js';
import { openStore } from '../../electron/core/store/store.js';
import { getArtifact, writeArtifact } from '../../electron/core/store/repos/conversation.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'missive-store-')), 'm.sqlite3');

describe('store', () => {
  it('group-commits batched writes in one transaction, rolling back only the failing one', async () => {
    const store = openStore(dbPath());
    const insert = (alias: string) => () => store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias).changes;
    const results = await Promise.allSettled([store.batch(insert('a')), store.batch(insert('a')), store.batch(insert('b'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(store.db.prepare(`SELECT alias FROM agents ORDER BY alias`).all()).toEqual([{ alias: 'a' }, { alias: 'b' }]);
    const pending = store.batch(insert('c'));
    store.close();
    await expect(pending).resolves.toBe(1);
  });

  it('moves v1 artifact parts into chunks when migrating to v2, and appends chunk by chunk', () => {
    const path = dbPath();
    const v1 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 1) });
    v1.prepare(`INSERT INTO agents (alias, base_url) VALUES ('a', 'http://127.0.0.1:1')`).run();
    v1.prepare(`INSERT INTO tasks (task_id, agent_alias) VALUES ('t', 'a')`).run();
    v1.prepare(`INSERT INTO artifacts (artifact_id, task_id, content_json) VALUES ('r', 't', ?)`).run(
      JSON.stringify({ artifactId: 'r', name: 'n', parts: [{ text: 'old' }] }),
    );
    v1.close();
    const db = openDatabase(path);
    expect(getArtifact(db, 't', 'r')?.content).toEqual({ artifactId: 'r', name: 'n', parts: [{ text: 'old' }] });
    const base = { artifactId: 'r', taskId: 't', contextId: null, name: 'n', mimeType: null, kind: 'text' as const };
    expect(writeArtifact(db, { ...base, content: { artifactId: 'r', parts: [{ text: ' new' }] }, mode: 'append', lastChunk: true })).toBe(2);
    expect(getArtifact(db, 't', 'r')).toMatchObject({ version: 2, last_chunk: true, content: { parts: [{ text: 'old' }, { text: ' new' }] } });
    // A snapshot equal to what is stored keeps the version; a different one replaces every chunk.
    expect(writeArtifact(db, { ...base, content: { artifactId: 'r', name: 'n', parts: [{ text: 'old' }, { text: ' new' }] } })).toBe(2);
    expect(writeArtifact(db, { ...base, content: { artifactId: 'r', name: 'n', parts: [{ text: 'final' }] } })).toBe(3);
    expect(getArtifact(db, 't', 'r')?.content.parts).toEqual([{ text: 'final' }]);
    db.close();
  });

  it('keeps v2 agents and their cached cards when migrating to v3: no trusted origins, cross-origin calls off', () => {
    const path = dbPath();
    const v2 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 2) });
    v2.prepare(`INSERT INTO agents (alias, base_url, agent_card_json) VALUES ('a', 'http://127.0.0.1:1', '{"name":"A"}')`).run();
    v2.close();
    const db = openDatabase(path);
    expect(getAgent(db, 'a')).toMatchObject({ trustedOrigins: [], allowCrossOriginAuth: false, card: { json: { name: 'A' }, url: null } });
    expect(() => db.prepare(`UPDATE agents SET trusted_origins_json = '{}' WHERE alias = 'a'`).run()).toThrow(/CHECK constraint/);
    db.close();
  });

  it('creates every schema v1 table with WAL and foreign keys on', () => {
    const db = openDatabase(dbPath());
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type='table'`).all() as { name: string }[]).map((t) => t.name);
    for (const t of [
      'agents',
      'contexts',
      'tasks',
      'messages',
      'artifacts',
      'events',
      'groups',
      'group_members',
      'auth_refs',
      'push_configs',
      'gateway_jobs',
      'schema_migrations',
    ]) {
      expect(tables).toContain(t);
    }
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('applies migrations once and verifies their checksums on every open', () => {
    const path = dbPath();
    openDatabase(path).close();
    const again = openDatabase(path);
    expect(appliedMigrations(again)).toHaveLength(MIGRATIONS.length);
    again.close();
    const edited = MIGRATIONS.map((m) => ({ ...m, sql: `${m.sql}\n-- edited` }));
    expect(() => openDatabase(path, { migrations: edited })).toThrow(/was changed after it was applied/);
  });

  it('refuses a database from a newer missive', () => {
    const path = dbPath();
    openDatabase(path).close();
    const raw = new Database(path);
    raw.prepare(`INSERT INTO schema_migrations (version, name, checksum) VALUES (99, 'future', 'x')`).run();
    raw.close();
    try {
      openDatabase(path);
      throw new Error('should have refused');
    } catch (error) {
      expect((error as { exitCode: number }).exitCode).toBe(75);
      expect((error as Error).message).toMatch(/schema version 99 is newer/);
    }
  });

  it('enforces constraints: JSON columns and task states', () => {
    const db = openDatabase(dbPath());
    expect(() => db.prepare(`INSERT INTO agents (alias, base_url, tags_json) VALUES ('a','http://x','not json')`).run()).toThrow(/CHECK/);
    db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('a','http://x')`).run();
    expect(() => db.prepare(`INSERT INTO tasks (task_id, agent_alias, state) VALUES ('t','a','exploded')`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO tasks (task_id, agent_alias) VALUES ('t','ghost')`).run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('journals redacted payloads and dedupes on a stable key', () => {
    const db = openDatabase(dbPath());
    const first = appendEvent(
      db,
      { type: 'x.test', dedupeKey: 'k1', payload: { headers: { Authorization: 'Bearer s3cret-value' }, note: 'has s3cret-value' } },
      ['s3cret-value'],
    );
    expect(first?.sequence).toBeGreaterThan(0);
    expect(appendEvent(db, { type: 'x.test', dedupeKey: 'k1' })).toBeNull();
    const [row] = listEvents(db, { type: 'x.test' });
    expect(JSON.stringify(row!.payload)).not.toContain('s3cret-value');
    expect(row!.payload).toEqual({ headers: { Authorization: 'Bearer [REDACTED]' }, note: 'has [REDACTED]' });
    db.close();
  });
});

const JOURNAL_ROWS = 5000;
const minute = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
/** Row i's time: one a minute, but the clock steps back an hour at row 3000 (timestamps need not follow sequences). */
const stamp = (i: number) => minute(i >= 3000 ? i - 60 : i);

/** Journal rows over 5 agents (a4 rare, some rows none), 50 tasks of 100 rows, 10 contexts and 3 types (x.rare rare). */
function fillJournal(db: Db) {
  const agent = (i: number) => (i % 11 === 0 ? null : i % 97 === 0 ? 'a4' : `a${i % 4}`);
  const task = (i: number) => (i % 13 === 0 ? null : `t${Math.floor(i / 100)}`);
  db.transaction(() => {
    for (let a = 0; a < 5; a++) db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(`a${a}`);
    for (let c = 0; c < 10; c++) db.prepare(`INSERT INTO contexts (context_id) VALUES (?)`).run(`c${c}`);
    for (let t = 0; t < 50; t++) db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id) VALUES (?, 'a0', ?)`).run(`t${t}`, `c${Math.floor(t / 5)}`);
    const insert = db.prepare(
      `INSERT INTO events (event_id, timestamp, event_type, agent_alias, context_id, task_id, payload_json) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < JOURNAL_ROWS; i++) {
      const type = i % 50 === 0 ? 'x.rare' : i % 3 ? 'x.chunk' : 'x.status';
      insert.run(`e${i}`, stamp(i), type, agent(i), task(i) && `c${Math.floor(i / 500)}`, task(i), JSON.stringify({ i }));
    }
  })();
}

/** Every combination of filters, limits and cursors; the `since`s pick both plans, some across the clock step. */
function journalQueries(): EventQuery[] {
  const sinces = [undefined, stamp(4970), stamp(2980), stamp(2960), stamp(1000), minute(JOURNAL_ROWS * 2)];
  const queries: EventQuery[] = [];
  for (const type of [undefined, 'x.chunk', 'x.rare'])
    for (const agentAlias of [undefined, 'a1', 'a4', 'nobody'])
      for (const taskId of [undefined, 't30'])
        for (const contextId of [undefined, 'c6'])
          for (const since of sinces)
            for (const limit of [undefined, 7])
              for (const afterSequence of [undefined, 2500]) queries.push({ type, agentAlias, taskId, contextId, since, limit, afterSequence });
  return queries;
}

/** What `listEvents` means, computed from all rows: the newest `limit` matches oldest first, or the first after the cursor. */
function expectedEvents(all: EventRow[], q: EventQuery): EventRow[] {
  const matches = all.filter(
    (e) =>
      (!q.type || e.type === q.type) &&
      (!q.agentAlias || e.agentAlias === q.agentAlias) &&
      (!q.taskId || e.taskId === q.taskId) &&
      (!q.contextId || e.contextId === q.contextId) &&
      (!q.since || e.timestamp >= q.since) &&
      (q.afterSequence === undefined || e.sequence > q.afterSequence),
  );
  return q.afterSequence === undefined ? matches.slice(-(q.limit ?? 50)) : matches.slice(0, q.limit ?? 500);
}

const planOf = (db: Db, q: EventQuery) => {
  const { sql, params } = eventQuerySql(db, q);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
};

describe('journal queries', () => {
  it('indexes a v3 journal by agent when migrating, and every filter returns what it did and what it means', () => {
    const path = dbPath();
    const v3 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 3) });
    fillJournal(v3);
    const queries = journalQueries();
    // What the v3 journal held, read as rows (today's reads need today's schema).
    const before = (v3.prepare(`SELECT * FROM events ORDER BY sequence`).all() as RawEvent[]).map((r) => eventRowOf({ ...r, actor_id: null }));
    v3.close();
    const db = openDatabase(path);
    expect(db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'idx_events_agent'`).get()).toEqual({
      sql: 'CREATE INDEX idx_events_agent ON events(agent_alias, sequence) WHERE via_run IS NULL',
    });
    const all = listEvents(db, { afterSequence: 0, limit: JOURNAL_ROWS });
    expect(all).toEqual(before);
    queries.forEach((q) => {
      expect(listEvents(db, q), JSON.stringify(q)).toEqual(expectedEvents(all, q));
    });
    db.close();
  });

  it('reads every filter through its index and stops at the limit', () => {
    const db = openDatabase(dbPath());
    fillJournal(db);
    const narrow = stamp(4970);
    const wide = stamp(1000);
    expect(listEvents(db, { since: narrow, limit: JOURNAL_ROWS })).toHaveLength(30);
    expect(listEvents(db, { since: wide, limit: JOURNAL_ROWS }).length).toBeGreaterThan(NARROW_SINCE_EVENTS);
    const indexed: Array<[EventQuery, string]> = [
      [{ type: 'x.rare' }, 'idx_events_type'],
      [{ agentAlias: 'a1' }, 'idx_events_agent'],
      [{ contextId: 'c6' }, 'idx_events_context'],
      [{ taskId: 't30' }, 'idx_events_task'],
      [{ since: narrow }, 'idx_events_timestamp'],
      [{ agentAlias: 'a1', type: 'x.rare' }, 'idx_events_agent'],
      [{ taskId: 't30', agentAlias: 'a1', contextId: 'c6', type: 'x.chunk' }, 'idx_events_task'],
      [{ agentAlias: 'a1', since: narrow }, 'idx_events_timestamp'],
      [{ agentAlias: 'a1', since: wide }, 'idx_events_agent'],
      [{ agentAlias: 'a1', afterSequence: 2500 }, 'idx_events_agent'],
    ];
    for (const [q, index] of indexed) {
      const plan = planOf(db, q);
      expect(plan, JSON.stringify(q)).toContain(`USING INDEX ${index} `);
      expect(plan, JSON.stringify(q)).not.toMatch(/SCAN events/);
    }
    // Unfiltered, or a `since` most of the journal matches: walk back by sequence, no sort, so the limit ends the walk.
    for (const q of [{}, { since: wide }]) expect(planOf(db, q), JSON.stringify(q)).toBe('SCAN events');
    expect(planOf(db, { afterSequence: 2500 })).toBe('SEARCH events USING INTEGER PRIMARY KEY (rowid>?)');
    db.close();
  });
});
