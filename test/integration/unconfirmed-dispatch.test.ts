/**
 * A send job whose gateway died after the request left and before the answer was recorded fails as
 * `job_dispatch_unconfirmed` (never sent twice). Its trail must end: `history show` says `unconfirmed`, not `running`;
 * the error's help names the command that finds the task (`task list --remote --agent A`), and asking the agent that
 * way records the task on the request, so `history show` and `task list` then name it. Against a real SDK agent that
 * answers late, with the gateway a SIGKILLed child process, on both stores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { showJob, startJob } from '../../electron/core/jobs/queue.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let core: Core;
let store: StoreUnderTest;

beforeAll(async () => {
  // Answers 3 s after the message arrives (a task, then completed): time to kill the gateway while it waits.
  fleet = await startAgents({ late: { behaviour: 'task', delayMs: 3000, streaming: false } });
});
afterAll(() => fleet.close());

const launch = (): ChildProcess =>
  spawn(process.execPath, ['bin/missive.js', 'gateway', 'run', '--interval', '100ms', '--claim-ttl', '1s', '--ndjson'], {
    cwd: process.cwd(),
    env: { ...box.env, PATH: process.env.PATH },
  });
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

const ok = async (args: string[]) => {
  const res = await box.run([...args, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
};
const waitFor = async (what: string, probe: () => Promise<unknown>, timeout = 10_000): Promise<void> => {
  await expect.poll(async () => Boolean(await probe()), { timeout, interval: 50, message: `timed out waiting for ${what}` }).toBe(true);
};

describe.each(STORES)('an unconfirmed send job (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, fleet.agents);
    core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  });
  afterEach(async () => {
    core.close();
    box.dispose();
    await store.release();
  });

  it('ends its trail: history says unconfirmed, the help names task list --remote, which records the task', async () => {
    const messageId = randomUUID();
    const started = await startJob(core, { kind: 'send', input: { agent: 'late', text: 'did it arrive', cwd: box.home, messageId } });
    const posts = () => fleet.agents.late!.requests.filter((r) => r.method === 'POST').length;
    const postsBefore = posts();
    let child = launch();
    // The agent has the message (the gateway dies while it waits for the answer, not before the request left).
    await waitFor('the request to reach the agent', async () => posts() > postsBefore);
    expect((await ok(['events', 'list', '--type', 'a2a.send.started'])).events).toHaveLength(1);
    child.kill('SIGKILL');
    await exited(child);
    child = launch();
    await waitFor('the job to fail', async () => (await showJob(core, started.job_id)).state === 'failed', 15_000);
    child.kill('SIGTERM');
    await exited(child);

    const job = await showJob(core, started.job_id);
    const error = (job.result as { error: { code: string; help?: string } }).error;
    expect(error.code).toBe('missive::orchestration::job_dispatch_unconfirmed');

    // The request's trail ends: unconfirmed, not running.
    const before = (await ok(['history', 'show', messageId])).entry;
    expect(before).toMatchObject({ outcome: 'unconfirmed', task_id: null, error: { code: 'missive::orchestration::job_dispatch_unconfirmed' } });
    expect((await ok(['history', 'list'])).entries.map((e: { outcome: string }) => e.outcome)).toEqual(['unconfirmed']);
    const shown = await box.run(['history', 'show', messageId]);
    expect(shown.stdout).toMatch(/outcome\s+unconfirmed/);
    expect(shown.stdout).toContain('find its task: missive task list --remote --agent late');
    expect(error.help).toContain('missive task list --remote --agent late');

    // The agent did the work: asking it (ListTasks) records its task on the request.
    // (The agent keeps the tasks of earlier tests: this one's is the task whose history holds our message.)
    await waitFor('the agent to complete the task', async () => {
      await ok(['task', 'list', '--remote', '--agent', 'late']);
      return (await ok(['history', 'show', messageId])).entry.state === 'completed';
    });
    const after = (await ok(['history', 'show', messageId])).entry;
    expect(after).toMatchObject({ outcome: 'unconfirmed', state: 'completed', answer_text: 'done: did it arrive' });
    expect(after.task_id).toBeTruthy();
    const local = (await ok(['task', 'list'])).tasks.find((t: { task_id: string }) => t.task_id === after.task_id);
    expect(local).toMatchObject({ agent_alias: 'late', state: 'completed' });
    const human = await box.run(['history', 'show', messageId]);
    expect(human.stdout).toMatch(/outcome\s+unconfirmed \(completed\)/);
    expect(human.stdout).not.toContain('find its task');
  }, 40_000);
});
