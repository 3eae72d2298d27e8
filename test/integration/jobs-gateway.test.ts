/**
 * The gateway executing durable operator jobs (`missive job start`) against real SDK agents, on both stores (the
 * embedded SQLite file and a shared PostgreSQL database): a send waited on to its end, a gateway killed mid-job and
 * restarted (the job resumes, the message is sent once), retries with backoff while an agent is down, a cancelled
 * running job, a killed gateway after a broadcast left (not sent twice: the job fails as unconfirmed), a permanent
 * error, claims that expire. Jobs are read back as `job show` shows them, the journal as `events list` does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';
import { cancelJob, showJob, startJob, type JobView } from '../../electron/core/jobs/queue.js';
import type { JobInput } from '../../electron/core/jobs/requests.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let core: Core;
let store: StoreUnderTest;

beforeAll(async () => {
  fleet = await startAgents({
    slow: { behaviour: 'slow', delayMs: 1500, streaming: false },
    quick: { behaviour: 'echo' },
    failing: { behaviour: 'fail' },
  });
});
afterAll(() => fleet.close());

/** A sandbox on `kind`'s store with the fleet registered, and a core on it (for in-process gateways and the job API). */
function onStore(kind: StoreKindUnderTest) {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, fleet.agents);
    core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  });
  afterEach(async () => {
    core.close();
    await fleet.agents.quick!.resume();
    box.dispose();
    await store.release();
  });
}

const send = (agent: string, text: string, extra: Partial<Extract<JobInput, { kind: 'send' }>['input']> = {}): JobInput => ({
  kind: 'send',
  input: { agent, text, cwd: box.home, messageId: randomUUID(), ...extra },
});

/** A job as `job show` shows it. */
const job = (id: string) => showJob(core, id);
/** The journal's events of a type (or a prefix ending in .*), oldest first, as `events list` shows them. */
const events = async (type: string): Promise<Array<{ type: string; payload: any }>> => {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '10000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events;
};
const sendsStarted = async () => (await events('a2a.send.started')).length;
const jobEvents = async (id: string) => (await events('missive.job.*')).filter((e) => e.payload.job_id === id).map((e) => e.type);
/** Waits, polling, for `probe` to resolve to something truthy. */
const waitFor = async (what: string, probe: () => Promise<unknown>, timeout = 10_000): Promise<void> => {
  await expect.poll(async () => Boolean(await probe()), { timeout, interval: 50, message: `timed out waiting for ${what}` }).toBe(true);
};
const finished = (view: JobView) => ['succeeded', 'failed'].includes(view.state);

function inProcess(options: { claimTtlMs?: number } = {}) {
  const stop = new AbortController();
  const records: Array<[string, Record<string, unknown>]> = [];
  const done = runGateway(core, { intervalMs: 100, ...options, signal: stop.signal, onRecord: (k, d) => void records.push([k, d]) });
  return { stop: () => (stop.abort(), done), records };
}

const launch = (...extra: string[]): ChildProcess =>
  spawn(process.execPath, ['bin/missive.js', 'gateway', 'run', '--interval', '100ms', ...extra, '--ndjson'], {
    cwd: process.cwd(),
    env: { ...box.env, PATH: process.env.PATH },
  });
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

