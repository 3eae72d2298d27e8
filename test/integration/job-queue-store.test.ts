/**
 * The gateway job queue as the storage interface keeps it, on both stores: claims (once, with an expiry another
 * gateway may take over), renewals, finishes and retries held to their owner, cancels, counts, follow jobs queued once
 * per task, the tasks still needing one. On PostgreSQL, where many gateways on many hosts share one queue: two stores
 * claiming at once never get the same job, a queued job wakes the listening gateways of its profile (and of no other),
 * a lost listening connection crashes nothing, and the pool of gateways keeps its rows.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import type { Storage } from '../../electron/core/store/storage.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { withAdminClient } from '../support/postgres.js';
import { postgresStoragesOfBlock, STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { sqliteStore } from '../support/sqlite-store.js';

const iso = (ms: number) => new Date(ms).toISOString();
const later = (ms = 60_000) => iso(Date.now() + ms);
const earlier = (ms = 60_000) => iso(Date.now() - ms);

/** An operator job as `missive job start` records one (no agent: the rows need none). */
const operatorJob = (jobId: string, more: { targetTaskId?: string | null; maxAttempts?: number } = {}) => ({
  jobId,
  kind: 'send' as const,
  agentAlias: null,
  groupName: null,
  contextId: null,
  targetTaskId: more.targetTaskId ?? null,
  request: { text: `hello from ${jobId}` },
  summary: { agent: 'echo' },
  maxAttempts: more.maxAttempts ?? 3,
});

