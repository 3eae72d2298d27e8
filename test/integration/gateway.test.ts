/**
 * The gateway against real SDK agents, on both stores (the embedded SQLite file and a shared PostgreSQL database):
 * subscriptions, polling, an agent outage, a killed gateway. On SQLite one gateway holds a profile by a lease (its
 * own describe block); on PostgreSQL gateways share the profile's queue as a pool (another). What they leave is read
 * back through `events list`, `gateway status`, the storage interface and, for the follow jobs no command lists once
 * they finished, the same SQL on either engine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { storeRows } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';
import { sqliteStore } from '../support/sqlite-store.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let core: Core;
let store: StoreUnderTest;

beforeAll(async () => {
  fleet = await startAgents({
    streamer: { behaviour: 'slow', delayMs: 1200 },
    poller: { behaviour: 'slow', delayMs: 500, streaming: false },
  });
});
afterAll(() => fleet.close());

/** A sandbox on `kind`'s store with the fleet registered, and a core on it (for in-process gateways and reads). */
function onStore(kind: 'sqlite' | 'postgres') {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, fleet.agents);
    core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  });
  afterEach(async () => {
    core.close();
    await fleet.agents.streamer!.resume();
    box.dispose();
    await store.release();
  });
}

/** The journal's events (`events list --json`) of a type (or a prefix ending in .*) and/or a task, oldest first. */
const events = async (filter: { type?: string; task?: string }): Promise<Array<{ type: string; source: string; payload: any }>> => {
  const res = await box.run([
    'events',
    'list',
    ...(filter.type ? ['--type', filter.type] : []),
    ...(filter.task ? ['--task', filter.task] : []),
    '--limit',
    '10000',
    '--json',
  ]);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events;
};
const stateOf = async (taskId: string) => (await (await core.storage()).conversation.getTask(taskId))?.state;
const eventTypes = async (taskId: string) => (await events({ task: taskId })).map((e) => e.type);
const completedEvents = async (taskId: string) =>
  (await events({ type: 'a2a.subscription.*', task: taskId })).filter((e) => JSON.stringify(e.payload).includes('TASK_STATE_COMPLETED')).length;
