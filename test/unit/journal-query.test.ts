/** The journal's own filters (a type prefix, `--outcome failed`): what they keep, and that they never sort the journal. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../electron/core/store/db.js';
import { appendEvent } from '../../electron/core/store/repos/events.js';
import { parseTypeFilter } from '../../electron/core/events/journal-query.js';
import { journalEvents, journalQuerySql, type JournalQuery } from '../../electron/core/store/repos/journal-query.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function journal(): Db {
  const dir = mkdtempSync(join(tmpdir(), 'missive-jq-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'm.sqlite3'));
  db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('alpha', 'http://127.0.0.1:1')`).run();
  const add = (type: string, payload: unknown) => appendEvent(db, { type, agentAlias: 'alpha', payload });
  add('a2a.send.started', { note: 'failed_like_text is only text' });
  add('a2a.send.completed', { task: { state: 'completed' }, counts: { failed: 0 } });
  add('a2a.send.completed', { task: { state: 'failed' } });
  add('a2a.send_x.completed', { task: { state: 'failed' } });
  add('a2a.push.rejected', { status: 401 });
  add('a2a.push.status_update', { state: 'failed' });
  add('a2a.task.updated', { state: 'rejected' });
  add('a2a.task.updated', { state: 'working' });
  add('a2a.stream.completed', { state: 'failed' });
  add('missive.bcast.completed', { status: 'succeeded', counts: { failed: 0 } });
  add('missive.bcast.completed', { status: 'partial_failure' });
  add('missive.barrier.completed', { status: 'timeout' });
  add('missive.bcast.member.timeout', {});
  add('missive.barrier.member.error', {});
  add('missive.gateway.job.failed', {});
  return db;
}

const types = (db: Db, q: JournalQuery) => journalEvents(db, q).map((e) => `${e.sequence} ${e.type}`);

describe('journal filters', () => {
  it('--outcome failed keeps failed calls and runs, failed or rejected tasks and collectives that did not succeed', () => {
    const db = journal();
    expect(types(db, { outcome: 'failed', limit: 100 })).toEqual([
      '3 a2a.send.completed',
      '5 a2a.push.rejected',
      '7 a2a.task.updated',
      '9 a2a.stream.completed',
      '11 missive.bcast.completed',
      '12 missive.barrier.completed',
      '13 missive.bcast.member.timeout',
      '14 missive.barrier.member.error',
      '15 missive.gateway.job.failed',
    ]);
    expect(types(db, { outcome: 'failed', limit: 2 })).toEqual(['14 missive.barrier.member.error', '15 missive.gateway.job.failed']);
    expect(types(db, { outcome: 'failed', afterSequence: 5, limit: 2 })).toEqual(['7 a2a.task.updated', '9 a2a.stream.completed']);
    expect(types(db, { outcome: 'failed', typePrefix: 'a2a.', agentAlias: 'alpha', search: 'state' })).toEqual([
      '3 a2a.send.completed',
      '7 a2a.task.updated',
      '9 a2a.stream.completed',
    ]);
    db.close();
  });

  it('a type prefix matches literally: "_" and "%" are not wildcards', () => {
    const db = journal();
    expect(types(db, { typePrefix: 'a2a.send.' })).toEqual(['1 a2a.send.started', '2 a2a.send.completed', '3 a2a.send.completed']);
    expect(types(db, { typePrefix: 'a2a.send_' })).toEqual(['4 a2a.send_x.completed']);
    expect(types(db, { typePrefix: 'a2a.s%' })).toEqual([]);
    expect(parseTypeFilter('a2a.push.*')).toEqual({ prefix: 'a2a.push.' });
    expect(parseTypeFilter('a2a.push.status_update')).toEqual({ exact: 'a2a.push.status_update' });
    for (const bad of ['*', 'a2a*', 'a2a.*.failed', '.*']) expect(() => parseTypeFilter(bad), bad).toThrow(/prefix ending in/);
    db.close();
  });

  it("filters the rows of the store's plan in sequence order, never sorting the journal", () => {
    const db = journal();
    for (const q of [
      { outcome: 'failed' },
      { outcome: 'failed', agentAlias: 'alpha' },
      { typePrefix: 'a2a.' },
      { typePrefix: 'a2a.', afterSequence: 3 },
    ] as JournalQuery[]) {
      const { sql, params } = journalQuerySql(db, q);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan, JSON.stringify(q)).toMatch(/CO-ROUTINE/);
      expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });
});
