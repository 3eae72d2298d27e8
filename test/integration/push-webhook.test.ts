/** Push config CRUD on both bindings, and callbacks from the SDK's own push sender landing through the receiver. */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { sqliteCallbacks } from '../support/sqlite-callbacks.js';
import { createReceiver, type Receiver } from '../../electron/core/webhook/receiver.js';
import { webhookAuth } from '../../electron/core/webhook/auth.js';

const TOKEN = 'cb-secret-0123456789';
let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let store: Store;
let receiver: Receiver;
let callbackUrl: string;

const dbPath = () => join(box.home, 'state/profiles/default/missive.sqlite3');
const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const dump = () => withDb((d) => ['tasks', 'messages', 'events', 'push_configs'].map((t) => JSON.stringify(d.prepare(`SELECT * FROM ${t}`).all())).join('\n'));

beforeAll(async () => {
  fleet = await startAgents({ worker: { behaviour: 'slow', delayMs: 400, pushNotifications: true }, plain: { behaviour: 'task' } });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox({ CB_TOKEN: TOKEN });
  await register(box, fleet.agents);
  store = openStore(dbPath());
  receiver = createReceiver(
    sqliteCallbacks(() => store),
    { auth: webhookAuth(TOKEN), maxBodyBytes: 64 * 1024 },
  );
  callbackUrl = (await receiver.start()).url;
});
afterEach(async () => {
  await receiver.stop();
  store.close();
  box.dispose();
});

describe('push configs and callbacks', () => {
  for (const binding of ['http+json', 'json-rpc'] as const) {
    it(`registers a config over ${binding} and journals the SDK agent's callbacks`, async () => {
      const alias = `worker-${binding === 'json-rpc' ? 'rpc' : 'rest'}`;
      expect((await box.run(['agent', 'add', alias, fleet.agents.worker!.baseUrl, '--binding-preference', binding])).code).toBe(0);
      const sent = (await box.run(['send', alias, 'work', '--return-immediately', '--json'])).json().data;
      expect(sent.selected_interface.binding).toBe(binding);
      expect(sent.task.state).toBe('working');
      const taskId = sent.task.task_id;
      const created = await box.run(['push', 'create', alias, taskId, '--url', callbackUrl, '--token-env', 'CB_TOKEN', '--config-id', 'cfg-1', '--json']);
      expect(created.code).toBe(0);
      expect(created.json().data.config).toMatchObject({ id: 'cfg-1', url: callbackUrl, token: '[REDACTED]' });

      await until('the completed callback', () =>
        withDb((d) => (d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(taskId) as any)?.state === 'completed'),
      );
      const pushes = withDb(
        (d) =>
          d.prepare(`SELECT event_type, payload_json FROM events WHERE event_type LIKE 'a2a.push.%' AND task_id = ? ORDER BY sequence`).all(taskId) as any[],
      );
      expect(pushes.map((e) => e.event_type)).toContain('a2a.push.status_update');
      // The SDK sender sends no A2A-Version header; the receiver records what arrived (here: none).
      expect(JSON.parse(pushes.at(-1).payload_json)).toHaveProperty('a2a_version', null);
      // The callbacks are among the context's messages, as `missive context export` shows them.
      const exported = (await box.run(['context', 'export', sent.task.context_id, '--json'])).json().data.messages as any[];
      expect(exported.filter((m) => m.direction === 'push' && m.task_id === taskId).length).toBeGreaterThan(0);
      expect(receiver.stats()).toMatchObject({ listening: true, rejected: 0 });

      const listed = (await box.run(['push', 'list', alias, taskId, '--json'])).json().data;
      expect(listed.configs).toMatchObject([{ id: 'cfg-1', token: '[REDACTED]' }]);
      expect((await box.run(['push', 'get', alias, taskId, 'cfg-1', '--json'])).json().data.config.url).toBe(callbackUrl);
      expect((await box.run(['push', 'delete', alias, taskId, 'cfg-1'])).code).toBe(0);
      expect((await box.run(['push', 'list', alias, taskId, '--json'])).json().data.configs).toEqual([]);
      withDb((d) => expect((d.prepare(`SELECT deleted_at FROM push_configs WHERE push_config_id = 'cfg-1'`).get() as any).deleted_at).not.toBeNull());
      expect(dump()).not.toContain(TOKEN);
    });
  }

  it('registers the callback inline with --push-url and creates a placeholder task for unknown ids', async () => {
    const sent = (
      await box.run(['send', 'worker', 'inline', '--return-immediately', '--push-url', callbackUrl, '--push-token-env', 'CB_TOKEN', '--json'])
    ).json().data;
    await until('the inline callback', () =>
      withDb((d) => (d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(sent.task.task_id) as any)?.state === 'completed'),
    );
    // A task the agent has but this journal has never seen (sent from another profile).
    const other = sandbox();
    await register(other, { worker: fleet.agents.worker! });
    const foreign = (await other.run(['send', 'worker', 'elsewhere', '--return-immediately', '--json'])).json().data.task.task_id;
    other.dispose();
    expect((await box.run(['push', 'create', 'worker', foreign, '--url', callbackUrl, '--token-env', 'CB_TOKEN'])).code).toBe(0);
    withDb((d) =>
      expect(d.prepare(`SELECT source, agent_alias FROM tasks WHERE task_id = ?`).get(foreign)).toEqual({ source: 'placeholder', agent_alias: 'worker' }),
    );
    await until('callbacks for the placeholder task', () =>
      withDb((d) => (d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(foreign) as any)?.state === 'completed'),
    );
    expect((await box.run(['push', 'create', 'worker', 'never-existed', '--url', callbackUrl])).code).not.toBe(0);
    withDb((d) => expect(d.prepare(`SELECT count(*) AS n FROM tasks WHERE task_id = 'never-existed'`).get()).toEqual({ n: 0 }));
    expect((await box.run(['push', 'create', 'worker', 'x', '--url', 'ftp://nope'])).code).toBe(64);
    expect((await box.run(['push', 'create', 'worker', 'x', '--url', callbackUrl, '--token-env', 'UNSET_ENV'])).code).toBe(77);
    expect(dump()).not.toContain(TOKEN);
  });
});

