/**
 * `events.query` answers one bounded page (at most 250 events whatever `limit` asks), and `next` reads on, so no
 * call holds the desktop's main process for the whole journal (bench/journal-ipc.ts measures the time).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import type { Core } from '../../electron/core/handle.js';
import { openDatabase } from '../../electron/core/store/db.js';
import { eventQuerySql, type EventQuery } from '../../electron/core/store/repos/events.js';

const EVENTS = 4500;
/** Every 100th event says "needle" in its payload. */
const NEEDLES = EVENTS / 100;

describe('events.query pages', () => {
  const home = mkdtempSync(join(tmpdir(), 'missive-events-pages-'));
  let core: Core;
  let registry: Registry;
  type Answer = { events: Array<{ sequence: number; type: string }>; next?: { beforeSequence: number } | { afterSequence: number } };
  const query = async (input: Record<string, unknown>): Promise<Answer> => {
    const answer = await registry.invoke('events.query', input);
    if (!answer.ok) throw new Error(answer.error.message);
    return answer.data as Answer;
  };

  beforeAll(async () => {
    core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
    const storage = await core.storage();
    await storage.transaction(async (tx) => {
      for (let i = 0; i < EVENTS; i++) await tx.journal.append({ type: 'test.paged', payload: { i, text: i % 100 === 0 ? 'needle' : 'hay' } });
    });
    registry = createRegistry({ core, cwd: home, emit: () => undefined });
  });
  afterAll(async () => {
    await registry?.dispose();
    core?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('answers at most 250 events, the newest oldest first, and `next` walks back to the first event', async () => {
    const first = await query({ limit: 200_000 });
    expect(first.events).toHaveLength(250);
    expect(first.events.at(-1)!.sequence).toBe(EVENTS);
    expect(first.next).toEqual({ beforeSequence: first.events[0]!.sequence });
    const pages = [first.events];
    let next = first.next;
    for (let calls = 0; next && calls < 100; calls++) {
      const page = await query({ limit: 200_000, ...next });
      expect(page.events.length).toBeLessThanOrEqual(250);
      pages.unshift(page.events);
      next = page.next;
    }
    expect(next).toBeUndefined();
    expect(pages.flat().map((e) => e.sequence)).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
  });

  it('a search reads back through the journal, each match once; forward from a sequence too', async () => {
    const found: number[] = [];
    let next: Record<string, number> | undefined = {};
    for (let calls = 0; next && calls < 100; calls++) {
      const page: Answer = await query({ search: 'needle', limit: 10, ...next });
      found.unshift(...page.events.map((e) => e.sequence));
      next = page.next;
    }
    expect(found).toEqual(Array.from({ length: NEEDLES }, (_, i) => i * 100 + 1));

    const forward: number[] = [];
    next = { afterSequence: 0 };
    for (let calls = 0; next && calls < 100; calls++) {
      const page: Answer = await query({ search: 'needle', limit: 10, ...next });
      forward.push(...page.events.map((e) => e.sequence));
      next = page.next;
    }
    expect(forward).toEqual(found);
  });

  it("reads each window of a page by its filter's index over a range of sequences, the table by its key without one", () => {
    const db = openDatabase(core.paths.database, { readonly: true });
    try {
      const planOf = (q: EventQuery) => {
        const { sql, params } = eventQuerySql(db, q);
        return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
      };
      const window = { beforeSequence: 3000, fromSequence: 2000 };
      expect(planOf({ ...window, search: 'needle' })).toBe('SEARCH events USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
      expect(planOf({ afterSequence: 10, beforeSequence: 3000, search: 'needle' })).toBe('SEARCH events USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
      expect(planOf({ ...window, taskId: 't', agentAlias: 'a', search: 'needle' })).toBe(
        'SEARCH events USING INDEX idx_events_task (task_id=? AND sequence>? AND sequence<?)',
      );
      expect(planOf({ ...window, type: 'test.paged' })).toBe('SEARCH events USING INDEX idx_events_type (event_type=? AND sequence>? AND sequence<?)');
    } finally {
      db.close();
    }
  });

  it('refuses beforeSequence and afterSequence together, saying what to pass', async () => {
    const answer = await registry.invoke('events.query', { beforeSequence: 10, afterSequence: 2 });
    expect(answer).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_input', exit_code: 64 } });
  });
});
