/**
 * Receivers in a pool (team mode): two `webhook run` processes, each in its own MISSIVE_HOME, on one PostgreSQL
 * database, take 400 callbacks at once (16 in flight, alternating between them, as a load balancer would): status
 * updates of a real task, chunks appended to one artifact of it, and callbacks for a task nobody knows. Every callback
 * is answered 202, and each is journaled exactly once (no lost, no doubled event), each chunk is in the artifact
 * exactly once and its version counts every append. With MISSIVE_STORE_URL unset, one receiver writes the profile's
 * SQLite file as before and nothing reaches PostgreSQL. The receivers run built (`npm run build`): processes of their own.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bounded, okData } from '../support/waits.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';
import { startReceiverProcess, type ReceiverProcess } from '../support/receiver-process.js';
import { pgTrap } from '../support/pg-trap.js';
import { withStorage } from '../support/store-reads.js';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';

const TOKEN = 'pool-callback-token-0123456789';
/** Callbacks in flight at once, over all the receivers. */
const IN_FLIGHT = 16;
/** A task no journal of this test knows: its callbacks are journaled unlinked. */
const STRANGER = 'stranger-task-never-sent';
const MARKER = /\b(?:status|chunk|stranger)-\d+\b/g;

type Kind = 'status' | 'artifact' | 'stranger';

interface Callback {
  n: number;
  kind: Kind;
  /** The text only this callback carries. */
  marker: string;
  /** Which receiver it is posted to. */
  receiver: number;
  body: Record<string, unknown>;
}