/** A task's follow job (no command lists a finished one). */
const followJob = async (taskId: string) => (await storeRows(box, `SELECT kind, state FROM gateway_jobs WHERE task_id = ?`, [taskId]))[0];
const gatewayStarts = async () => (await events({ type: 'missive.gateway.started' })).map((e) => e.payload);
const gatewayStatus = async () => {
  const res = await box.run(['gateway', 'status', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
};
/** Waits, polling, for `probe` to resolve to something truthy. */
const waitFor = async <T>(what: string, probe: () => Promise<T>, timeout = 10_000): Promise<T> => {
  let value: T | undefined;
  await expect.poll(async () => Boolean((value = await probe())), { timeout, interval: 50, message: `timed out waiting for ${what}` }).toBe(true);
  return value!;
};

const launch = (...extra: string[]) =>
  spawn(process.execPath, ['bin/missive.js', 'gateway', 'run', '--interval', '100ms', ...extra, '--ndjson'], {
    cwd: process.cwd(),
    env: { ...box.env, PATH: process.env.PATH },
  });
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

const startTask = async (alias: string) => {
  const sent = (await box.run(['send', alias, 'long job', '--return-immediately', '--json'])).json().data;
  expect(sent.task.state).toBe('working');
  return sent.task.task_id as string;
};

function background(options: { intervalMs: number }, on: Core = core) {
  const stop = new AbortController();
  const records: Array<[string, Record<string, unknown>]> = [];
  const done = runGateway(on, { ...options, signal: stop.signal, onRecord: (k, d) => void records.push([k, d]) });
  return { stop: () => (stop.abort(), done), records };
}

describe.each(STORES)('gateway (%s store)', (kind) => {
  onStore(kind);

  it('follows a streaming agent with SubscribeToTask until the task settles', async () => {
    const taskId = await startTask('streamer');
    const gw = background({ intervalMs: 100 });
    await waitFor('completion', async () => (await stateOf(taskId)) === 'completed');
    const result = await gw.stop();
    expect(result.settled).toBe(1);
    expect(await eventTypes(taskId)).toEqual(
      expect.arrayContaining(['a2a.subscription.started', 'a2a.subscription.status_update', 'missive.gateway.job.succeeded']),
    );
    expect(await completedEvents(taskId)).toBe(1);
    expect(await followJob(taskId)).toEqual({ kind: 'task_subscription', state: 'succeeded' });
    // The updates are the gateway's, as its other events are (they once said `cli`, the source of the process).
    const updates = await events({ type: 'a2a.subscription.*', task: taskId });
    expect(updates.length).toBeGreaterThan(1);
    expect(new Set(updates.map((e) => e.source))).toEqual(new Set(['gateway']));
  });

  it('polls a non-streaming agent with GetTask', async () => {
    const taskId = await startTask('poller');
    const gw = background({ intervalMs: 100 });
    await waitFor('completion', async () => (await stateOf(taskId)) === 'completed');
    await gw.stop();
    expect(await followJob(taskId)).toEqual({ kind: 'task_poll', state: 'succeeded' });
    const updates = (await events({ type: 'a2a.task.updated', task: taskId })).map((e) => e.payload);
    expect(updates.at(-1)).toMatchObject({ state: 'completed', observed_by: 'gateway' });
  });

  it('retries with backoff through an agent outage and ends in the real state, without duplicates', async () => {
    const taskId = await startTask('streamer');
    const gw = background({ intervalMs: 100 });
    await waitFor('the subscription', async () => (await eventTypes(taskId)).includes('a2a.subscription.started'));
    await fleet.agents.streamer!.pause();
    await waitFor('a retry', async () => (await eventTypes(taskId)).includes('missive.gateway.job.retrying'));
    // The job waiting to run again, as `gateway status` lists it.
    const job = (await gatewayStatus()).unfinished.find((j: any) => j.task_id === taskId);
    expect(job).toMatchObject({ kind: 'task_subscription', retry_count: 1 });
    expect(job.backoff_ms).toBeGreaterThan(0);
    expect(job.last_error).toBeTruthy();
    await fleet.agents.streamer!.resume();
    await waitFor('completion', async () => (await stateOf(taskId)) === 'completed');
    await gw.stop();
    expect(await completedEvents(taskId)).toBeLessThanOrEqual(1);
    expect((await followJob(taskId))?.state).toBe('succeeded');
  });

  it('survives being killed mid-run: a restarted gateway finishes the job once', async () => {
    const taskId = await startTask('streamer');
    // Claims (and the lease or pool row) of 1 s: a killed gateway's job is free again that soon.
    let child: ChildProcess = launch('--claim-ttl', '1s');
    await waitFor('the running job', async () => (await gatewayStatus()).unfinished.some((j: any) => j.task_id === taskId && j.state === 'running'));
    child.kill('SIGKILL');
    await exited(child);
    expect((await gatewayStatus()).unfinished.map((j: any) => j.state)).toEqual(['running']);
    child = launch('--claim-ttl', '1s');
    await waitFor('completion', async () => (await stateOf(taskId)) === 'completed');
    await waitFor('the job to settle', async () => (await followJob(taskId))?.state === 'succeeded');
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(await gatewayStarts()).toHaveLength(2);
    expect(await completedEvents(taskId)).toBeLessThanOrEqual(1);
    expect(await stateOf(taskId)).toBe('completed');
  }, 30_000);

  it('says no gateway runs once its only gateway was killed', async () => {
    const child = launch();
    await waitFor('the gateway to start', async () => (await gatewayStarts()).some((s) => s.pid === child.pid));
    child.kill('SIGKILL');
    await exited(child);
    const stale = await gatewayStatus();
    expect(stale.running).toBe(false);
    expect(kind === 'sqlite' ? [stale.lease] : stale.gateways).toMatchObject([{ pid: child.pid, host: hostname(), alive: false }]);
    expect((await box.run(['job', 'start', 'send', 'poller', 'hi'])).stderr).toContain('no gateway runs for this profile');
  });
});

describe('gateway (SQLite store: one gateway per profile)', () => {
  onStore('sqlite');

  const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
  const lease = () => withDb((d) => d.prepare(`SELECT * FROM gateway_leases`).get() as any);
  const gatewayStops = () =>
    withDb((d) =>
      (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'missive.gateway.stopped' ORDER BY sequence`).all() as any[]).map((e) =>
        JSON.parse(e.payload_json),
      ),
    );
  /** The profile's gateway starts, read synchronously (for code that runs inside another's critical section). */
  const gatewayStartsNow = () =>
    withDb((d) =>
      (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'missive.gateway.started' ORDER BY sequence`).all() as any[]).map((e) =>
        JSON.parse(e.payload_json),
      ),
    );
  /** A lease row as another gateway would have written it (the store's own columns). */
  const putLease = async (row: { holder: string; pid: number; host: string; expiresAt: Date }) =>
    (await sqliteStore(core)).db
      .prepare(`INSERT INTO gateway_leases (profile, holder, pid, host, started_at, renewed_at, expires_at) VALUES ('default', ?, ?, ?, ?, ?, ?)`)
      .run(
        row.holder,
        row.pid,
        row.host,
        new Date(row.expiresAt.getTime() - 60_000).toISOString(),
        new Date(row.expiresAt.getTime() - 30_000).toISOString(),
        row.expiresAt.toISOString(),
      );

  /** Blocks this thread while `probe` is false, at most `ms` (for code that runs synchronously inside another's critical section). */
  function holdUntil(probe: () => boolean, ms: number): void {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    const end = Date.now() + ms;
    while (!probe() && Date.now() < end) Atomics.wait(cell, 0, 0, 25);
  }

  it('allows one gateway per profile: a lease row in the store, released on stop', async () => {
    const gw = background({ intervalMs: 100 });
    await until('the lease', () => lease());
    expect(lease()).toMatchObject({ profile: 'default', pid: process.pid, host: hostname() });
    const second = await box.run(['gateway', 'run', '--once']);
    expect(second.code).toBe(70);
    expect(second.stderr).toContain('already running');
    const status = await gatewayStatus();
    expect(status).toMatchObject({ running: true, lease: { pid: process.pid, host: hostname(), alive: true, expired: false }, gateways: null });
    await gw.stop();
    expect(lease()).toBeUndefined();
    expect(await gatewayStatus()).toMatchObject({ running: false, lease: null });
  });

  it('reclaims at start the jobs a killed gateway left running', async () => {
    const taskId = await startTask('streamer');
    const child = launch();
    await until('the running job', () =>
      withDb((d) => (d.prepare(`SELECT state FROM gateway_jobs WHERE task_id = ?`).get(taskId) as any)?.state === 'running'),
    );
    child.kill('SIGKILL');
    await exited(child);
    const run = await box.run(['gateway', 'run', '--once', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((await gatewayStarts()).map((s) => s.reclaimed_jobs)).toEqual([0, 1]);
    expect(await stateOf(taskId)).toBe('completed');
    expect(await completedEvents(taskId)).toBeLessThanOrEqual(1);
  }, 30_000);

  it('lets exactly one of two gateways racing for a dead gateway\'s profile hold it; the other exits "already running"', async () => {
    // A gateway killed with SIGKILL leaves its hold on the profile behind.
    const killed = launch();
    await until('the first gateway to hold the profile', () => gatewayStartsNow().some((s) => s.pid === killed.pid));
    killed.kill('SIGKILL');
    await exited(killed);
    const deadPid = killed.pid!;

    // Gateway A (this process) starts; at the moment it checks whether the dead holder is alive (it has read the
    // holder and not yet written itself), gateway B starts in another process.
    let rival: ChildProcess | undefined;
    let rivalErr = '';
    const kill = process.kill.bind(process);
    const spy = vi.spyOn(process, 'kill').mockImplementation(((pid: number, signal?: string | number) => {
      if (pid === deadPid && signal === 0 && !rival) {
        rival = launch();
        rival.stderr!.on('data', (c) => void (rivalErr += c));
        const started = rival.pid;
        holdUntil(() => gatewayStartsNow().some((s) => s.pid === started), 3000);
      }
      return kill(pid, signal as any);
    }) as typeof process.kill);
    const a = background({ intervalMs: 100 });
    try {
      await until('gateway A to take the profile', () => a.records.some(([k]) => k === 'gateway_started'));
      expect(rival).toBeDefined();
      await until('gateway B to exit', () => rival!.exitCode !== null, 10_000);
      expect(rival!.exitCode).toBe(70);
      expect(rivalErr).toContain('already running');
      expect(gatewayStartsNow().filter((s) => s.pid === rival!.pid)).toEqual([]);
      expect(lease()).toMatchObject({ pid: process.pid, host: hostname() });
    } finally {
      spy.mockRestore();
      if (rival && rival.exitCode === null) {
        rival.kill('SIGKILL');
        await exited(rival);
      }
      await a.stop();
    }
  }, 30_000);

  it('takes over a lease whose holder died elsewhere once it has expired', async () => {
    await putLease({ holder: 'gateway:4242:deadbeef', pid: 4242, host: 'elsewhere.example', expiresAt: new Date(Date.now() - 1000) });
    const run = await box.run(['gateway', 'run', '--once', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((await gatewayStarts()).at(-1)).toMatchObject({
      pid: process.pid,
      lease_taken_from: { holder: 'gateway:4242:deadbeef', host: 'elsewhere.example' },
    });
    expect(lease()).toBeUndefined();
  });

  it('does not take a live lease held on another host (its pid means nothing here) until it expires', async () => {
    await putLease({ holder: 'gateway:4242:cafef00d', pid: 4242, host: 'elsewhere.example', expiresAt: new Date(Date.now() + 60_000) });
    const run = await box.run(['gateway', 'run', '--once']);
    expect(run.code).toBe(70);
    expect(run.stderr).toContain('already running');
    expect(run.stderr).toContain('elsewhere.example');
    const status = await gatewayStatus();
    expect(status).toMatchObject({ running: true, lease: { holder: 'gateway:4242:cafef00d', host: 'elsewhere.example', alive: null, expired: false } });
    expect(lease()).toMatchObject({ holder: 'gateway:4242:cafef00d' });
  });

  it('takes over at once a lease whose holder on this host is gone, and says so in status until then', async () => {
    const gone = spawn(process.execPath, ['-e', '0']);
    await exited(gone);
    await putLease({ holder: `gateway:${gone.pid}:0badc0de`, pid: gone.pid!, host: hostname(), expiresAt: new Date(Date.now() + 60_000) });
    const stale = await gatewayStatus();
    expect(stale).toMatchObject({ running: false, lease: { pid: gone.pid, host: hostname(), alive: false, expired: false } });
    expect((await box.run(['gateway', 'status'])).stdout).toMatch(/running\s+no \(pid \d+ is gone/);
    const run = await box.run(['gateway', 'run', '--once', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((await gatewayStarts()).at(-1)).toMatchObject({ lease_taken_from: { pid: gone.pid } });
  });

  it('renews its lease while it runs, and stops when another gateway has taken it over', async () => {
    const stop = new AbortController();
    const done = runGateway(core, { intervalMs: 100, claimTtlMs: 300, signal: stop.signal });
    const ended = done.then(
      () => null,
      (error) => error,
    );
    const first = await until('the lease', () => lease());
    await until('a renewal', () => lease()?.expires_at > first.expires_at);
    // Another gateway took the lease over (this one, say, stalled past its expiry).
    (await sqliteStore(core)).db.prepare(`UPDATE gateway_leases SET holder = 'gateway:1:other', host = 'elsewhere.example'`).run();
    expect(await ended).toMatchObject({ code: 'missive::orchestration::gateway_lease_lost', exitCode: 70 });
    stop.abort();
    expect(lease()).toMatchObject({ holder: 'gateway:1:other' });
    expect(gatewayStops().at(-1)).toMatchObject({ lease_lost: true });
  });
});

describe('gateway (PostgreSQL store: a pool of gateways)', () => {
  onStore('postgres');

  it('runs two gateways on one profile at once: `gateway status` lists both, and a task is followed once', async () => {
    const taskId = await startTask('streamer');
    const a = background({ intervalMs: 100 });
    const b = launch();
    let bErr = '';
    b.stderr!.on('data', (c) => void (bErr += c));
    try {
      await waitFor('both gateways to start', async () => (await gatewayStarts()).length === 2);
      const status = await gatewayStatus();
      expect(status).toMatchObject({ running: true, lease: null });
      expect(status.gateways.map((g: any) => g.pid).sort()).toEqual([process.pid, b.pid].sort());
      for (const g of status.gateways) expect(g).toMatchObject({ host: hostname(), alive: true, expired: false });
      expect((await box.run(['gateway', 'status'])).stdout).toMatch(/running\s+yes \(2 gateways sharing the queue/);
      // A third one is not refused either (no gateway_running).
      const third = await box.run(['gateway', 'run', '--once', '--json']);
      expect(third.code, third.stderr).toBe(0);
      await waitFor('completion', async () => (await stateOf(taskId)) === 'completed');
      await waitFor('the job to settle', async () => (await followJob(taskId))?.state === 'succeeded');
      expect((await eventTypes(taskId)).filter((t) => t === 'a2a.subscription.started')).toHaveLength(1);
      expect(await completedEvents(taskId)).toBe(1);
    } finally {
      b.kill('SIGTERM');
      expect(await exited(b), bErr).toBe(0);
      await a.stop();
    }
    expect(await gatewayStatus()).toMatchObject({ running: false, lease: null, gateways: [] });
  }, 30_000);

  it('keeps running when the shared store fails for a while, and follows the next task once it is back', async () => {
    const gw = background({ intervalMs: 100 });
    await waitFor('the gateway to start', async () => (await gatewayStarts()).length === 1);
    // The job table gone for a while (as during a database's failover): every scan and claim fails meanwhile.
    await storeRows(box, `ALTER TABLE gateway_jobs RENAME TO gateway_jobs_away`);
    await waitFor('the gateway to report the failure', async () => gw.records.some(([kind]) => kind === 'gateway_error'));
    await storeRows(box, `ALTER TABLE gateway_jobs_away RENAME TO gateway_jobs`);
    const taskId = await startTask('poller');
    await waitFor('the task to be followed to its end', async () => (await followJob(taskId))?.state === 'succeeded', 20_000);
    // It ran on through the failures (each reported, none fatal), and stops cleanly.
    const result = await gw.stop();
    expect(result.settled).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
