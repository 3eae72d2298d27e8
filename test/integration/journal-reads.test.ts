/**
 * The journal's reads on both stores: `events list|tail|export` and `logs --source event-journal` give the same
 * answers on SQLite and on PostgreSQL, and on PostgreSQL `events tail` shows an event whose transaction commits after
 * a later-numbered one's (sequences are not commit-ordered there) exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/program.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import type { NewEvent } from '../../electron/core/store/rows/events.js';
import type { JournalFilters, JournalPageStart, Storage } from '../../electron/core/store/storage.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { sqliteStore } from '../support/sqlite-store.js';

/** The fixture journal, in order: every filter below picks a known part of it. */
const FIXTURE: NewEvent[] = [
  { type: 'a2a.send.started', agentAlias: 'alpha', contextId: 'ctx-1', payload: { note: 'failed_like_text is only text' } },
  { type: 'a2a.send.completed', agentAlias: 'alpha', contextId: 'ctx-1', taskId: 't-1', payload: { task: { state: 'completed' }, counts: { failed: 0 } } },
  { type: 'a2a.send.completed', agentAlias: 'alpha', contextId: 'ctx-1', taskId: 't-2', payload: { task: { state: 'failed' } } },
  { type: 'a2a.send_x.completed', agentAlias: 'beta', payload: { task: { state: 'failed' } } },
  { type: 'a2a.push.rejected', agentAlias: 'beta', payload: { status: 401 } },
  { type: 'a2a.push.status_update', agentAlias: 'beta', taskId: 't-2', payload: { state: 'failed', text: 'Quarterly "Report" ÉTÉ up 100%' } },
  { type: 'a2a.task.updated', agentAlias: 'alpha', payload: { state: 'rejected' } },
  { type: 'a2a.task.updated', agentAlias: 'alpha', payload: { state: 'working' } },
  { type: 'a2a.stream.completed', agentAlias: 'alpha', contextId: 'ctx-2', payload: { state: 'failed' } },
  { type: 'missive.bcast.completed', payload: { status: 'succeeded', counts: { failed: 0 } } },
  { type: 'missive.bcast.completed', payload: { status: 'partial_failure' } },
  // A NUL escape: SQLite's json_extract reads it; PostgreSQL's json operators refuse it (json_text_path copes).
  { type: 'missive.barrier.completed', payload: { status: 'timeout', note: 'a\u0000b' } },
  { type: 'missive.bcast.member.timeout', payload: {} },
  { type: 'missive.barrier.member.error', payload: {} },
  { type: 'missive.gateway.job.failed', payload: {} },
];

const FAILED = [
  'a2a.send.completed',
  'a2a.push.rejected',
  'a2a.task.updated',
  'a2a.stream.completed',
  'missive.bcast.completed',
  'missive.barrier.completed',
  'missive.bcast.member.timeout',
  'missive.barrier.member.error',
  'missive.gateway.job.failed',
];

interface Listed {
  sequence: number;
  type: string;
  agent: string | null;
  task_id: string | null;
  context_id: string | null;
  timestamp: string;
}