describe.each(STORES)('durable jobs in the gateway (%s store)', (kind) => {
  onStore(kind);

  it('runs a send job: the message leaves once, the job waits on its task and records the outcome', async () => {
    const started = await startJob(core, send('slow', 'long job'));
    expect(started.state).toBe('queued');
    const gw = inProcess();
    await waitFor('the job to finish', async () => (await job(started.job_id)).state === 'succeeded', 15_000);
    await gw.stop();
    const view = await job(started.job_id);
    expect(view).toMatchObject({ state: 'succeeded', outcome: 'completed', exit_code: 0, attempts: 1 });
    expect(view.task_id).toBeTruthy();
    expect(view.result).toMatchObject({ state: 'completed', task_id: view.task_id });
    expect(await sendsStarted()).toBe(1);
    expect(await jobEvents(started.job_id)).toEqual(['missive.job.started', 'missive.job.attempt', 'missive.job.succeeded']);
  });

  it('records a task that fails as a failed job with exit code 80, without retrying it', async () => {
    const started = await startJob(core, send('failing', 'please fail'), { maxAttempts: 3 });
    const gw = inProcess();
    await waitFor('the job to finish', async () => finished(await job(started.job_id)));
    await gw.stop();
    expect(await job(started.job_id)).toMatchObject({ state: 'failed', outcome: 'failed', exit_code: 80, attempts: 1 });
    expect(await sendsStarted()).toBe(1);
  });

  it('survives a gateway killed mid-job: the restarted gateway resumes on the task and never sends twice', async () => {
    const started = await startJob(core, send('slow', 'survive a crash'));
    // Claims (and the lease or pool row) of 1 s: a killed gateway's job is free again that soon.
    let child = launch('--claim-ttl', '1s');
    await waitFor('the job to wait on its task', async () => {
      const view = await job(started.job_id);
      return view.state === 'running' && view.task_id;
    });
    child.kill('SIGKILL');
    await exited(child);
    expect((await job(started.job_id)).state).toBe('running');
    child = launch('--claim-ttl', '1s');
    await waitFor('the job to finish', async () => (await job(started.job_id)).state === 'succeeded', 15_000);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    // The killed attempt resumes under its own number: never more attempts than --max-attempts (1).
    expect(await job(started.job_id)).toMatchObject({ state: 'succeeded', outcome: 'completed', attempts: 1 });
    expect(await sendsStarted()).toBe(1);
    const attempts = (await events('missive.job.attempt')).map((e) => e.payload);
    expect(attempts.map((a) => [a.attempt, a.resumed])).toEqual([
      [1, false],
      [1, true],
    ]);
  }, 30_000);

  it('does not send a broadcast twice when the gateway died after it left: the job fails as unconfirmed', async () => {
    expect((await box.run(['group', 'create', 'team', '--member', 'slow'])).code).toBe(0);
    const started = await startJob(core, { kind: 'bcast', group: 'team', inputs: { text: 'to all', cwd: box.home } }, { maxAttempts: 5 });
    let child = launch('--claim-ttl', '1s');
    await waitFor('the broadcast to leave', async () => (await sendsStarted()) === 1);
    child.kill('SIGKILL');
    await exited(child);
    child = launch('--claim-ttl', '1s');
    await waitFor('the job to end', async () => finished(await job(started.job_id)));
    child.kill('SIGTERM');
    await exited(child);
    const view = await job(started.job_id);
    expect(view).toMatchObject({ state: 'failed', exit_code: 70 });
    expect((view.result as any).error.code).toBe('missive::orchestration::job_dispatch_unconfirmed');
    expect(await sendsStarted()).toBe(1);
  }, 30_000);

  it('retries with backoff while the agent is down, then sends once it is back', async () => {
    const started = await startJob(core, send('quick', 'are you there'), { maxAttempts: 4 });
    await fleet.agents.quick!.pause();
    const gw = inProcess();
    await waitFor('a retry', async () => (await job(started.job_id)).state === 'retrying');
    const waiting = await job(started.job_id);
    expect(waiting.attempts).toBe(1);
    expect(waiting.last_error).toContain('refused');
    expect(waiting.next_run_at).toBeTruthy();
    // Its backoff, as `gateway status` lists the unfinished jobs.
    const status = await box.run(['gateway', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().data.unfinished.find((j: any) => j.job_id === started.job_id).backoff_ms).toBeGreaterThan(0);
    await fleet.agents.quick!.resume();
    await waitFor('the job to finish', async () => (await job(started.job_id)).state === 'succeeded', 15_000);
    await gw.stop();
    expect(await job(started.job_id)).toMatchObject({ state: 'succeeded', outcome: 'completed' });
    expect((await job(started.job_id)).attempts).toBeGreaterThanOrEqual(2);
    expect(await jobEvents(started.job_id)).toContain('missive.job.retrying');
    expect(await events('a2a.send.completed')).toHaveLength(1);
  }, 30_000);

  it('gives up after --max-attempts and keeps the last error', async () => {
    const started = await startJob(core, send('quick', 'nobody home'), { maxAttempts: 2 });
    await fleet.agents.quick!.pause();
    const gw = inProcess();
    await waitFor('the job to fail', async () => (await job(started.job_id)).state === 'failed', 15_000);
    await gw.stop();
    const view = await job(started.job_id);
    expect(view).toMatchObject({ state: 'failed', attempts: 2, exit_code: 69 });
    expect((view.result as any).error.code).toBe('missive::transport::connection_refused');
  }, 30_000);

  it('stops a running job the operator cancels, and records nothing after', async () => {
    const started = await startJob(core, send('slow', 'cancel me'));
    const gw = inProcess({ claimTtlMs: 150 });
    await waitFor('the job to wait on its task', async () => (await job(started.job_id)).task_id);
    const cancelled = await cancelJob(core, started.job_id);
    expect(cancelled).toMatchObject({ cancelled: true, job: { state: 'cancelled', exit_code: 81 } });
    await waitFor(
      'the gateway to let go',
      async () => gw.records.some(([k, d]) => k === 'job_started' && d.job_id === started.job_id) && (await job(started.job_id)).locked_by === null,
    );
    await new Promise((r) => setTimeout(r, 300));
    await gw.stop();
    expect((await job(started.job_id)).state).toBe('cancelled');
    expect(await jobEvents(started.job_id)).not.toContain('missive.job.succeeded');
  }, 20_000);

  it('fails a job whose error no retry can fix at once, whatever --max-attempts says', async () => {
    expect((await box.run(['group', 'create', 'pair', '--member', 'quick'])).code).toBe(0);
    expect((await box.run(['context', 'create', '--id', 'ctx-empty'])).code).toBe(0);
    const started = await startJob(core, { kind: 'reduce', input: { group: 'pair', contextId: 'ctx-empty', cwd: box.home } }, { maxAttempts: 5 });
    const gw = inProcess();
    await waitFor('the job to fail', async () => (await job(started.job_id)).state === 'failed');
    await gw.stop();
    const view = await job(started.job_id);
    expect(view).toMatchObject({ attempts: 1, exit_code: 64 });
    expect((view.result as any).error.code).toBe('missive::validation::no_outputs');
  });

  it('refuses at start a reduce of a context it does not know', async () => {
    expect((await box.run(['group', 'create', 'solo', '--member', 'quick'])).code).toBe(0);
    await expect(startJob(core, { kind: 'reduce', input: { group: 'solo', contextId: 'no-such-context', cwd: box.home } })).rejects.toThrow(
      expect.objectContaining({ code: 'missive::validation::unknown_context' }),
    );
    expect((await box.run(['job', 'list', '--json'])).json().data.jobs).toEqual([]);
  });

  it('takes a send opening a new context', async () => {
    const opened = await startJob(core, send('quick', 'a new thread', { contextId: 'ctx-chosen-by-me' }));
    expect(opened).toMatchObject({ state: 'queued', context_id: 'ctx-chosen-by-me' });
  });

  it('waits on an existing task with a wait job', async () => {
    const sent = (await box.run(['send', 'slow', 'already running', '--return-immediately', '--json'])).json().data;
    const started = await startJob(core, { kind: 'wait', taskId: sent.task.task_id, agent: 'slow' });
    const gw = inProcess();
    await waitFor('the job to finish', async () => (await job(started.job_id)).state === 'succeeded', 15_000);
    await gw.stop();
    expect(await job(started.job_id)).toMatchObject({ outcome: 'completed', task_id: sent.task.task_id, exit_code: 0 });
    expect(await sendsStarted()).toBe(1);
  });

  it('lets another gateway take a job whose claim expired, and no one take a live claim', async () => {
    const started = await startJob(core, send('quick', 'claimed'));
    const { jobs } = await core.storage();
    const past = new Date(Date.now() - 1000).toISOString();
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await jobs.claimDue('gateway:a', future, 10)).map((j) => j.job_id)).toEqual([started.job_id]);
    expect(await jobs.claimDue('gateway:b', future, 10)).toEqual([]);
    expect(await jobs.renewClaim(started.job_id, 'gateway:b', future)).toBe(false);
    // gateway:a stalls past its claim's expiry.
    expect(await jobs.renewClaim(started.job_id, 'gateway:a', past)).toBe(true);
    expect((await jobs.claimDue('gateway:b', future, 10)).map((j) => j.job_id)).toEqual([started.job_id]);
    // Taking over an interrupted attempt continues it: the attempt count stays.
    expect(await job(started.job_id)).toMatchObject({ state: 'running', locked_by: 'gateway:b', attempts: 1 });
  });

  it('resumes a job whose gateway was killed mid-attempt without showing more attempts than --max-attempts', async () => {
    const started = await startJob(core, send('quick', 'resume me'), { maxAttempts: 1 });
    // A gateway claimed it and was killed: the attempt never finished and its claim has expired.
    expect((await (await core.storage()).jobs.claimDue('gateway:killed', new Date(Date.now() - 1000).toISOString(), 10)).map((j) => j.job_id)).toEqual([
      started.job_id,
    ]);
    expect(await job(started.job_id)).toMatchObject({ state: 'running', attempts: 1, max_attempts: 1 });
    const gw = inProcess();
    await waitFor('the resumed job to finish', async () => finished(await job(started.job_id)), 15_000);
    await gw.stop();
    const shown = (await box.run(['job', 'show', started.job_id, '--json'])).json().data;
    expect(shown).toMatchObject({ state: 'succeeded', max_attempts: 1 });
    expect(shown.attempts).toBeLessThanOrEqual(shown.max_attempts);
    expect((await box.run(['job', 'show', started.job_id])).stdout).toMatch(/attempts\s+1 of 1/);
  });

  it('runs 12 jobs at once without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const started: JobView[] = [];
      for (let i = 0; i < 12; i++) started.push(await startJob(core, send('slow', `job ${i}`)));
      const gw = inProcess();
      const waitingOnTasks = async () => {
        const res = await box.run(['job', 'list', '--state', 'running', '--limit', '100', '--json']);
        expect(res.code, res.stderr).toBe(0);
        return (res.json().data.jobs as JobView[]).filter((j) => j.task_id).length;
      };
      await waitFor('12 jobs waiting on their tasks at once', async () => (await waitingOnTasks()) === 12, 15_000);
      await waitFor('every job to finish', async () => (await Promise.all(started.map((j) => job(j.job_id)))).every((j) => j.state === 'succeeded'), 20_000);
      await gw.stop();
      // A warning is emitted on the next tick: let it arrive before looking.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  }, 40_000);
});
