/**
 * The webhook receiver against hostile or careless senders: a body nested 50,000 deep is a journaled 400 (not a 500),
 * a connection that never finishes its headers or body is answered 408 and closed, out-of-range flags are usage
 * errors, and callbacks for tasks missive does not know are still found with `events list --task`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { closedPortUrl } from '../support/agents.js';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { sqliteCallbacks } from '../support/sqlite-callbacks.js';
import { createReceiver, type Receiver } from '../../electron/core/webhook/receiver.js';

const DEPTH = 50_000;

let box: Sandbox;
let store: Store;
let receiver: Receiver;
let callbackUrl: string;

const post = (body: string) => fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const rejections = () =>
  readDb(box, (d) =>
    (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'a2a.push.rejected' ORDER BY sequence`).all() as any[]).map((r) =>
      JSON.parse(r.payload_json),
    ),
  );

beforeEach(async () => {
  box = sandbox();
  store = openStore(join(box.home, 'state/profiles/default/missive.sqlite3'));
  receiver = createReceiver(sqliteCallbacks(() => store));
  callbackUrl = (await receiver.start()).url;
});
afterEach(async () => {
  await receiver.stop();
  store.close();
  box.dispose();
});

describe('webhook receiver hardening', () => {
  it('answers 400 to a body nested 50,000 deep and journals it as a2a.push.rejected', async () => {
    const deepArray = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
    const deepInside = `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"},"metadata":{"x":${deepArray}}}}`;
    for (const body of [deepArray, deepInside]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toMatch(/deeper than 128 levels/);
    }
    // The first is a row of its own; the second, from the same sender within the minute, is counted in the summary.
    expect(rejections()).toMatchObject([{ status: 400, reason: expect.stringMatching(/deeper than 128/) }]);
    // The receiver is still up and accepting.
    expect((await post(JSON.stringify({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }))).status).toBe(202);
    expect(receiver.stats()).toMatchObject({ accepted: 1, rejected: 2 });
    await receiver.stop();
    const summaries = readDb(box, (d) =>
      (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'a2a.push.rejected_summary'`).all() as any[]).map((r) => JSON.parse(r.payload_json)),
    );
    expect(summaries).toMatchObject([{ total: 1, rejections: [{ status: 400, count: 1, reason: expect.stringMatching(/deeper than 128/) }] }]);
  });

  it('fills task_id for callbacks of unknown tasks, so `events list --task` finds them', async () => {
    const callbacks = [
      { statusUpdate: { taskId: 'stranger-status', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } },
      { artifactUpdate: { taskId: 'stranger-artifact', contextId: 'c1', artifact: { artifactId: 'a1', parts: [{ text: 'x' }] } } },
      { task: { id: 'stranger-task', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } },
    ];
    for (const callback of callbacks) expect((await post(JSON.stringify(callback))).status).toBe(202);
    for (const [taskId, type] of [
      ['stranger-status', 'a2a.push.status_update'],
      ['stranger-artifact', 'a2a.push.artifact_update'],
      ['stranger-task', 'a2a.push.task'],
    ]) {
      const listed = await box.run(['events', 'list', '--task', taskId!, '--json']);
      expect(listed.code).toBe(0);
      expect(listed.json().data.events).toMatchObject([{ type, task_id: taskId }]);
    }
  });

  it('refuses out-of-range ports, body limits and timeouts as usage errors', async () => {
    for (const args of [
      ['--port', '70000'],
      ['--max-body-bytes', '0'],
      ['--headers-timeout', '0s'],
      ['--body-timeout', 'soon'],
      ['--body-timeout', '2h'],
    ]) {
      const run = await box.run(['webhook', 'run', ...args, '--json']);
      expect(run.code, args.join(' ')).toBe(64);
      expect(run.stdout + run.stderr).not.toMatch(/at .*\.js:\d+/);
    }
  });
});

describe('`missive webhook run` against slow senders', () => {
  let child: ChildProcess | undefined;
  afterEach(() => void child?.kill('SIGKILL'));

  /** Opens a raw socket, writes `text` and never anything more; resolves with all the receiver sent before it closed. */
  async function stall(port: number, text: string): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (c) => (received += c));
    socket.on('close', () => (closed = true));
    socket.on('error', () => (closed = true));
    socket.write(text);
    await until('the receiver to close the stalled connection', () => closed, 15_000);
    return received;
  }

  it('answers 408 and closes a connection whose body or headers never finish, and journals the body timeout', async () => {
    const port = Number(new URL(await closedPortUrl()).port);
    child = spawn(
      process.execPath,
      ['bin/missive.js', 'webhook', 'run', '--port', String(port), '--headers-timeout', '300ms', '--body-timeout', '300ms', '--ndjson'],
      {
        cwd: process.cwd(),
        env: { ...box.env, PATH: process.env.PATH },
      },
    );
    let stdout = '';
    child.stdout!.on('data', (c) => (stdout += c));
    await until('the listening line', () => stdout.includes('webhook_listening'));

    const slowBody = await stall(port, 'POST /a2a/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sta');
    expect(slowBody).toMatch(/^HTTP\/1\.1 408 /);
    const slowHeaders = await stall(port, 'POST /a2a/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le');
    expect(slowHeaders).toMatch(/^HTTP\/1\.1 408 /);

    // Still serving afterwards.
    const ok = await fetch(`http://127.0.0.1:${port}/a2a/push`, {
      method: 'POST',
      body: JSON.stringify({ message: { messageId: 'm1', parts: [{ text: 'hi' }] } }),
    });
    expect(ok.status).toBe(202);
    child.kill('SIGTERM');
    expect(await new Promise((r) => child!.on('exit', r))).toBe(0);
    const arrivals = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.kind === 'webhook_arrival');
    expect(arrivals.map((a) => a.data.status)).toEqual([408, 202]);
    expect(rejections()).toMatchObject([{ status: 408, reason: expect.stringMatching(/body not complete within 300 ms/) }]);
  });
});