describe('webhook receiver', () => {
  const post = (body: string, headers: Record<string, string> = { 'x-a2a-notification-token': TOKEN }) =>
    fetch(callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('answers 202, 400, 401 and 413, journaling rejections redacted', async () => {
    const ok = await post(JSON.stringify({ statusUpdate: { taskId: 'stranger', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }), {
      'x-a2a-notification-token': TOKEN,
      'a2a-version': '1.0',
    });
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ accepted: true, linked: false });
    expect((await post('{not json')).status).toBe(400);
    expect((await post(JSON.stringify({ task: { id: 't' }, message: { messageId: 'm', parts: [] } }))).status).toBe(400);
    expect((await post(JSON.stringify({ progress: 1 }))).status).toBe(400);
    expect((await post('{}', { 'x-a2a-notification-token': 'wrong' })).status).toBe(401);
    expect((await post('{}', {})).status).toBe(401);
    expect((await post(JSON.stringify({ message: { messageId: 'm', parts: [{ text: 'x'.repeat(70 * 1024) }] } }))).status).toBe(413);
    expect(receiver.stats()).toMatchObject({ accepted: 1, rejected: 6 });
    const rejected = withDb((d) =>
      (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'a2a.push.rejected' ORDER BY sequence`).all() as any[]).map((r) =>
        JSON.parse(r.payload_json),
      ),
    );
    // One row for the first rejection of each status from this sender in the minute; the others are counted, and
    // journaled as one summary when the minute closes or the receiver stops.
    expect(rejected.map((r) => r.status)).toEqual([400, 401, 413]);
    await receiver.stop();
    const summaries = withDb((d) =>
      (d.prepare(`SELECT payload_json FROM events WHERE event_type = 'a2a.push.rejected_summary'`).all() as any[]).map((r) => JSON.parse(r.payload_json)),
    );
    expect(summaries).toMatchObject([
      {
        source: '127.0.0.1',
        other_sources: false,
        total: 3,
        rejections: [
          { status: 400, count: 2 },
          { status: 401, count: 1 },
        ],
      },
    ]);
    expect(dump()).not.toContain(TOKEN);
    expect(dump()).not.toContain('"wrong"');
    const unlinked = withDb((d) =>
      JSON.parse((d.prepare(`SELECT payload_json FROM events WHERE event_type = 'a2a.push.status_update'`).get() as any).payload_json),
    );
    expect(unlinked).toMatchObject({ linked: false, task_id: 'stranger', a2a_version: '1.0' });
  });

  it('serves /healthz and /readyz and refuses non-loopback binds without --allow-remote', async () => {
    const base = callbackUrl.replace('/a2a/push', '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ ok: true, store: 'writable' });
    expect((await fetch(`${base}/elsewhere`, { method: 'POST' })).status).toBe(404);
    expect(() =>
      createReceiver(
        sqliteCallbacks(() => store),
        { host: '0.0.0.0' },
      ),
    ).toThrow(/refusing to listen on 0.0.0.0/);
    expect((await box.run(['webhook', 'run', '--host', '0.0.0.0'])).code).toBe(64);
  });

  it('runs as `missive webhook run` and stops cleanly on SIGTERM', async () => {
    const port = Number(new URL(await closedPortUrl()).port);
    const child = spawn(process.execPath, ['bin/missive.js', 'webhook', 'run', '--port', String(port), '--ndjson'], {
      cwd: process.cwd(),
      env: { ...box.env, PATH: process.env.PATH },
    });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    await until('the listening line', () => stdout.includes('webhook_listening'));
    const res = await fetch(`http://127.0.0.1:${port}/a2a/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm1', parts: [{ text: 'hi' }] } }),
    });
    expect(res.status).toBe(202);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['webhook_listening', 'webhook_arrival', 'webhook_stopped']);
    expect(lines.at(-1).data).toMatchObject({ accepted: 1, rejected: 0 });
  });

  it('`missive webhook run` takes its port, path and token from [webhook] of the config; [gateway] keys nothing reads are warned about', async () => {
    const port = Number(new URL(await closedPortUrl()).port);
    mkdirSync(join(box.home, 'config'), { recursive: true });
    writeFileSync(
      join(box.home, 'config/config.toml'),
      `[webhook]\nport = ${port}\npath = "/hooks/a2a"\nauth_token_env = "PUSH_TOKEN"\n\n[gateway]\nenabled = true\n`,
    );
    const child = spawn(process.execPath, ['bin/missive.js', 'webhook', 'run', '--ndjson'], {
      cwd: process.cwd(),
      env: { ...box.env, PATH: process.env.PATH, PUSH_TOKEN: 'tok-123' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    try {
      await until('the listening line', () => stdout.includes('webhook_listening'));
      expect(JSON.parse(stdout.split('\n')[0]!).data).toMatchObject({ url: `http://127.0.0.1:${port}/hooks/a2a` });
      const post = (headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/hooks/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ message: { messageId: 'm1', parts: [{ text: 'hi' }] } }),
        });
      expect((await post({})).status).toBe(401);
      expect((await post({ 'x-a2a-notification-token': 'tok-123' })).status).toBe(202);
      expect(stderr).toContain('[gateway] enabled is read by nothing');
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
