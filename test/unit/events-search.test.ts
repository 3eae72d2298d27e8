/** Free-text search of the journal (events.query `search`): what it matches, literally, with the filters, on an index. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../electron/core/store/db.js';
import { appendEvent, eventQuerySql, listEvents, type EventQuery } from '../../electron/core/store/repos/events.js';
import { containsPattern } from '../../electron/core/store/rows/events.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry } from '../../electron/core/ipc/registry.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'missive-search-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A small journal: two agents, a context, a task, payloads with words, wildcards and a secret. */
function journal(): Db {
  const db = openDatabase(join(tempDir(), 'm.sqlite3'));
  for (const alias of ['alpha', 'beta']) db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias);
  db.prepare(`INSERT INTO contexts (context_id) VALUES ('ctx-Blue-42')`).run();
  appendEvent(db, { type: 'a2a.send.started', agentAlias: 'alpha', contextId: 'ctx-Blue-42', payload: { note: 'Quarterly Report draft' } });
  appendEvent(db, {
    type: 'a2a.send.completed',
    agentAlias: 'alpha',
    contextId: 'ctx-Blue-42',
    taskId: 'task-Green-7',
    payload: { text: 'progress is 100% done' },
  });
  appendEvent(db, { type: 'a2a.stream.status_update', agentAlias: 'beta', taskId: 'task-Green-7', payload: { text: 'file_name.txt written' } });
  appendEvent(db, { type: 'missive.agent.added', agentAlias: 'beta', payload: { text: 'filexname and 100 percent' } });
  appendEvent(db, {
    type: 'a2a.send.failed',
    agentAlias: 'beta',
    payload: { headers: { Authorization: 'Bearer topsecret-token-xyz' }, quote: 'he said "hi"', path: 'C:\\temp' },
  });
  return db;
}

const types = (db: Db, q: EventQuery) => listEvents(db, q).map((e) => e.type);

describe('events search', () => {
  it('matches a word of the payload, case-insensitively, and the type, agent, context and task ids', () => {
    const db = journal();
    expect(types(db, { search: 'quarterly report' })).toEqual(['a2a.send.started']);
    expect(types(db, { search: 'STATUS_UPDATE' })).toEqual(['a2a.stream.status_update']);
    expect(types(db, { search: 'ALPHA' })).toEqual(['a2a.send.started', 'a2a.send.completed']);
    expect(types(db, { search: 'blue-42' })).toEqual(['a2a.send.started', 'a2a.send.completed']);
    expect(types(db, { search: 'green-7' })).toEqual(['a2a.send.completed', 'a2a.stream.status_update']);
    expect(types(db, { search: 'no such words' })).toEqual([]);
    // Blank searches are no search.
    expect(listEvents(db, { search: '   ' })).toHaveLength(5);
    db.close();
  });

  it('takes % and _ literally, and matches quotes and backslashes as typed', () => {
    const db = journal();
    expect(types(db, { search: '100%' })).toEqual(['a2a.send.completed']);
    expect(types(db, { search: 'file_name' })).toEqual(['a2a.stream.status_update']);
    expect(types(db, { search: '%' })).toEqual(['a2a.send.completed']);
    expect(types(db, { search: 'said "hi"' })).toEqual(['a2a.send.failed']);
    expect(types(db, { search: 'C:\\temp' })).toEqual(['a2a.send.failed']);
    expect(containsPattern('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
    db.close();
  });

  it('never finds a secret: payloads are searched as stored, redacted', () => {
    const db = journal();
    expect(types(db, { search: 'topsecret' })).toEqual([]);
    expect(types(db, { search: 'Bearer [REDACTED]' })).toEqual(['a2a.send.failed']);
    db.close();
  });

  it('combines with the type, agent, context, task, cursor and limit filters', () => {
    const db = journal();
    expect(types(db, { search: '100', agentAlias: 'beta' })).toEqual(['missive.agent.added']);
    expect(types(db, { search: '100', type: 'a2a.send.completed' })).toEqual(['a2a.send.completed']);
    expect(types(db, { search: 'green', taskId: 'task-Green-7', agentAlias: 'beta' })).toEqual(['a2a.stream.status_update']);
    expect(types(db, { search: 'alpha', contextId: 'ctx-Blue-42', limit: 1 })).toEqual(['a2a.send.completed']);
    expect(types(db, { search: 'beta', afterSequence: 3 })).toEqual(['missive.agent.added', 'a2a.send.failed']);
    expect(types(db, { search: 'beta', afterSequence: 3, limit: 1 })).toEqual(['missive.agent.added']);
    db.close();
  });

  it('keeps every query on the index it used without a search', () => {
    const db = journal();
    const planOf = (q: EventQuery) => {
      const { sql, params } = eventQuerySql(db, q);
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
    };
    const queries: Array<[EventQuery, string]> = [
      [{ type: 'a2a.send.failed' }, 'idx_events_type'],
      [{ agentAlias: 'alpha' }, 'idx_events_agent'],
      [{ contextId: 'ctx-Blue-42' }, 'idx_events_context'],
      [{ taskId: 'task-Green-7', agentAlias: 'beta' }, 'idx_events_task'],
      [{ agentAlias: 'alpha', afterSequence: 1 }, 'idx_events_agent'],
    ];
    for (const [q, index] of queries) {
      const searched = planOf({ ...q, search: 'report' });
      expect(searched, JSON.stringify(q)).toBe(planOf(q));
      expect(searched, JSON.stringify(q)).toContain(`USING INDEX ${index} `);
    }
    // Unfiltered, a search walks back by sequence (no sort), so the limit ends the walk.
    expect(planOf({ search: 'report' })).toBe('SCAN events');
    expect(planOf({ search: 'report', afterSequence: 2 })).toBe('SEARCH events USING INTEGER PRIMARY KEY (rowid>?)');
    db.close();
  });

  it('is the search of events.query, through the IPC contract', async () => {
    const home = tempDir();
    const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
    const registry = createRegistry({ core, cwd: home, emit: () => undefined });
    try {
      const added = await registry.invoke('agents.add', { alias: 'searchable', baseUrl: 'http://127.0.0.1:9' });
      expect(added.ok).toBe(true);
      await registry.invoke('agents.add', { alias: 'other', baseUrl: 'http://127.0.0.1:9' });
      const found = await registry.invoke('events.query', { search: 'SEARCHABLE' });
      expect(found).toMatchObject({ ok: true, data: { events: [{ type: 'missive.agent.added', agentAlias: 'searchable' }] } });
      expect(found.ok && found.data.events).toHaveLength(1);
      const tooLong = await registry.invoke('events.query', { search: 'x'.repeat(257) });
      expect(tooLong).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_input' } });
    } finally {
      await registry.dispose();
      core.close();
    }
  });
});
