/** The gateway against real SDK agents: subscriptions, polling, an agent outage, a killed gateway, the lock. */
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { createCore, type Core } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let core: Core;

beforeAll(async () => {
  fleet = await startAgents({
    streamer: { behaviour: 'slow', delayMs: 1200 },
    poller: { behaviour: 'slow', delayMs: 500, streaming: false },
  });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox();
  await register(box, fleet.agents);
  core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
});
afterEach(async () => {
  core.close();
  await fleet.agents.streamer!.resume();
  box.dispose();
});

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const stateOf = (taskId: string) => withDb((d) => (d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(taskId) as any)?.state);
const eventTypes = (taskId: string) => withDb((d) => (d.prepare(`SELECT event_type FROM events WHERE task_id = ? ORDER BY sequence`).all(taskId) as any[]).map((e) => e.event_type));
const completedEvents = (taskId: string) =>
  withDb((d) => (d.prepare(`SELECT payload_json FROM events WHERE task_id = ? AND event_type LIKE 'a2a.subscription.%'`).all(taskId) as any[]).filter((e) => e.payload_json.includes('TASK_STATE_COMPLETED')).length);

const lease = () => withDb((d) => d.prepare(`SELECT * FROM gateway_leases`).get() as any);
const gatewayStarts = () => withDb((d) => (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'missive.gateway.started' ORDER BY sequence`).all() as any[]).map((e) => JSON.parse(e.payload_json)));
const gatewayStops = () => withDb((d) => (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'missive.gateway.stopped' ORDER BY sequence`).all() as any[]).map((e) => JSON.parse(e.payload_json)));
const launch = () =>
  spawn(process.execPath, ['bin/missive.js', 'gateway', 'run', '--interval', '100ms', '--ndjson'], { cwd: process.cwd(), env: { ...box.env, PATH: process.env.PATH } });
const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
/** A lease row as another gateway would have written it (the store's own columns). */
const putLease = (row: { holder: string; pid: number; host: string; expiresAt: Date }) =>
  core
    .store()
    .db.prepare(`INSERT INTO gateway_leases (profile, holder, pid, host, started_at, renewed_at, expires_at) VALUES ('default', ?, ?, ?, ?, ?, ?)`)
    .run(row.holder, row.pid, row.host, new Date(row.expiresAt.getTime() - 60_000).toISOString(), new Date(row.expiresAt.getTime() - 30_000).toISOString(), row.expiresAt.toISOString());

/** Blocks this thread while `probe` is false, at most `ms` (for code that runs synchronously inside another's critical section). */
function holdUntil(probe: () => boolean, ms: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const end = Date.now() + ms;
  while (!probe() && Date.now() < end) Atomics.wait(cell, 0, 0, 25);
}

const startTask = async (alias: string) => {
  const sent = (await box.run(['send', alias, 'long job', '--return-immediately', '--json'])).json().data;
  expect(sent.task.state).toBe('working');
  return sent.task.task_id as string;
};

function background(options: { intervalMs: number }) {
  const stop = new AbortController();
  const records: Array<[string, Record<string, unknown>]> = [];
  const done = runGateway(core, { ...options, signal: stop.signal, onRecord: (k, d) => void records.push([k, d]) });
  return { stop: () => (stop.abort(), done), records };
}

