/** The gateway against real SDK agents: subscriptions, polling, an agent outage, a killed gateway, the lock. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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

  it('allows one gateway per profile', async () => {
    const gw = background({ intervalMs: 100 });
    await until('the lock', () => existsSync(join(box.home, 'state/profiles/default/gateway.lock')));
    const second = await box.run(['gateway', 'run', '--once']);
    expect(second.code).toBe(70);
    expect(second.stderr).toContain('already running');
    const status = (await box.run(['gateway', 'status', '--json'])).json().data;
    expect(status).toMatchObject({ running: true, lock: { pid: process.pid, alive: true } });
    await gw.stop();
    expect(existsSync(join(box.home, 'state/profiles/default/gateway.lock'))).toBe(false);
  });

  it('survives being killed mid-run: a restart reclaims the job and finishes it once', async () => {
    const taskId = await startTask('streamer');
    const launch = () => spawn(process.execPath, ['bin/missive.js', 'gateway', 'run', '--interval', '100ms', '--ndjson'], { cwd: process.cwd(), env: { ...box.env, PATH: process.env.PATH } });
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