describe.each<StoreKindUnderTest>(STORES)('the journal on %s', (kind) => {
  let store: StoreUnderTest;
  let box: Sandbox;
  let core: Core;
  let storage: Storage;

  beforeAll(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
    storage = await core.storage();
    expect(storage.kind).toBe(kind);
    // events.context_id references contexts (both stores).
    if (kind === 'sqlite') for (const id of ['ctx-1', 'ctx-2']) (await sqliteStore(core)).db.prepare(`INSERT INTO contexts (context_id) VALUES (?)`).run(id);
    else await withClient(store.env.MISSIVE_STORE_URL!, core, (c) => c.query(`INSERT INTO contexts (context_id) VALUES ('ctx-1'), ('ctx-2')`));
    for (const event of FIXTURE) await storage.journal.append(event);
  });
  afterAll(async () => {
    core?.close();
    box?.dispose();
    await store?.release();
  });

  const list = async (...args: string[]): Promise<Listed[]> => {
    const res = await box.run(['events', 'list', '--limit', '1000', ...args, '--json']);
    expect(res.code, res.stderr).toBe(0);
    return res.json().data.events;
  };
  const types = async (...args: string[]) => (await list(...args)).map((e) => e.type);

  it('lists the newest matches oldest first, by type, type prefix, agent, context, task and their combinations', async () => {
    expect(await types()).toEqual(FIXTURE.map((e) => e.type));
    expect(await types('--limit', '2')).toEqual(['missive.barrier.member.error', 'missive.gateway.job.failed']);
    expect(await types('--type', 'a2a.task.updated')).toEqual(['a2a.task.updated', 'a2a.task.updated']);
    expect(await types('--type', 'a2a.send.*')).toEqual(['a2a.send.started', 'a2a.send.completed', 'a2a.send.completed']);
    // A prefix is literal: "_" and "%" are no wildcards.
    expect(await types('--type', 'a2a.send_.*')).toEqual([]);
    expect(await types('--type', 'a2a.s%.*')).toEqual([]);
    expect(await types('--type', 'missive.*', '--limit', '3')).toEqual([
      'missive.bcast.member.timeout',
      'missive.barrier.member.error',
      'missive.gateway.job.failed',
    ]);
    expect((await list('--agent', 'beta')).map((e) => e.type)).toEqual(['a2a.send_x.completed', 'a2a.push.rejected', 'a2a.push.status_update']);
    expect(await types('--agent', 'never-used')).toEqual([]);
    expect(await types('--context', 'ctx-1')).toEqual(['a2a.send.started', 'a2a.send.completed', 'a2a.send.completed']);
    expect((await list('--task', 't-2')).map((e) => [e.type, e.agent])).toEqual([
      ['a2a.send.completed', 'alpha'],
      ['a2a.push.status_update', 'beta'],
    ]);
    expect(await types('--agent', 'alpha', '--type', 'a2a.task.updated', '--limit', '1')).toEqual(['a2a.task.updated']);
    const all = await list();
    expect(all.map((e) => e.sequence)).toEqual([...all.map((e) => e.sequence)].sort((a, b) => a - b));
    const since = all[8]!.timestamp;
    expect(await list('--since', since)).toEqual(all.filter((e) => e.timestamp >= since));
    expect(await list('--agent', 'alpha', '--since', '2999-01-01T00:00:00Z')).toEqual([]);
  });

  it('--outcome failed keeps the same failures, NUL escapes in payloads included', async () => {
    expect(await types('--outcome', 'failed')).toEqual(FAILED);
    expect(await types('--outcome', 'failed', '--limit', '2')).toEqual(FAILED.slice(-2));
    expect(await types('--outcome', 'failed', '--type', 'a2a.*', '--agent', 'alpha', '--search', 'state')).toEqual([
      'a2a.send.completed',
      'a2a.task.updated',
      'a2a.stream.completed',
    ]);
  });

  it('searches any ASCII case, the payload as its JSON text, wildcards taken literally', async () => {
    expect(await types('--search', 'QUARTERLY "report"')).toEqual(['a2a.push.status_update']);
    expect(await types('--search', 'ÉTÉ')).toEqual(['a2a.push.status_update']);
    // As SQLite's LIKE: only ASCII letters fold.
    expect(await types('--search', 'été')).toEqual([]);
    expect(await types('--search', '0%')).toEqual(['a2a.push.status_update']);
    expect(await types('--search', 'SEND_X')).toEqual(['a2a.send_x.completed']);
    expect(await types('--search', 'CTX-2')).toEqual(['a2a.stream.completed']);
    expect(await types('--search', 'T-1')).toEqual(['a2a.send.completed']);
    expect(await types('--search', 'ctx-1', '--type', 'a2a.send.completed')).toEqual(['a2a.send.completed', 'a2a.send.completed']);
  });

  it('reads on from a cursor page by page: every match once, then only what is written later', async () => {
    const reads = storage.journalReads;
    const filters: JournalFilters = { outcome: 'failed' };
    const pages: string[][] = [];
    let cursor = reads.start();
    for (let i = 0; i < 20; i++) {
      const page = await reads.after(filters, cursor, 3);
      pages.push(page.events.map((e) => e.type));
      cursor = page.cursor;
      if (!page.more) break;
    }
    expect(pages.flat()).toEqual(FAILED);
    expect(pages.slice(0, -1).every((p) => p.length === 3)).toBe(true);
    expect((await reads.after(filters, cursor, 3)).events).toEqual([]);

    const end = await reads.end();
    await storage.journal.append({ type: 'missive.later.failed', payload: {} });
    await storage.journal.append({ type: 'missive.later.ok', payload: {} });
    const next = await reads.after(filters, cursor, 3);
    expect(next.events.map((e) => e.type)).toEqual(['missive.later.failed']);
    const fromEnd = await reads.after({}, end, 10);
    expect(fromEnd.events.map((e) => e.type)).toEqual(['missive.later.failed', 'missive.later.ok']);
    expect((await reads.after({}, fromEnd.cursor, 10)).events).toEqual([]);
  });

  it('reads bounded pages back from the newest, and on SQLite forward from a sequence: following `next`, what list shows, each match once', async () => {
    const reads = storage.journalReads;
    const cases: JournalFilters[] = [{}, { outcome: 'failed' }, { agentAlias: 'alpha' }, { search: 'ctx-1' }, { typePrefix: 'missive.' }, { taskId: 't-2' }];
    for (const filters of cases) {
      const all = (await reads.list({ ...filters, limit: 1000 })).map((e) => e.sequence);
      const back: number[] = [];
      let from: JournalPageStart = {};
      for (let calls = 0; calls < 50; calls++) {
        const page = await reads.page(filters, from, 2);
        expect(page.events.length).toBeLessThanOrEqual(2);
        back.unshift(...page.events.map((e) => e.sequence));
        if (!page.next) break;
        from = page.next;
      }
      expect(back, JSON.stringify(filters)).toEqual(all);
      // Reading on by sequence number: SQLite's file is commit-ordered; a shared store's is not, and says so.
      if (kind === 'postgres') {
        await expect(reads.page(filters, { afterSequence: 0 }, 2)).rejects.toMatchObject({ code: 'missive::config::store_unsupported' });
        continue;
      }
      const forward: number[] = [];
      from = { afterSequence: 0 };
      for (let calls = 0; calls < 50; calls++) {
        const page = await reads.page(filters, from, 2);
        forward.push(...page.events.map((e) => e.sequence));
        if (!page.next) break;
        from = page.next;
      }
      expect(forward, JSON.stringify(filters)).toEqual(all);
    }
  });

  it('tails, exports and shows as logs what list shows', async () => {
    const tail = startTail(box, ['--type', 'missive.tailed.*', '--timeout', '3s']);
    // Appended until the tail shows one (it shows only what commits after it started), then one more.
    for (let i = 0; i < 50 && !(await settles(() => tail.shown().length > 0)); i++)
      await storage.journal.append({ type: 'missive.tailed.ping', payload: { i } });
    await storage.journal.append({ type: 'missive.tailed.last', payload: {} });
    expect(await tail.done).toBe(0);
    const tailed = tail.shown().map((e) => e.event_id);
    const written = (await list('--type', 'missive.tailed.*')) as unknown as Array<{ event_id: string; type: string }>;
    expect(written.at(-1)!.type).toBe('missive.tailed.last');
    expect(tailed.length).toBeGreaterThan(1);
    expect(tailed).toEqual(written.slice(written.length - tailed.length).map((e) => e.event_id));

    const file = join(box.home, 'journal.ndjson');
    const exported = await box.run(['events', 'export', '--output', file, '--type', 'a2a.*', '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(await list('--type', 'a2a.*'));

    const logs = await box.run(['logs', '--source', 'event-journal', '--limit', '3', '--json']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.json().data.records.map((r: { type: string }) => r.type)).toEqual(await types('--limit', '3'));
  });
});

interface Tailed {
  sequence: number;
  event_id: string;
  type: string;
}

/** `missive events tail … --poll-interval 50 --ndjson` running in-process; `shown()` is what it printed so far. */
function startTail(box: Sandbox, args: string[]): { shown(): Tailed[]; done: Promise<number> } {
  let stdout = '';
  const done = runCli(['events', 'tail', ...args, '--poll-interval', '50', '--ndjson'], {
    env: box.env,
    cwd: box.home,
    io: { stdout: (t) => void (stdout += t), stderr: () => undefined, isTTY: false },
    secrets: box.secrets,
    stdin: async () => '',
  });
  return {
    shown: () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).data as Tailed),
    done,
  };
}