describe.each<StoreKindUnderTest>(STORES)('the job queue on %s', (kind) => {
  let store: StoreUnderTest;
  let box: Sandbox;
  let core: Core;
  let s: Storage;

  /** Runs statements on the profile's store directly (rows the interface under test does not write). */
  async function exec(sql: string): Promise<void> {
    if (kind === 'sqlite') return void (await sqliteStore(core)).db.exec(sql);
    const schema = core.storeSelection.kind === 'postgres' ? core.storeSelection.schema : 'public';
    const client = new pg.Client({ connectionString: store.env.MISSIVE_STORE_URL, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
    s = await core.storage();
    expect(s.kind).toBe(kind);
  });
  afterEach(async () => {
    core.close();
    box.dispose();
    await store.release();
  });

  it('claims a due job once, for its owner until the given time, counting the attempt', async () => {
    await s.jobs.insertOperator(operatorJob('job-1'));
    const until = later();
    const claimed = await s.jobs.claimDue('gw-a', until, 10);
    expect(claimed).toEqual([
      expect.objectContaining({
        job_id: 'job-1',
        kind: 'send',
        state: 'running',
        locked_by: 'gw-a',
        locked_until: until,
        attempts: 1,
        retry_count: 0,
        max_attempts: 3,
      }),
    ]);
    expect(await s.jobs.claimDue('gw-b', later(), 10)).toEqual([]);
    expect(await s.jobs.getOperator('job-1')).toMatchObject({
      state: 'running',
      locked_by: 'gw-a',
      attempts: 1,
      request_json: JSON.stringify({ text: 'hello from job-1' }),
    });
  });

  it('claims the oldest due jobs first, at most `limit`', async () => {
    for (const id of ['job-c', 'job-a', 'job-b']) await s.jobs.insertOperator(operatorJob(id));
    // Their run times, oldest first: b, c, a.
    await exec(
      `UPDATE gateway_jobs SET next_run_at = CASE job_id WHEN 'job-b' THEN '2020-01-01T00:00:00.000Z' WHEN 'job-c' THEN '2020-01-02T00:00:00.000Z' ELSE '2020-01-03T00:00:00.000Z' END`,
    );
    expect((await s.jobs.claimDue('gw-a', later(), 2)).map((j) => j.job_id)).toEqual(['job-b', 'job-c']);
    expect((await s.jobs.claimDue('gw-a', later(), 2)).map((j) => j.job_id)).toEqual(['job-a']);
  });

  it('a claim is renewed by its owner only; once expired another gateway takes it over and the old owner can no longer finish it', async () => {
    await s.jobs.insertOperator(operatorJob('job-1'));
    await s.jobs.claimDue('gw-a', later(), 1);
    expect(await s.jobs.renewClaim('job-1', 'gw-a', later(120_000))).toBe(true);
    expect(await s.jobs.renewClaim('job-1', 'gw-b', later(120_000))).toBe(false);
    // Not expired yet: nobody else gets it.
    expect(await s.jobs.claimDue('gw-b', later(), 1)).toEqual([]);

    // gw-a stalls: its claim runs out.
    expect(await s.jobs.renewClaim('job-1', 'gw-a', earlier())).toBe(true);
    const taken = await s.jobs.claimDue('gw-b', later(), 1);
    // An interrupted execution resumes under the attempt number it had (failed attempts + 1).
    expect(taken).toEqual([expect.objectContaining({ job_id: 'job-1', state: 'running', locked_by: 'gw-b', attempts: 1 })]);
    expect(await s.jobs.renewClaim('job-1', 'gw-a', later())).toBe(false);
    expect(await s.jobs.finish('job-1', 'succeeded', { late: true }, null, 'gw-a')).toBe(false);
    expect(await s.jobs.finish('job-1', 'succeeded', { answer: 42 }, null, 'gw-b')).toBe(true);
    expect(await s.jobs.getOperator('job-1')).toMatchObject({
      state: 'succeeded',
      result_json: '{"answer":42}',
      locked_by: null,
      locked_until: null,
      completed_at: expect.any(String),
    });
    expect(await s.jobs.claimDue('gw-c', later(), 1)).toEqual([]);
  });

  it('a follow job counts every claim as an attempt, an expired one too', async () => {
    await exec(`INSERT INTO agents (alias, base_url) VALUES ('echo', 'http://127.0.0.1:9/echo');
                INSERT INTO tasks (task_id, agent_alias, state, source) VALUES ('task-1', 'echo', 'working', 'local')`);
    await s.jobs.queueFollow({ kind: 'task_poll', taskId: 'task-1', agentAlias: 'echo', contextId: null, maxAttempts: 5 });
    expect(await s.jobs.claimDue('gw-a', earlier(), 5)).toEqual([expect.objectContaining({ kind: 'task_poll', task_id: 'task-1', attempts: 1 })]);
    expect(await s.jobs.claimDue('gw-b', later(), 5)).toEqual([expect.objectContaining({ kind: 'task_poll', locked_by: 'gw-b', attempts: 2 })]);
  });

  it('a retry waits for its time; its owner must still hold the job; a counted retry raises the next attempt', async () => {
    await s.jobs.insertOperator(operatorJob('job-1'));
    await s.jobs.claimDue('gw-a', later(), 1);
    expect(await s.jobs.retry('job-1', { error: 'boom', backoffMs: 60_000, nextRunAt: later(), countAttempt: true }, 'gw-b')).toBe(false);
    expect(await s.jobs.retry('job-1', { error: 'boom', backoffMs: 60_000, nextRunAt: later(), countAttempt: true }, 'gw-a')).toBe(true);
    expect(await s.jobs.getOperator('job-1')).toMatchObject({
      state: 'retrying',
      retry_count: 1,
      backoff_ms: 60_000,
      last_error: 'boom',
      locked_by: null,
      locked_until: null,
    });
    expect(await s.jobs.claimDue('gw-a', later(), 1)).toEqual([]);

    // Its time comes.
    await exec(`UPDATE gateway_jobs SET next_run_at = '2020-01-01T00:00:00.000Z' WHERE job_id = 'job-1'`);
    expect(await s.jobs.claimDue('gw-a', later(), 1)).toEqual([expect.objectContaining({ job_id: 'job-1', state: 'running', attempts: 2, retry_count: 1 })]);
    // An uncounted retry (the request never left) keeps the number.
    expect(await s.jobs.retry('job-1', { error: null, backoffMs: 0, nextRunAt: earlier(), countAttempt: false }, 'gw-a')).toBe(true);
    expect(await s.jobs.claimDue('gw-a', later(), 1)).toEqual([expect.objectContaining({ attempts: 2, retry_count: 1, last_error: null })]);
  });

  it('cancels an unfinished job once; a cancelled job is not claimed and its owner cannot finish it', async () => {
    await s.jobs.insertOperator(operatorJob('job-1'));
    await s.jobs.insertOperator(operatorJob('job-2'));
    await s.jobs.claimDue('gw-a', later(), 1);
    expect(await s.jobs.cancel('job-1')).toBe(true);
    expect(await s.jobs.cancel('job-1')).toBe(false);
    expect(await s.jobs.renewClaim('job-1', 'gw-a', later())).toBe(false);
    expect(await s.jobs.finish('job-1', 'succeeded', {}, null, 'gw-a')).toBe(false);
    expect(await s.jobs.cancel('job-2')).toBe(true);
    expect(await s.jobs.claimDue('gw-a', later(), 10)).toEqual([]);
    expect(await s.jobs.getOperator('job-2')).toMatchObject({ state: 'cancelled', last_error: 'cancelled by the operator', completed_at: expect.any(String) });
    expect(await s.jobs.unfinished()).toEqual([]);
  });

  it('counts jobs by state, as numbers', async () => {
    expect(await s.jobs.counts()).toEqual({});
    for (const id of ['job-1', 'job-2', 'job-3', 'job-4']) await s.jobs.insertOperator(operatorJob(id));
    await s.jobs.claimDue('gw-a', later(), 2);
    await s.jobs.cancel('job-3');
    expect(await s.jobs.counts()).toEqual({ running: 2, cancelled: 1, queued: 1 });
    expect((await s.jobs.unfinished()).map((j) => [j.job_id, j.state])).toEqual([
      ['job-1', 'running'],
      ['job-2', 'running'],
      ['job-4', 'queued'],
    ]);
  });

  it('operator jobs: found by id or unique prefix (LIKE wildcards are literal), listed newest first, target task and dispatch mark kept', async () => {
    for (const id of ['job_1', 'jobX1', 'other']) await s.jobs.insertOperator(operatorJob(id));
    await exec(`INSERT INTO contexts (context_id) VALUES ('ctx-9'), ('ctx-other')`);
    expect((await s.jobs.findOperator('job_')).map((j) => j.job_id)).toEqual(['job_1']);
    expect((await s.jobs.findOperator('job')).map((j) => j.job_id)).toEqual(['jobX1', 'job_1']);
    expect((await s.jobs.findOperator('%')).map((j) => j.job_id)).toEqual([]);
    expect(await s.jobs.getOperator('nope')).toBeUndefined();

    await exec(
      `UPDATE gateway_jobs SET created_at = CASE job_id WHEN 'job_1' THEN '2020-01-01T00:00:00.000Z' WHEN 'jobX1' THEN '2020-01-02T00:00:00.000Z' ELSE '2020-01-03T00:00:00.000Z' END`,
    );
    await s.jobs.cancel('other');
    expect((await s.jobs.listOperator({ limit: 10 })).map((j) => j.job_id)).toEqual(['other', 'jobX1', 'job_1']);
    expect((await s.jobs.listOperator({ limit: 1 })).map((j) => j.job_id)).toEqual(['other']);
    expect((await s.jobs.listOperator({ state: 'queued', limit: 10 })).map((j) => j.job_id)).toEqual(['jobX1', 'job_1']);
    expect((await s.jobs.listOperator({ limit: 10 }))[0]).not.toHaveProperty('request_json');

    await s.jobs.setTargetTask('job_1', 'remote-task', 'ctx-9');
    await s.jobs.markDispatched('job_1', 'msg-1');
    expect(await s.jobs.getOperator('job_1')).toMatchObject({
      target_task_id: 'remote-task',
      context_id: 'ctx-9',
      dispatched: 1,
      dispatch_message_id: 'msg-1',
      summary_json: '{"agent":"echo"}',
    });
    // A context already recorded is kept.
    await s.jobs.setTargetTask('job_1', 'remote-task-2', 'ctx-other');
    await s.jobs.clearDispatched('job_1');
    expect(await s.jobs.getOperator('job_1')).toMatchObject({ target_task_id: 'remote-task-2', context_id: 'ctx-9', dispatched: 0, dispatch_message_id: null });
  });

  it('queues one follow job per kind and task; a succeeded one is queued again, a failed one is not', async () => {
    await exec(`INSERT INTO agents (alias, base_url) VALUES ('echo', 'http://127.0.0.1:9/echo');
                INSERT INTO tasks (task_id, agent_alias, state, source) VALUES ('task-1', 'echo', 'working', 'local'), ('task-2', 'echo', 'working', 'local')`);
    const follow = (taskId: string, k: 'task_poll' | 'task_subscription' = 'task_poll') =>
      s.jobs.queueFollow({ kind: k, taskId, agentAlias: 'echo', contextId: null, maxAttempts: 3 });
    await follow('task-1');
    await follow('task-1');
    await follow('task-1', 'task_subscription');
    expect((await s.jobs.unfinished()).map((j) => [j.kind, j.task_id]).sort()).toEqual([
      ['task_poll', 'task-1'],
      ['task_subscription', 'task-1'],
    ]);

    const [poll] = (await s.jobs.claimDue('gw-a', later(), 10)).filter((j) => j.kind === 'task_poll');
    expect(await s.jobs.finish(poll!.job_id, 'succeeded', null, null, 'gw-a')).toBe(true);
    await follow('task-1');
    expect((await s.jobs.unfinished()).find((j) => j.kind === 'task_poll')).toMatchObject({
      job_id: poll!.job_id,
      state: 'queued',
      retry_count: 0,
      completed_at: null,
    });

    await follow('task-2');
    const [other] = (await s.jobs.unfinished()).filter((j) => j.task_id === 'task-2');
    await s.jobs.finish(other!.job_id, 'failed', null, 'gave up');
    await follow('task-2');
    expect((await s.jobs.counts()).failed).toBe(1);
    expect((await s.jobs.unfinished()).filter((j) => j.task_id === 'task-2')).toEqual([]);
  });

  it('lists the in-flight local tasks that have no unfinished job, oldest update first', async () => {
    await exec(`INSERT INTO agents (alias, base_url) VALUES ('echo', 'http://127.0.0.1:9/echo');
                INSERT INTO contexts (context_id) VALUES ('ctx-1');
                INSERT INTO tasks (task_id, agent_alias, context_id, state, source, updated_at) VALUES
                  ('t-working', 'echo', 'ctx-1', 'working', 'local', '2020-01-03T00:00:00.000Z'),
                  ('t-submitted', 'echo', NULL, 'submitted', 'local', '2020-01-01T00:00:00.000Z'),
                  ('t-unknown', 'echo', NULL, 'unknown', 'local', '2020-01-02T00:00:00.000Z'),
                  ('t-done', 'echo', NULL, 'completed', 'local', '2020-01-01T00:00:00.000Z'),
                  ('t-followed', 'echo', NULL, 'working', 'local', '2020-01-01T00:00:00.000Z'),
                  ('t-targeted', 'echo', NULL, 'working', 'local', '2020-01-01T00:00:00.000Z')`);
    await s.jobs.queueFollow({ kind: 'task_subscription', taskId: 't-followed', agentAlias: 'echo', contextId: null, maxAttempts: 3 });
    await s.jobs.insertOperator(operatorJob('job-1', { targetTaskId: 't-targeted' }));
    expect(await s.jobs.tasksNeedingJobs()).toEqual([
      { task_id: 't-submitted', agent_alias: 'echo', context_id: null },
      { task_id: 't-unknown', agent_alias: 'echo', context_id: null },
      { task_id: 't-working', agent_alias: 'echo', context_id: 'ctx-1' },
    ]);
    // A finished operator job no longer covers its task.
    await s.jobs.cancel('job-1');
    expect((await s.jobs.tasksNeedingJobs()).map((t) => t.task_id)).toContain('t-targeted');
  });

  it('jobs written in a transaction commit with it or not at all', async () => {
    await s.transaction(async (tx) => tx.jobs.insertOperator(operatorJob('kept')));
    await expect(
      s.transaction(async (tx) => {
        await tx.jobs.insertOperator(operatorJob('gone'));
        expect(await tx.jobs.claimDue('gw-a', later(), 10)).toHaveLength(2);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await s.jobs.unfinished()).map((j) => [j.job_id, j.state])).toEqual([['kept', 'queued']]);
  });

  it('listening for queued jobs resolves to a stop function on every engine', async () => {
    const stop = await s.onJobQueued(() => undefined);
    await expect(stop()).resolves.toBeUndefined();
  });
});

describe('the job queue shared on PostgreSQL', () => {
  /** `open(schema)`: a storage on its own pool, as another host's gateway would have; its pool for the clients it makes. */
  const { db, open } = postgresStoragesOfBlock();

  it('two hosts claiming 200 jobs at once get disjoint sets that cover them all', async () => {
    const [a, b] = [await open('missive_claims'), await open('missive_claims')];
    for (let i = 0; i < 200; i++) await a.storage.jobs.insertOperator(operatorJob(`job-${String(i).padStart(3, '0')}`));
    const claims = new Map<string, string[]>();
    const worker = async (storage: Storage, owner: string) => {
      const mine: string[] = [];
      // Bounded: each round claims at least one job, or ends the worker.
      for (let round = 0; round < 200; round++) {
        const got = await storage.jobs.claimDue(owner, later(), 5);
        if (got.length === 0) break;
        expect(got.length).toBeLessThanOrEqual(5);
        for (const job of got) expect(job).toMatchObject({ state: 'running', locked_by: owner, attempts: 1 });
        mine.push(...got.map((j) => j.job_id));
      }
      claims.set(owner, mine);
    };
    await Promise.all([worker(a.storage, 'a1'), worker(a.storage, 'a2'), worker(b.storage, 'b1'), worker(b.storage, 'b2')]);
    const all = [...claims.values()].flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    // Each job is held by the one that was told it claimed it.
    const holders = (await a.pool.query<{ job_id: string; locked_by: string }>(`SELECT job_id, locked_by FROM gateway_jobs`)).rows;
    for (const { job_id, locked_by } of holders) expect(claims.get(locked_by)).toContain(job_id);
    expect(await b.storage.jobs.counts()).toEqual({ running: 200 });
  });

  it('a job queued by another host wakes the listeners of its profile only, once per transaction', async () => {
    const listening = await open('missive_wake');
    const other = await open('missive_wake');
    const elsewhere = await open('missive_elsewhere');
    let wakes = 0;
    const stop = await listening.storage.onJobQueued(() => void wakes++);

    await other.storage.jobs.insertOperator(operatorJob('job-1'));
    await expect.poll(() => wakes).toBe(1);

    // Notifications arrive in commit order: by the time the second job's arrives, another profile's job, claims and
    // finishes committed before it would have arrived too.
    await elsewhere.storage.jobs.insertOperator(operatorJob('job-x'));
    const [claimed] = await other.storage.jobs.claimDue('gw-b', later(), 1);
    await other.storage.jobs.finish(claimed!.job_id, 'succeeded', null, null, 'gw-b');
    await other.storage.transaction(async (tx) => {
      await tx.jobs.insertOperator(operatorJob('job-2'));
      await tx.jobs.insertOperator(operatorJob('job-3'));
    });
    await expect.poll(() => wakes).toBeGreaterThanOrEqual(2);
    expect(wakes).toBe(2);

    // A retry queues the job again.
    await other.storage.jobs.claimDue('gw-b', later(), 1);
    await other.storage.jobs.retry('job-2', { error: 'x', backoffMs: 0, nextRunAt: earlier(), countAttempt: true }, 'gw-b');
    await expect.poll(() => wakes).toBe(3);

    await stop();
    await stop();
    // Stopped: the listening connection went back to the pool and listens no more.
    const stillListening = await listening.pool.query(`SELECT count(*)::int AS n FROM pg_listening_channels()`);
    expect(stillListening.rows[0].n).toBe(0);
  });

  it('a listening connection that is lost crashes nothing; stopping still works and a new listener hears jobs', async () => {
    const { storage, pool } = await open('missive_lost');
    const other = await open('missive_lost');
    const clients: pg.Client[] = [];
    pool.on('acquire', (client) => void clients.push(client));
    const stop = await storage.onJobQueued(() => undefined);

    const { rows } = await withAdminClient((c) =>
      c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN missive_jobs'`, [db().name]),
    );
    expect(rows).toHaveLength(1);
    const client = clients.find((c) => (c as pg.Client & { processID: number }).processID === rows[0]!.pid)!;
    expect(client).toBeDefined();
    const ended = new Promise((resolve) => client.once('end', resolve));
    await withAdminClient((c) => c.query(`SELECT pg_terminate_backend($1)`, [rows[0]!.pid]));
    await ended;
    await expect(stop()).resolves.toBeUndefined();

    let wakes = 0;
    const again = await storage.onJobQueued(() => void wakes++);
    await other.storage.jobs.insertOperator(operatorJob('job-1'));
    await expect.poll(() => wakes).toBe(1);
    await again();
    // The pool still serves queries.
    expect(await storage.jobs.counts()).toEqual({ queued: 1 });
  });

  it('closing the store stops its listeners', async () => {
    const { storage } = await open('missive_close');
    await storage.onJobQueued(() => undefined);
    await expect(storage.close()).resolves.toBeUndefined();
  });

  it('keeps the pool of gateways: join, renew, list, prune the expired, leave', async () => {
    const { storage } = await open('missive_pool');
    const holders = async () => {
      const list = await storage.gateways('default');
      return list.kind === 'pool' ? list.rows.map((g) => g.holder).sort() : null;
    };
    const a = await storage.membership({ profile: 'default', holder: 'gw-a', ttlMs: 60_000 });
    const b = await storage.membership({ profile: 'default', holder: 'gw-b', ttlMs: 1 });
    expect(a.reclaimed).toBe(0);
    expect(await holders()).toEqual(['gw-a', 'gw-b']);
    expect(await a.renew()).toBe(true);
    const renewed = await storage.gateways('default');
    expect(renewed.kind === 'pool' && renewed.rows.find((g) => g.holder === 'gw-a')).toMatchObject({
      holder: 'gw-a',
      pid: process.pid,
      expires_at: expect.any(String),
    });

    // gw-b's row expires 1 ms after it joined: the next gateway to join prunes it.
    const expiry = Date.parse(renewed.kind === 'pool' ? renewed.rows.find((g) => g.holder === 'gw-b')!.expires_at : '');
    for (let i = 0; i < 1000 && Date.now() <= expiry; i++) await new Promise((resolve) => setImmediate(resolve));
    const c = await storage.membership({ profile: 'default', holder: 'gw-c', ttlMs: 60_000 });
    expect(await holders()).toEqual(['gw-a', 'gw-c']);
    // A pruned gateway that renews takes its place again (the pool has no owner to lose).
    expect(await b.renew()).toBe(true);
    expect(await holders()).toEqual(['gw-a', 'gw-b', 'gw-c']);

    await Promise.all([a.release(), b.release(), c.release()]);
    expect(await holders()).toEqual([]);
    // Another profile's pool is its own.
    const elsewhere = (await open('missive_pool_other')).storage;
    await elsewhere.membership({ profile: 'default', holder: 'gw-z', ttlMs: 60_000 });
    expect(await holders()).toEqual([]);
  });
});