let agent: EmbeddedAgent;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  agent = await startEmbeddedAgent({ name: 'Tasks', behaviour: 'task' });
});
afterAll(() => agent.close());
afterEach(async () => {
  // Last made, first undone: the receivers before the homes and the database they write.
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

const ok = okData;

/**
 * `count` callbacks: a quarter status updates of the task (working, with a status message), half chunks appended to
 * its artifact `result`, a quarter status updates of STRANGER. Kinds and receivers are interleaved so that every
 * receiver gets callbacks of every kind.
 */
function plan(count: number, receivers: number, task: { task_id: string; context_id: string }): Callback[] {
  return Array.from({ length: count }, (_, n) => {
    const kind: Kind = n % 4 === 0 ? 'status' : n % 4 === 3 ? 'stranger' : 'artifact';
    const marker = `${kind === 'artifact' ? 'chunk' : kind}-${n}`;
    const receiver = (n + Math.floor(n / 4)) % receivers;
    const status = (taskId: string, contextId: string) => ({
      statusUpdate: {
        taskId,
        contextId,
        status: { state: 'TASK_STATE_WORKING', message: { messageId: `msg${n}`, role: 'ROLE_AGENT', parts: [{ text: marker }] } },
      },
    });
    const body =
      kind === 'status'
        ? status(task.task_id, task.context_id)
        : kind === 'stranger'
          ? status(STRANGER, 'stranger-context')
          : {
              artifactUpdate: {
                taskId: task.task_id,
                contextId: task.context_id,
                artifact: { artifactId: 'result', parts: [{ text: marker, mediaType: 'text/plain' }] },
                append: true,
                lastChunk: false,
              },
            };
    return { n, kind, marker, receiver, body };
  });
}

type Started = ReceiverProcess;

/** A receiver of the pool, stopped after the test. */
const startReceiver = (box: Sandbox): Promise<Started> => startReceiverProcess(box, (kill) => cleanups.push(kill));

/** Posts every callback to its receiver, IN_FLIGHT at a time; the answers' status and body, by callback number. */
async function postAll(callbacks: Callback[], receivers: Started[]): Promise<Array<{ status: number; body: unknown }>> {
  const answers: Array<{ status: number; body: unknown }> = [];
  await bounded(callbacks.length, IN_FLIGHT, async (i) => {
    const cb = callbacks[i]!;
    const res = await fetch(receivers[cb.receiver]!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-a2a-notification-token': TOKEN, 'a2a-version': '1.0' },
      body: JSON.stringify(cb.body),
    });
    const text = await res.text();
    answers[cb.n] = { status: res.status, body: text ? JSON.parse(text) : null };
  });
  return answers;
}

/** The markers in `value` (each callback carries exactly one). */
const markersIn = (value: unknown): string[] => JSON.stringify(value).match(MARKER) ?? [];
const sorted = (xs: string[]) => [...xs].sort();

/**
 * What a user sees once `callbacks` were accepted for `task`: every callback journaled once, as `events list` shows;
 * every chunk in the artifact once, its version bumped by each append (`task get`, the storage interface); the
 * stranger's callbacks journaled unlinked, and no task row made for it.
 */
async function expectEveryCallbackOnce(reader: Sandbox, task: { task_id: string; context_id: string }, callbacks: Callback[]): Promise<void> {
  const of = (kind: Kind) => callbacks.filter((c) => c.kind === kind);
  const events = ok(await reader.run(['events', 'list', '--type', 'a2a.push.*', '--limit', '1000', '--json']), 'events list').events as Array<
    Record<string, any>
  >;
  expect(events).toHaveLength(callbacks.length);
  expect(events.filter((e) => e.type === 'a2a.push.rejected')).toEqual([]);
  for (const e of events) expect(markersIn(e.payload), JSON.stringify(e)).toHaveLength(1);
  // No lost and no doubled event: the markers of the journal are the callbacks', each once.
  expect(sorted(events.flatMap((e) => markersIn(e.payload)))).toEqual(sorted(callbacks.map((c) => c.marker)));
  const typeOf = (kind: Kind) => (kind === 'artifact' ? 'a2a.push.artifact_update' : 'a2a.push.status_update');
  for (const kind of ['status', 'artifact', 'stranger'] as const) {
    const mine = new Set(of(kind).map((c) => c.marker));
    const journaled = events.filter((e) => markersIn(e.payload).some((m) => mine.has(m)));
    expect(journaled, kind).toHaveLength(mine.size);
    if (kind === 'stranger') {
      for (const e of journaled)
        expect(e).toMatchObject({
          type: typeOf(kind),
          source: 'webhook',
          agent: null,
          task_id: STRANGER,
          payload: { linked: false, task_id: STRANGER, a2a_version: '1.0' },
        });
    } else {
      // Journaled by the receiver, linked or not (a linked callback once said `cli`, the source of the process).
      for (const e of journaled)
        expect(e).toMatchObject({ type: typeOf(kind), source: 'webhook', agent: 'tasks', task_id: task.task_id, context_id: task.context_id });
    }
  }

  // The artifact: the send's own chunk (version 1), then one chunk and one version per append.
  const appends = of('artifact').length;
  const got = ok(await reader.run(['task', 'get', task.task_id, '--json']), 'task get');
  expect(got).toMatchObject({
    task: { task_id: task.task_id, agent_alias: 'tasks' },
    artifacts: [{ artifact_id: 'result', kind: 'text', version: 1 + appends }],
  });
  const listed = await withStorage(reader, (s) => s.conversation.listArtifactsOfTask(task.task_id));
  expect(listed).toMatchObject([{ artifact_id: 'result', version: 1 + appends, chunks: 1 + appends }]);
  const artifact = await withStorage(reader, (s) => s.conversation.getArtifact(task.task_id, 'result'));
  const parts = artifact!.content.parts as Array<{ text?: string }>;
  expect(artifact!.version).toBe(1 + appends);
  expect(parts).toHaveLength(1 + appends);
  expect(parts[0]!.text).toMatch(/^result for: /);
  expect(sorted(parts.slice(1).flatMap((p) => markersIn(p)))).toEqual(sorted(of('artifact').map((c) => c.marker)));

  // The stranger stays a stranger: journaled, never given a task row.
  expect(await withStorage(reader, (s) => s.conversation.getTask(STRANGER))).toBeUndefined();
}

/** SIGTERM, exit 0, and its `webhook_stopped` stats. */
async function stop(receiver: Started): Promise<{ accepted: number; rejected: number; listening: boolean }> {
  receiver.process.child.kill('SIGTERM');
  expect(await receiver.process.exited, receiver.process.stderr()).toBe(0);
  const stopped = receiver.process.of('webhook_stopped');
  expect(stopped).toHaveLength(1);
  return stopped[0]!.data as { accepted: number; rejected: number; listening: boolean };
}

/** A task of the embedded agent, sent from `box`: completed, with its artifact `result` at version 1. */
async function sendTask(box: Sandbox): Promise<{ task_id: string; context_id: string }> {
  ok(await box.run(['agent', 'add', 'tasks', agent.baseUrl, '--json']), 'agent add');
  const task = ok(await box.run(['send', 'tasks', 'summarise this', '--json']), 'send').task;
  expect(task).toMatchObject({ state: 'completed', artifacts: [{ artifact_id: 'result', version: 1 }] });
  return task;
}

describe('two `webhook run` processes writing one PostgreSQL journal', () => {
  it('journal 400 concurrent callbacks exactly once each, and every chunk of the artifact once', async () => {
    const db: FreshDatabase = await freshPostgresUrl();
    cleanups.push(() => db.drop());
    const password = new URL(db.url).password;
    const alice = sandbox({ MISSIVE_STORE_URL: db.url, CB_TOKEN: TOKEN });
    const bob = sandbox({ MISSIVE_STORE_URL: db.url, CB_TOKEN: TOKEN });
    cleanups.push(
      () => alice.dispose(),
      () => bob.dispose(),
    );

    const task = await sendTask(alice);
    const receivers = [await startReceiver(alice), await startReceiver(bob)];
    expect(receivers[0]!.url).not.toBe(receivers[1]!.url);
    for (const r of receivers) expect(await (await fetch(`${r.base}/readyz`)).json()).toEqual({ ok: true, store: 'writable' });

    const callbacks = plan(400, receivers.length, task);
    const answers = await postAll(callbacks, receivers);
    expect(answers.map((a, n) => ({ n, ...a })).filter((a) => a.status !== 202)).toEqual([]);
    for (const cb of callbacks) expect(answers[cb.n]!.body, cb.marker).toEqual({ accepted: true, linked: cb.kind !== 'stranger' });

    // Read from the other home than the one that sent the task: what the pool wrote is the team's.
    await expectEveryCallbackOnce(bob, task, callbacks);
    for (const r of receivers) {
      const ready = await fetch(`${r.base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ok: true, store: 'writable' });
    }

    const stats = [await stop(receivers[0]!), await stop(receivers[1]!)];
    for (const [i, s] of stats.entries()) {
      const posted = callbacks.filter((c) => c.receiver === i).length;
      expect(s).toMatchObject({ listening: false, accepted: posted, rejected: 0 });
      expect(receivers[i]!.process.of('webhook_arrival')).toHaveLength(posted);
    }
    expect(stats[0]!.accepted + stats[1]!.accepted).toBe(400);
    for (const r of receivers) expect(r.process.stdout() + r.process.stderr()).not.toContain(password);
    for (const r of receivers) expect(r.process.stdout() + r.process.stderr()).not.toContain(TOKEN);
    // Team mode writes no local file.
    for (const box of [alice, bob]) expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(false);
  }, 120_000);
});

describe('one `webhook run` without MISSIVE_STORE_URL', () => {
  it("journals 50 callbacks in the profile's SQLite file, each once, and never reaches PostgreSQL", async () => {
    const trap = await pgTrap();
    cleanups.push(() => trap.close());
    const box = sandbox({ ...trap.env, CB_TOKEN: TOKEN });
    cleanups.push(() => box.dispose());

    const task = await sendTask(box);
    const receiver = await startReceiver(box);
    expect((await fetch(`${receiver.base}/readyz`)).status).toBe(200);

    const callbacks = plan(50, 1, task);
    const answers = await postAll(callbacks, [receiver]);
    expect(answers.filter((a) => a.status !== 202)).toEqual([]);
    for (const cb of callbacks) expect(answers[cb.n]!.body, cb.marker).toEqual({ accepted: true, linked: cb.kind !== 'stranger' });

    await expectEveryCallbackOnce(box, task, callbacks);
    expect((await fetch(`${receiver.base}/readyz`)).status).toBe(200);
    expect(await stop(receiver)).toMatchObject({ listening: false, accepted: 50, rejected: 0 });
    expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(true);
    expect(trap.connections()).toBe(0);
  }, 60_000);
});