/** True once `condition` holds, false when it did not within `ms` (a bounded wait on a condition, not a sleep). */
async function settles(condition: () => boolean, ms = 200): Promise<boolean> {
  try {
    await expect.poll(condition, { timeout: ms, interval: 20 }).toBe(true);
    return true;
  } catch {
    return false;
  }
}

/** A client of the test database with the core's schema on its search_path. */
async function withClient<T>(url: string, core: Core, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const schema = core.storeSelection.kind === 'postgres' ? core.storeSelection.schema : 'public';
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('events tail on PostgreSQL: transactions that commit out of sequence order', () => {
  let database: FreshDatabase;
  let box: Sandbox;
  let core: Core;
  let storage: Storage;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    database = await freshPostgresUrl();
    box = sandbox({ MISSIVE_STORE_URL: database.url });
    core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
    storage = await core.storage();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    core?.close();
    box?.dispose();
    await database?.drop();
  });

  /** A connection of its own, as another host's writer would have. */
  async function host(): Promise<pg.Client> {
    const schema = core.storeSelection.kind === 'postgres' ? core.storeSelection.schema : '';
    const client = new pg.Client({ connectionString: database.url, options: `-c search_path=${schema}` });
    await client.connect();
    clients.push(client);
    return client;
  }
  const insert = async (client: pg.Client, type: string) =>
    Number(
      (await client.query<{ sequence: string }>(`INSERT INTO events (event_id, event_type) VALUES (gen_random_uuid()::text, $1) RETURNING sequence`, [type]))
        .rows[0]!.sequence,
    );

  it('a poll after the late transaction commits returns its lower-numbered event, once; a rolled-back one never', async () => {
    const reads = storage.journalReads;
    const start = await reads.end();
    const [a, b, c] = [await host(), await host(), await host()];
    await a.query('BEGIN');
    const n = await insert(a, 'test.late');
    await c.query('BEGIN');
    await insert(c, 'test.rolled_back');
    await b.query('BEGIN');
    const n1 = await insert(b, 'test.early');
    await b.query('COMMIT');
    expect(n1).toBeGreaterThan(n);

    const first = await reads.after({}, start, 500);
    expect(first.events.map((e) => [e.sequence, e.type])).toEqual([[n1, 'test.early']]);
    // What a cursor "sequence > the last seen" would read next: N is below it.
    expect(n).toBeLessThan(first.events.at(-1)!.sequence);
    expect((await reads.after({}, first.cursor, 500)).events).toEqual([]);

    await a.query('COMMIT');
    await c.query('ROLLBACK');
    const second = await reads.after({}, first.cursor, 500);
    expect(second.events.map((e) => [e.sequence, e.type])).toEqual([[n, 'test.late']]);
    expect((await reads.after({}, second.cursor, 500)).events).toEqual([]);
    // An export sees both, in sequence order.
    let cursor = reads.start();
    const exported: string[] = [];
    for (let i = 0; i < 10; i++) {
      const page = await reads.after({ typePrefix: 'test.' }, cursor, 1);
      exported.push(...page.events.map((e) => e.type));
      cursor = page.cursor;
      if (!page.more) break;
    }
    expect(exported).toEqual(['test.late', 'test.early']);
  });

  it('`events tail` shows the late commit after the early one, each once', async () => {
    const [a, b] = [await host(), await host()];
    // The late transaction is open before the tail starts.
    await a.query('BEGIN');
    const n = await insert(a, 'tail.late');
    const tail = startTail(box, ['--type', 'tail.*', '--timeout', '4s']);
    // Early events commit until the tail shows one (those before it started are not its to show).
    for (let i = 0; i < 50 && !(await settles(() => tail.shown().length > 0)); i++) await insert(b, 'tail.early');
    expect(tail.shown().length).toBeGreaterThan(0);
    await a.query('COMMIT');
    await expect.poll(() => tail.shown().some((e) => e.type === 'tail.late'), { timeout: 3000 }).toBe(true);
    expect(await tail.done).toBe(0);
    const events = tail.shown();
    const late = events.filter((e) => e.type === 'tail.late');
    expect(late.map((e) => e.sequence)).toEqual([n]);
    expect(events.at(-1)!.type).toBe('tail.late');
    expect(events.slice(0, -1).every((e) => e.type === 'tail.early' && e.sequence > n)).toBe(true);
    expect(new Set(events.map((e) => e.sequence)).size).toBe(events.length);
  });
});
