/**
 * `missive job start|list|show|cancel|wait` against real SDK agents, on both stores (the embedded SQLite file and a
 * shared PostgreSQL database): the queued jobs, views, secrets, --attach. Jobs are read back as `job list|show` show
 * them, the journal as `events list` does; the request a job stores for the gateway (no command shows it) with the same
 * SQL on either engine.
 */
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { storeRows, storeText } from '../support/store-reads.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { gatewayRuns, runGateway } from '../../electron/core/gateway/gateway.js';

const REF_SECRET = 'ref-7f3e9a1c5b2d4e6f';
const HEADER_SECRET = 'hdr-52c4e8a0b6d19f37';
const MARKER = 'job-text-marker-c81f2a9e';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let store: StoreUnderTest;
let downUrl: string;

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    tasks: { behaviour: 'task' },
    fail: { behaviour: 'fail' },
    slow: { behaviour: 'slow', delayMs: 3000, streaming: false },
  });
  downUrl = await closedPortUrl();
});
afterAll(() => fleet.close());

/** A sandbox on `kind`'s store with the fleet, an agent behind an auth ref and a group. */
function onStore(kind: StoreKindUnderTest) {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox({ REF_TOKEN: REF_SECRET, ...store.env });
    await register(box, fleet.agents);
    expect((await box.run(['auth', 'add', 'ref', '--env', 'REF_TOKEN', '--header-name', 'X-Ref-Token', '--scheme', 'none'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'guarded', fleet.agents.echo!.baseUrl, '--auth-ref', 'ref'])).code).toBe(0);
    expect((await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks'])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });
}

/**
 * A gateway in this process for each test of the block (on the block's store), running before the test starts: a
 * `job start` made while it was still joining would print a "no gateway runs" warning on stderr too.
 */
function withGateway() {
  let core: Core;
  let stop: AbortController;
  let gateway: Promise<unknown>;
  beforeEach(async () => {
    core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    stop = new AbortController();
    gateway = runGateway(core, { intervalMs: 100, signal: stop.signal });
    await expect.poll(() => gatewayRuns(core), { timeout: 10_000, interval: 20 }).toBe(true);
  });
  afterEach(async () => {
    stop.abort();
    await gateway;
    core.close();
  });
}

/**
 * The envelopes a command printed on stderr (`--json`: errors pretty-printed, warnings one line each), in whatever
 * order its writers put them: a warning may come before or after the error.
 */
function stderrEnvelopes(stderr: string): any[] {
  const found: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < stderr.length; i++) {
    const c = stderr[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' && depth++ === 0) start = i;
    else if (c === '}' && --depth === 0) found.push(JSON.parse(stderr.slice(start, i + 1)));
  }
  return found;
}

/** The one error envelope's data among what a command printed on stderr (warnings may come before or after it). */
function errorOf(stderr: string): any {
  const errors = stderrEnvelopes(stderr).filter((e) => e.kind === 'error');
  expect(errors, stderr).toHaveLength(1);
  return errors[0].data;
}

/** The jobs as `job list` shows them, newest first. */
const jobList = async (): Promise<any[]> => {
  const res = await box.run(['job', 'list', '--limit', '1000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.jobs;
};
const jobShow = async (id: string) => {
  const res = await box.run(['job', 'show', id, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
};
/** What a job stores for the gateway to execute (no command shows it). */
const storedRequest = async (id: string): Promise<string> =>
  (await storeRows(box, `SELECT request_json FROM gateway_jobs WHERE job_id = ?`, [id]))[0]!.request_json;
/** The payloads of the journal's events of `type`, oldest first, as `events list` shows them. */
const eventsOf = async (type: string): Promise<any[]> => {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '10000', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.events.map((e: any) => e.payload);
};
const taskState = async (taskId: string) => {
  const res = await box.run(['task', 'get', taskId, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data.task.state;
};
const agentPosts = () => Object.values(fleet.agents).reduce((n, a) => n + a.requests.filter((r) => r.method === 'POST').length, 0);

/** `job start … --attach --json`, which must succeed: the finished job. */
async function attach(args: string[]) {
  const res = await box.run(['job', 'start', ...args, '--attach', '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
}

async function startJob(args: string[]) {
  const res = await box.run(['job', 'start', ...args, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return res.json().data;
}

describe.each(STORES)('job commands (%s store)', (kind) => {
  onStore(kind);

  describe('job start', () => {
    it('records each kind as a queued job and returns at once, sending nothing', async () => {
      const context = (await box.run(['context', 'create', '--name', 'launch', '--json'])).json().data.context_id as string;
      const posts = agentPosts();
      const send = await startJob(['send', 'echo', 'hello', '--max-attempts', '3']);
      const stream = await startJob(['stream', 'tasks', '--part', 'text=one', '--part', 'text=two', '--force']);
      const wait = await startJob(['wait', 'remote-task-1', '--agent', 'tasks']);
      const bcast = await startJob(['bcast', 'g', 'status?', '--context', 'launch', '--execution', 'sequential']);
      expect(agentPosts()).toBe(posts);

      expect(send).toMatchObject({
        kind: 'send',
        state: 'queued',
        agent: 'echo',
        attempts: 0,
        max_attempts: 3,
        summary: { kind: 'send', agent: 'echo', parts: 1, bytes: 5 },
        outcome: null,
        exit_code: null,
      });
      expect(send.summary.message_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(stream).toMatchObject({ kind: 'stream', state: 'queued', agent: 'tasks', max_attempts: 1, summary: { parts: 2 } });
      expect(wait).toMatchObject({ kind: 'wait', state: 'queued', agent: 'tasks', task_id: 'remote-task-1' });
      expect(bcast).toMatchObject({ kind: 'bcast', state: 'queued', group: 'g', context_id: context, summary: { parts: 1 } });

      const listed = (await box.run(['job', 'list', '--json'])).json();
      expect(listed.kind).toBe('job_list');
      expect(listed.data.jobs.map((j: any) => [j.job_id, j.kind, j.state, j.attempts, j.max_attempts])).toEqual([
        [bcast.job_id, 'bcast', 'queued', 0, 1],
        [wait.job_id, 'wait', 'queued', 0, 1],
        [stream.job_id, 'stream', 'queued', 0, 1],
        [send.job_id, 'send', 'queued', 0, 3],
      ]);
      const shown = (await box.run(['job', 'show', send.job_id, '--json'])).json();
      expect(shown).toMatchObject({ kind: 'job_show', data: { job_id: send.job_id, state: 'queued' } });

      // What the gateway will execute: the parts as built at start, the message id fixed then, no per-process wire or
      // deadline, and nothing the gateway's host would read (no path, no working directory).
      const stored = JSON.parse(await storedRequest(send.job_id));
      expect(stored).toMatchObject({
        kind: 'send',
        input: { agent: 'echo', captured: { parts: [{ text: 'hello' }], bytes: 5 }, messageId: send.summary.message_id },
      });
      expect(Object.keys(stored.input).sort()).toEqual(['agent', 'captured', 'messageId']);
      expect(JSON.parse(await storedRequest(stream.job_id))).toMatchObject({
        kind: 'stream',
        force: true,
        input: { captured: { parts: [{ text: 'one' }, { text: 'two' }] } },
      });
      expect(JSON.parse(await storedRequest(bcast.job_id))).toMatchObject({
        kind: 'bcast',
        group: 'g',
        contextId: context,
        execution: 'sequential',
        inputs: { captured: { parts: [{ text: 'status?' }] } },
      });
      expect((await eventsOf('missive.job.started')).map((p) => p.job_id)).toEqual([send, stream, wait, bcast].map((j) => j.job_id));
    });

    it('records a reduce job of a known context as a queued job, sending nothing', async () => {
      const context = (await box.run(['context', 'create', '--name', 'launch', '--json'])).json().data.context_id as string;
      const posts = agentPosts();
      const reduce = await startJob(['reduce', 'g', '--context', 'launch', '--strategy', 'vote']);
      expect(agentPosts()).toBe(posts);
      expect(reduce).toMatchObject({
        kind: 'reduce',
        state: 'queued',
        group: 'g',
        context_id: context,
        attempts: 0,
        max_attempts: 1,
        summary: { strategy: 'vote', reducer: 'local' },
      });
      expect((await jobList()).map((j) => [j.job_id, j.state])).toEqual([[reduce.job_id, 'queued']]);
      expect((await eventsOf('missive.job.started')).map((p) => p.job_id)).toEqual([reduce.job_id]);
    });

    it('prints the job and how to follow it, and warns when no gateway runs', async () => {
      const res = await box.run(['job', 'start', 'send', 'echo', 'hello']);
      expect(res.code).toBe(0);
      const id = (await jobList())[0].job_id as string;
      expect(res.stdout).toContain(`job ${id.slice(0, 8)} send echo: queued`);
      expect(res.stdout).toContain(`missive job wait ${id.slice(0, 8)}`);
      expect(res.stderr).toContain('no gateway runs for this profile');
    });

    it('refuses bad inputs at start, with their exit code, and records nothing', async () => {
      const cases: Array<[string[], number, string]> = [
        [['send', 'nobody', 'hi'], 64, 'missive::validation::unknown_agent'],
        [['stream', 'nobody', 'hi'], 64, 'missive::validation::unknown_agent'],
        [['bcast', 'nogroup', 'hi'], 64, 'missive::validation::unknown_group'],
        [['reduce', 'nogroup', '--context', 'c1'], 64, 'missive::validation::unknown_group'],
        [['reduce', 'g', '--context', 'c1', '--strategy', 'custom'], 64, 'missive::validation::template_required'],
        [['reduce', 'g', '--context', 'c1', '--reducer-agent', 'echo', '--gateway-command', 'cat'], 64, 'missive::validation::conflicting_reducers'],
        // A job never carries a command line: the gateway runs only commands its own config names.
        [['reduce', 'g', '--context', 'c1', '--command', 'cat'], 64, 'missive::validation::command_in_job'],
        [['send', 'echo', 'hi', '--push-url', 'http://127.0.0.1:9/p', '--push-token-env', 'HOME'], 64, 'missive::validation::push_token_in_job'],
        [['wait', 't-1', '--agent', 'nobody'], 64, 'missive::validation::unknown_agent'],
        [['send', 'echo'], 64, 'missive::validation::empty_message'],
        [['bcast', 'g'], 64, 'missive::validation::empty_message'],
        [['send', 'echo', 'hi', '--max-attempts', '0'], 64, 'missive::validation::invalid_arguments'],
        [['send', 'echo', 'hi', '--max-attempts', '101'], 64, 'missive::validation::invalid_arguments'],
        [['send', 'echo', '--file', 'missing.txt'], 64, 'missive::validation::file_not_found'],
      ];
      cases.push([['reduce', 'g', '--context', 'no-such-context'], 64, 'missive::validation::unknown_context']);
      for (const [args, code, errorCode] of cases) {
        const res = await box.run(['job', 'start', ...args, '--json']);
        expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(code);
        expect(res.stdout).toBe('');
        if (errorCode) expect(errorOf(res.stderr).code).toBe(errorCode);
      }
      expect(await jobList()).toEqual([]);
      expect(await eventsOf('missive.job.started')).toEqual([]);
    });
  });

  describe('job list, show and cancel', () => {
    it('filters by state, finds jobs by their short ids and refuses unknown ones', async () => {
      const a = await startJob(['send', 'echo', 'one']);
      const b = await startJob(['send', 'echo', 'two']);
      expect((await box.run(['job', 'cancel', b.job_id])).code).toBe(0);

      const queued = (await box.run(['job', 'list', '--state', 'queued', '--json'])).json().data.jobs;
      expect(queued.map((j: any) => j.job_id)).toEqual([a.job_id]);
      const cancelled = (await box.run(['job', 'list', '--state', 'cancelled', '--json'])).json().data.jobs;
      expect(cancelled.map((j: any) => j.job_id)).toEqual([b.job_id]);
      expect((await box.run(['job', 'list', '--limit', '1', '--json'])).json().data.jobs).toHaveLength(1);
      const bogus = await box.run(['job', 'list', '--state', 'bogus']);
      expect(bogus.code).toBe(64);
      expect(bogus.stderr).toContain('unknown job state "bogus"');
      expect((await box.run(['job', 'list', '--state', 'running'])).stdout).toContain('No running jobs.');

      // The table's 8-character ids name each job on their own.
      const table = (await box.run(['job', 'list'])).stdout;
      expect(table.split('\n')[0]).toMatch(/^JOB\s+KIND\s+STATE\s+TARGET/);
      for (const job of [a, b]) {
        const short = job.job_id.slice(0, 8);
        expect(table).toContain(short);
        expect(table).not.toContain(job.job_id);
        const shown = await box.run(['job', 'show', short, '--json']);
        expect(shown.code, shown.stderr).toBe(0);
        expect(shown.json().data.job_id).toBe(job.job_id);
      }
      const human = await box.run(['job', 'show', a.job_id.slice(0, 8)]);
      expect(human.stdout).toMatch(/^job\s+/m);
      expect(human.stdout).toMatch(/state\s+queued/);
      expect(human.stdout).toMatch(/attempts\s+0 of 1/);

      const unknown = await box.run(['job', 'show', 'ffffffff', '--json']);
      expect(unknown.code).toBe(64);
      expect(errorOf(unknown.stderr).code).toBe('missive::validation::unknown_job');
      expect((await box.run(['job', 'cancel', 'ffffffff'])).code).toBe(64);
    });

    it('cancels a queued job once and journals it', async () => {
      const job = await startJob(['send', 'echo', 'hello']);
      const res = await box.run(['job', 'cancel', job.job_id.slice(0, 8), '--json']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.json()).toMatchObject({
        kind: 'job_cancel',
        data: { cancelled: true, remote: null, job: { job_id: job.job_id, state: 'cancelled', outcome: 'cancelled', exit_code: 81 } },
      });
      expect(await jobShow(job.job_id)).toMatchObject({ state: 'cancelled', attempts: 0 });
      expect(await eventsOf('missive.job.cancelled')).toEqual([{ job_id: job.job_id, kind: 'send', remote: false }]);
      const again = await box.run(['job', 'cancel', job.job_id]);
      expect(again.code).toBe(64);
      expect(again.stderr).toContain('already cancelled');
      expect(await eventsOf('missive.job.cancelled')).toHaveLength(1);
      // Nothing was ever sent.
      expect(await eventsOf('a2a.send.*')).toEqual([]);
      expect(Number((await storeRows(box, `SELECT count(*) AS n FROM messages`))[0]!.n)).toBe(0);
    });

    it('cancel --remote sends CancelTask for the task of a wait job', async () => {
      const sent = await box.run(['send', 'slow', 'long work', '--return-immediately', '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      const taskId = sent.json().data.task.task_id as string;
      const job = await startJob(['wait', taskId]);
      expect(job.task_id).toBe(taskId);
      const res = await box.run(['job', 'cancel', job.job_id, '--remote', '--json']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.json().data).toMatchObject({ cancelled: true, remote: { task_id: taskId, state: 'cancelled' }, job: { state: 'cancelled' } });
      expect(fleet.agents.slow!.requests.some((r) => r.method === 'POST' && r.path.includes(':cancel'))).toBe(true);
      expect(await taskState(taskId)).toBe('cancelled');
      expect(await eventsOf('missive.job.cancelled')).toEqual([{ job_id: job.job_id, kind: 'wait', remote: true }]);
      // A job that never reached an agent has no task to cancel remotely.
      const queued = await startJob(['send', 'echo', 'hi']);
      const none = await box.run(['job', 'cancel', queued.job_id, '--remote']);
      expect(none.code).toBe(70);
      expect(none.stderr).toContain('has no task to cancel remotely');
    });
  });

  describe('job views', () => {
    it('never show the request text or a secret', async () => {
      const start = await box.run(['job', 'start', 'send', 'guarded', MARKER, '--header', `X-Api-Key: ${HEADER_SECRET}`]);
      expect(start.code, start.stderr).toBe(0);
      expect(start.stderr).toContain('--header and --bearer-token-env are not stored with a job');
      const id = (await jobList())[0].job_id as string;
      await startJob(['bcast', 'g', `${MARKER} to all`]);
      const outputs = [start];
      for (const args of [
        ['job', 'list'],
        ['job', 'list', '--json'],
        ['job', 'list', '--ndjson'],
        ['job', 'show', id],
        ['job', 'show', id, '--json'],
      ]) {
        const res = await box.run(args);
        expect(res.code, res.stderr).toBe(0);
        outputs.push(res);
      }
      expect(outputs[4]!.stdout).toMatch(/input\s+1 part\(s\), 24 B/);
      for (const res of outputs) {
        for (const hidden of [MARKER, REF_SECRET, HEADER_SECRET]) expect(res.stdout + res.stderr).not.toContain(hidden);
      }
      const started = await eventsOf('missive.job.started');
      expect(started).toHaveLength(2);
      for (const payload of started) for (const hidden of [MARKER, REF_SECRET, HEADER_SECRET]) expect(JSON.stringify(payload)).not.toContain(hidden);
      expect(started[0]).toMatchObject({ job_id: id, kind: 'send', agent: 'guarded', parts: 1, bytes: MARKER.length });
      // The stored request keeps the text for the gateway, never a credential.
      expect(await storedRequest(id)).toContain(MARKER);
      const stored = await storeText(box);
      expect(stored).toContain(MARKER);
      for (const secret of [REF_SECRET, HEADER_SECRET]) expect(stored).not.toContain(secret);
    });

    it('refuse a message that holds a credential of the agent, a member or the invocation, and record nothing', async () => {
      // The keyring ref of a group member, the env ref of the agent, and this invocation's --header.
      expect((await box.run(['auth', 'add', 'kr', '--keyring-service', 'missive-test', '--keyring-account', 'job-kr'])).code).toBe(0);
      expect((await box.run(['auth', 'set-secret', 'kr'], { stdin: 'kr-secret-5d1c9e7a\n' })).code).toBe(0);
      expect((await box.run(['agent', 'add', 'kept', fleet.agents.tasks!.baseUrl, '--auth-ref', 'kr'])).code).toBe(0);
      expect((await box.run(['group', 'create', 'kg', '--member', 'echo', '--member', 'kept'])).code).toBe(0);
      const cases: Array<[string[], string]> = [
        [['send', 'guarded', `my key is ${REF_SECRET}`], 'the auth ref "ref" of agent "guarded"'],
        [['stream', 'guarded', '--json-part', JSON.stringify({ key: REF_SECRET })], 'the auth ref "ref" of agent "guarded"'],
        [['bcast', 'kg', 'use kr-secret-5d1c9e7a please'], 'the auth ref "kr" of agent "kept"'],
        [['send', 'echo', `header ${HEADER_SECRET}`, '--header', `X-Api-Key: ${HEADER_SECRET}`], '--header'],
      ];
      for (const [args, source] of cases) {
        const res = await box.run(['job', 'start', ...args, '--json']);
        expect(res.code, res.stderr).toBe(64);
        // The error is one of the envelopes on stderr (a --header warning comes with it).
        const error = errorOf(res.stderr);
        expect(error.code).toBe('missive::validation::credential_in_job');
        expect(error.message).toContain(source);
        for (const secret of [REF_SECRET, HEADER_SECRET, 'kr-secret-5d1c9e7a']) expect(res.stdout + res.stderr).not.toContain(secret);
      }
      expect(await jobList()).toEqual([]);
      const stored = await storeText(box);
      for (const secret of [REF_SECRET, HEADER_SECRET, 'kr-secret-5d1c9e7a']) expect(stored).not.toContain(secret);
      // The same text without the credential is taken.
      expect((await box.run(['job', 'start', 'send', 'guarded', 'my key is elsewhere'])).code).toBe(0);
    });
  });

  describe('job start --attach', () => {
    withGateway();

    it('follows a job to its end and exits with its exit code', async () => {
      const done = await box.run(['job', 'start', 'send', 'tasks', 'summarise this', '--attach', '--json']);
      expect(done.code, done.stderr).toBe(0);
      expect(done.json()).toMatchObject({
        kind: 'job_finished',
        data: { kind: 'send', state: 'succeeded', outcome: 'completed', exit_code: 0, attempts: 1, attach: { finished: true, stopped: null } },
      });
      expect(done.json().data.task_id).toBeTruthy();
      expect(await taskState(done.json().data.task_id)).toBe('completed');

      const failed = await box.run(['job', 'start', 'send', 'fail', 'do it', '--attach']);
      expect(failed.code, failed.stderr).toBe(80);
      expect(failed.stdout).toMatch(/outcome\s+failed/);
      expect(failed.stderr).toContain('missive: orchestration error: job');

      // `job wait` on a finished job answers at once with the same code.
      const id = (await jobList())[0].job_id as string;
      const again = await box.run(['job', 'wait', id.slice(0, 8), '--json']);
      expect(again.code).toBe(80);
      expect(again.json().data).toMatchObject({ job_id: id, outcome: 'failed', exit_code: 80 });
    });

    it('runs stream, bcast and wait jobs to their end', async () => {
      const stream = await attach(['stream', 'tasks', 'write it']);
      expect(stream).toMatchObject({ kind: 'stream', state: 'succeeded', outcome: 'completed', result: { counts: { task: 1 } } });
      expect(await taskState(stream.task_id)).toBe('completed');
      const bcast = await attach(['bcast', 'g', 'status?']);
      expect(bcast).toMatchObject({ kind: 'bcast', state: 'succeeded', exit_code: 0 });
      expect(bcast.result.members.map((m: any) => m.agent).sort()).toEqual(['echo', 'tasks']);
      const human = await box.run(['job', 'show', bcast.job_id]);
      expect(human.stdout).toMatch(/RANK\s+AGENT\s+STATUS\s+TASK\s+STATE/);
      const taskId = (await box.run(['send', 'slow', 'long work', '--return-immediately', '--json'])).json().data.task.task_id as string;
      const wait = await attach(['wait', taskId]);
      expect(wait).toMatchObject({ kind: 'wait', state: 'succeeded', task_id: taskId, outcome: 'completed', exit_code: 0 });
    });

    it('runs a reduce job to its end', async () => {
      const bcast = await attach(['bcast', 'g', 'status?']);
      const reduce = await attach(['reduce', 'g', '--context', bcast.result.context_id]);
      expect(reduce).toMatchObject({ kind: 'reduce', state: 'succeeded', context_id: bcast.result.context_id, result: { strategy: 'summarise' } });
      expect(reduce.result.reduced_text).toContain('echo: status?');
    });

    it('retries a refused send up to --max-attempts, then exits with the error of the last attempt', async () => {
      expect((await box.run(['agent', 'add', 'down', downUrl])).code).toBe(0);
      const res = await box.run(['job', 'start', 'send', 'down', 'hello', '--max-attempts', '2', '--attach']);
      expect(res.code, res.stderr).toBe(69);
      expect(res.stdout).toMatch(/send down: retrying \(attempt 1 of 2\) — .*refused the connection/);
      expect(res.stdout).toMatch(/state\s+failed/);
      expect(res.stdout).toMatch(/attempts\s+2 of 2/);
      expect(res.stderr).toMatch(/missive: transport error: job [0-9a-f-]{36} failed after 2 attempt\(s\): .*refused the connection/);
      const [job] = await jobList();
      expect(job).toMatchObject({ state: 'failed', attempts: 2 });
      expect(await eventsOf('missive.job.retrying')).toHaveLength(1);
      const shown = await jobShow(job.job_id);
      expect(shown).toMatchObject({ outcome: 'error', exit_code: 69, result: { error: { category: 'transport' } } });
    });

    it("does not retry an A2A error: the agent's TaskNotFound ends the job at its first attempt (exit 76)", async () => {
      const retriesBefore = (await eventsOf('missive.job.retrying')).length;
      const res = await box.run(['job', 'start', 'wait', 'no-such-task-5c1e', '--agent', 'tasks', '--max-attempts', '3', '--attach', '--json']);
      expect(res.code, res.stderr).toBe(76);
      expect(errorOf(res.stderr).code).toMatch(/job_failed|task_not_found/);
      const [job] = await jobList();
      expect(job).toMatchObject({ kind: 'wait', state: 'failed', attempts: 1 });
      expect(await eventsOf('missive.job.retrying')).toHaveLength(retriesBefore);
      const shown = await jobShow(job.job_id);
      expect(shown).toMatchObject({ exit_code: 76, result: { error: { code: 'missive::protocol::task_not_found' } } });
    });

    it('stops following at --timeout with exit 82 and leaves the job running', async () => {
      const res = await box.run(['job', 'start', 'send', 'slow', 'long work', '--attach', '--timeout', '400ms', '--json']);
      expect(res.code, res.stderr).toBe(82);
      const data = res.json().data;
      expect(data.attach).toEqual({ finished: false, stopped: 'deadline' });
      expect(['queued', 'running']).toContain(data.state);
      expect(errorOf(res.stderr).code).toBe('missive::orchestration::job_attach_timeout');
      // Still unfinished: the operator can cancel it (and its task).
      const cancelled = await box.run(['job', 'cancel', data.job_id, '--json']);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(cancelled.json().data.cancelled).toBe(true);
    });

    it('Ctrl-C stops following with exit 130 and says the job keeps running', async () => {
      const child = spawn(process.execPath, ['bin/missive.js', 'job', 'start', 'send', 'slow', 'long work', '--attach'], {
        cwd: process.cwd(),
        env: { ...box.env, PATH: process.env.PATH },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => void (stdout += c));
      child.stderr.on('data', (c) => void (stderr += c));
      // 'close', not 'exit': the warning is on stderr only once its pipe is drained ('exit' may come first).
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      await expect.poll(async () => stdout.includes(': running') && (await jobList())[0]?.state === 'running', { timeout: 10_000, interval: 50 }).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain('it keeps running in the gateway');
      const [row] = await jobList();
      expect(row.state).toBe('running');
      expect((await box.run(['job', 'cancel', row.job_id])).code).toBe(0);
    });

    it('refuses cancel --remote on a finished job as it refuses cancel (same code, same exit code), sending nothing', async () => {
      const done = await box.run(['job', 'start', 'send', 'tasks', 'finish first', '--attach', '--json']);
      expect(done.code, done.stderr).toBe(0);
      const { job_id: id, task_id: taskId } = done.json().data;
      expect(taskId).toBeTruthy();
      const cancels = () => fleet.agents.tasks!.requests.filter((r) => r.method === 'POST' && r.path.includes(':cancel')).length;
      const before = cancels();
      const plain = await box.run(['job', 'cancel', id, '--json']);
      const remote = await box.run(['job', 'cancel', id, '--remote', '--json']);
      expect(plain.code).toBe(64);
      expect(remote.code).toBe(plain.code);
      expect(errorOf(remote.stderr).code).toBe(errorOf(plain.stderr).code);
      expect(errorOf(remote.stderr).code).toBe('missive::validation::job_finished');
      expect(remote.stdout).toBe('');
      expect(cancels()).toBe(before);
      expect(await eventsOf('missive.job.cancelled')).toEqual([]);
      expect(await jobShow(id)).toMatchObject({ state: 'succeeded' });
    });

    it('shows progress lines while it follows, in ndjson', async () => {
      const res = await box.run(['job', 'start', 'send', 'echo', 'hi', '--attach', '--ndjson']);
      expect(res.code, res.stderr).toBe(0);
      const lines = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ kind: 'job_started', data: { state: 'queued' } });
      expect(lines.at(-1)).toMatchObject({ kind: 'job_finished', data: { state: 'succeeded', exit_code: 0, result: { response_shape: 'message' } } });
      expect(lines.slice(1, -1).every((l) => l.kind === 'job_progress')).toBe(true);
      expect(lines.map((l) => l.sequence)).toEqual(lines.map((_, i) => i));
    });
  });
});