describe('gateway', () => {
  it('follows a streaming agent with SubscribeToTask until the task settles', async () => {
    const taskId = await startTask('streamer');
    const gw = background({ intervalMs: 100 });
    await until('completion', () => stateOf(taskId) === 'completed');
    const result = await gw.stop();
    expect(result.settled).toBe(1);
    expect(eventTypes(taskId)).toEqual(expect.arrayContaining(['a2a.subscription.started', 'a2a.subscription.status_update', 'missive.gateway.job.succeeded']));
    expect(completedEvents(taskId)).toBe(1);
    withDb((d) => expect(d.prepare(`SELECT kind, state FROM gateway_jobs WHERE task_id = ?`).get(taskId)).toEqual({ kind: 'task_subscription', state: 'succeeded' }));
  });

  it('polls a non-streaming agent with GetTask', async () => {
    const taskId = await startTask('poller');
    const gw = background({ intervalMs: 100 });
    await until('completion', () => stateOf(taskId) === 'completed');
    await gw.stop();
    withDb((d) => expect(d.prepare(`SELECT kind, state FROM gateway_jobs WHERE task_id = ?`).get(taskId)).toEqual({ kind: 'task_poll', state: 'succeeded' }));
    const updates = withDb((d) => (d.prepare(`SELECT payload_json FROM events WHERE task_id = ? AND event_type = 'a2a.task.updated'`).all(taskId) as any[]).map((e) => JSON.parse(e.payload_json)));
    expect(updates.at(-1)).toMatchObject({ state: 'completed', observed_by: 'gateway' });
  });

  it('retries with backoff through an agent outage and ends in the real state, without duplicates', async () => {
    const taskId = await startTask('streamer');
    const gw = background({ intervalMs: 100 });
    await until('the subscription', () => eventTypes(taskId).includes('a2a.subscription.started'));
    await fleet.agents.streamer!.pause();
    await until('a retry', () => eventTypes(taskId).includes('missive.gateway.job.retrying'));
    const job = withDb((d) => d.prepare(`SELECT state, retry_count, backoff_ms, last_error FROM gateway_jobs WHERE task_id = ?`).get(taskId) as any);
    expect(job).toMatchObject({ retry_count: 1 });
    expect(job.backoff_ms).toBeGreaterThan(0);
    expect(job.last_error).toBeTruthy();
    await fleet.agents.streamer!.resume();
    await until('completion', () => stateOf(taskId) === 'completed');
    await gw.stop();
    expect(completedEvents(taskId)).toBeLessThanOrEqual(1);
    withDb((d) => expect(d.prepare(`SELECT state FROM gateway_jobs WHERE task_id = ?`).get(taskId)).toEqual({ state: 'succeeded' }));
  });

  it('allows one gateway per profile: a lease row in the store, released on stop', async () => {
    const gw = background({ intervalMs: 100 });
    await until('the lease', () => lease());
    expect(lease()).toMatchObject({ profile: 'default', pid: process.pid, host: hostname() });
    const second = await box.run(['gateway', 'run', '--once']);
    expect(second.code).toBe(70);
    expect(second.stderr).toContain('already running');
    const status = (await box.run(['gateway', 'status', '--json'])).json().data;
    expect(status).toMatchObject({ running: true, lease: { pid: process.pid, host: hostname(), alive: true, expired: false } });
    await gw.stop();
    expect(lease()).toBeUndefined();
    expect((await box.run(['gateway', 'status', '--json'])).json().data).toMatchObject({ running: false, lease: null });
  });

  it('survives being killed mid-run: a restart reclaims the job and finishes it once', async () => {
    const taskId = await startTask('streamer');
    let child: ChildProcess = launch();
    await until('the running job', () => withDb((d) => (d.prepare(`SELECT state FROM gateway_jobs WHERE task_id = ?`).get(taskId) as any)?.state === 'running'));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const stale = (await box.run(['gateway', 'status', '--json'])).json().data;
    expect(stale.running).toBe(false);
    expect(stale.unfinished.map((j: any) => j.state)).toEqual(['running']);
    child = launch();
    await until('completion', () => stateOf(taskId) === 'completed');
    await until('the job to settle', () => withDb((d) => (d.prepare(`SELECT state FROM gateway_jobs WHERE task_id = ?`).get(taskId) as any)?.state === 'succeeded'));
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.once('exit', r))).toBe(0);
    const starts = withDb((d) => (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'missive.gateway.started' ORDER BY sequence`).all() as any[]).map((e) => JSON.parse(e.payload_json)));
    expect(starts.map((s) => s.reclaimed_jobs)).toEqual([0, 1]);
    expect(completedEvents(taskId)).toBeLessThanOrEqual(1);
    expect(stateOf(taskId)).toBe('completed');
  }, 30_000);
});

describe('gateway lease', () => {
  it('lets exactly one of two gateways racing for a dead gateway\'s profile hold it; the other exits "already running"', async () => {
    // A gateway killed with SIGKILL leaves its hold on the profile behind.
    const killed = launch();
    await until('the first gateway to hold the profile', () => gatewayStarts().some((s) => s.pid === killed.pid));
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
        holdUntil(() => gatewayStarts().some((s) => s.pid === started), 3000);
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
      expect(gatewayStarts().filter((s) => s.pid === rival!.pid)).toEqual([]);
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
    putLease({ holder: 'gateway:4242:deadbeef', pid: 4242, host: 'elsewhere.example', expiresAt: new Date(Date.now() - 1000) });
    const run = await box.run(['gateway', 'run', '--once', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(gatewayStarts().at(-1)).toMatchObject({ pid: process.pid, lease_taken_from: { holder: 'gateway:4242:deadbeef', host: 'elsewhere.example' } });
    expect(lease()).toBeUndefined();
  });

  it('does not take a live lease held on another host (its pid means nothing here) until it expires', async () => {
    putLease({ holder: 'gateway:4242:cafef00d', pid: 4242, host: 'elsewhere.example', expiresAt: new Date(Date.now() + 60_000) });
    const run = await box.run(['gateway', 'run', '--once']);
    expect(run.code).toBe(70);
    expect(run.stderr).toContain('already running');
    expect(run.stderr).toContain('elsewhere.example');
    const status = (await box.run(['gateway', 'status', '--json'])).json().data;
    expect(status).toMatchObject({ running: true, lease: { holder: 'gateway:4242:cafef00d', host: 'elsewhere.example', alive: null, expired: false } });
    expect(lease()).toMatchObject({ holder: 'gateway:4242:cafef00d' });
  });

  it('takes over at once a lease whose holder on this host is gone, and says so in status until then', async () => {
    const gone = spawn(process.execPath, ['-e', '0']);
    await exited(gone);
    putLease({ holder: `gateway:${gone.pid}:0badc0de`, pid: gone.pid!, host: hostname(), expiresAt: new Date(Date.now() + 60_000) });
    const stale = (await box.run(['gateway', 'status', '--json'])).json().data;
    expect(stale).toMatchObject({ running: false, lease: { pid: gone.pid, host: hostname(), alive: false, expired: false } });
    expect((await box.run(['gateway', 'status'])).stdout).toMatch(/running\s+no \(pid \d+ is gone/);
    const run = await box.run(['gateway', 'run', '--once', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(gatewayStarts().at(-1)).toMatchObject({ lease_taken_from: { pid: gone.pid } });
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
    core.store().db.prepare(`UPDATE gateway_leases SET holder = 'gateway:1:other', host = 'elsewhere.example'`).run();
    expect(await ended).toMatchObject({ code: 'missive::orchestration::gateway_lease_lost', exitCode: 70 });
    stop.abort();
    expect(lease()).toMatchObject({ holder: 'gateway:1:other' });
    expect(gatewayStops().at(-1)).toMatchObject({ lease_lost: true });
  });
});
