import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openDatabase, SCHEMA_VERSION, appliedMigrations } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';
import { getAgent } from '../../electron/core/store/repos/agents.js';
import { appendEvent, listEvents } from '../../electron/core/store/repos/events.js';
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
    v1.prepare(`INSERT INTO artifacts (artifact_id, task_id, content_json) VALUES ('r', 't', ?)`).run(JSON.stringify({ artifactId: 'r', name: 'n', parts: [{ text: 'old' }] }));
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
    for (const t of ['agents', 'contexts', 'tasks', 'messages', 'artifacts', 'events', 'groups', 'group_members', 'auth_refs', 'push_configs', 'gateway_jobs', 'schema_migrations']) {
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
    const first = appendEvent(db, { type: 'x.test', dedupeKey: 'k1', payload: { headers: { Authorization: 'Bearer s3cret-value' }, note: 'has s3cret-value' } }, ['s3cret-value']);
    expect(first?.sequence).toBeGreaterThan(0);
    expect(appendEvent(db, { type: 'x.test', dedupeKey: 'k1' })).toBeNull();
    const [row] = listEvents(db, { type: 'x.test' });
    expect(JSON.stringify(row!.payload)).not.toContain('s3cret-value');
    expect(row!.payload).toEqual({ headers: { Authorization: 'Bearer [REDACTED]' }, note: 'has [REDACTED]' });
    db.close();
  });
});
