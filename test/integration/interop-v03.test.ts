/**
 * The same commands against an agent built on @a2a-js/sdk 0.3 (installed as `a2a-sdk-v03`), on each binding it
 * serves: JSON-RPC, HTTP+JSON and gRPC. The card is a v0.3 card (url + preferredTransport + additionalInterfaces);
 * missive speaks the v0.3 dialect, and outputs, rows and exit codes are those of a v1.0 agent on the same binding.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { sqliteCallbacks } from '../support/sqlite-callbacks.js';
import { createReceiver, type Receiver } from '../../electron/core/webhook/receiver.js';
import { webhookAuth } from '../../electron/core/webhook/auth.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';

const CB_TOKEN = 'v03-callback-token-0123456789';
let peer: LegacyPeer;
let box: Sandbox;

beforeAll(async () => {
  peer = await startV03Peer({ slowMs: 600 });
});
afterAll(() => peer.close());
beforeEach(async () => {
  box = sandbox({ CB_TOKEN });
  for (const [binding, alias] of Object.entries(ALIAS)) {
    // gRPC listens on its own port: another origin, trusted here so push tokens may go there (see origin-pinning.test.ts).
    const trust = binding === 'grpc' ? ['--trust-origin', `http://${peer.grpcTarget}`] : [];
    const res = await box.run(['agent', 'add', alias, peer.baseUrl, '--binding-preference', binding, ...trust]);
    expect(res.code).toBe(0);
  }
});
afterEach(() => box.dispose());

const ALIAS = { 'json-rpc': 'v03-jsonrpc', 'http+json': 'v03-httpjson', grpc: 'v03-grpc' } as const;

describe('A2A v0.3 peer (@a2a-js/sdk 0.3)', () => {
  it('inspects the v0.3 card: its version, every interface, and the dialect missive will speak', async () => {
    const res = await box.run(['agent', 'inspect', 'v03-jsonrpc', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(data.card).toMatchObject({ name: 'v03-peer', format: '0.3', declared_protocol_version: '0.3.0', protocol_versions: ['0.3.0'] });
    expect(data.card.supported_interfaces.map((i: any) => [i.protocol_binding, i.url])).toEqual([
      ['JSONRPC', peer.jsonRpcUrl],
      ['HTTP+JSON', peer.restUrl],
      ['GRPC', peer.grpcTarget],
    ]);
    expect(data.selected_interface).toMatchObject({
      binding: 'json-rpc',
      url: peer.jsonRpcUrl,
      protocol_version: '0.3.0',
      dialect: '0.3',
      source: 'agent_card',
    });
    const human = await box.run(['agent', 'inspect', 'v03-grpc']);
    expect(human.stdout).toMatch(/card format\s+A2A 0\.3 \(declares protocolVersion 0\.3\.0\)/);
    expect(human.stdout).toContain(`gRPC ${peer.grpcTarget} (card says A2A 0.3.0; missive speaks the 0.3 dialect`);
  });

  for (const binding of ['json-rpc', 'http+json', 'grpc'] as const) {
    const alias = ALIAS[binding];

    it(`sends, streams, gets and cancels over ${binding} with v1.0 outputs and exit codes`, async () => {
      const echo = await box.run(['send', alias, 'echo hello', '--json']);
      expect(echo.code).toBe(0);
      expect(echo.json().data).toMatchObject({ response_shape: 'message', selected_interface: { binding, dialect: '0.3' } });
      expect(echo.json().data.response.message.parts).toEqual([{ text: 'echo: echo hello' }]);

      const sent = await box.run(['send', alias, 'build it', '--json']);
      expect(sent.code).toBe(0);
      const task = sent.json().data.task;
      expect(task).toMatchObject({ state: 'completed', artifacts: [{ artifact_id: 'result', version: 1 }] });
      const got = await box.run(['task', 'get', task.task_id, '--remote', '--json']);
      expect(got.code).toBe(0);
      expect(got.json().data.task).toMatchObject({ state: 'completed', remote_state: 'TASK_STATE_COMPLETED', protocol_version: '0.3.0' });

      const streamed = await box.run(['stream', alias, 'stream it', '--ndjson']);
      expect(streamed.code).toBe(0);
      const lines = streamed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.kind === 'stream_event').map((l) => l.data.variant)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(lines.at(-1)).toMatchObject({ kind: 'stream_result', data: { events: 4, task: { state: 'completed' }, last_message_text: 'done: stream it' } });

      const slow = (await box.run(['send', alias, 'slow job', '--return-immediately', '--json'])).json().data.task;
      expect(['submitted', 'working']).toContain(slow.state);
      const cancelled = await box.run(['task', 'cancel', slow.task_id, '--json']);
      expect(cancelled.code).toBe(0);
      expect(cancelled.json().data.task.state).toBe('cancelled');

      const refused = await box.run(['task', 'cancel', task.task_id, '--json']);
      // TaskNotCancelable, as from a v1.0 agent on any binding (see a2a-errors.test.ts).
      expect(refused.code).toBe(76);
      expect(JSON.parse(refused.stderr).data).toMatchObject({
        code: 'missive::protocol::task_not_cancelable',
        message: expect.stringMatching(/not cancelable/i),
      });

      readDb(box, (db) => {
        const states = db.prepare(`SELECT state FROM tasks WHERE task_id IN (?, ?) ORDER BY state`).all(task.task_id, slow.task_id) as Array<{ state: string }>;
        expect(states.map((s) => s.state)).toEqual(['cancelled', 'completed']);
        const streamEvents = db
          .prepare(
            `SELECT count(*) AS n FROM events WHERE event_type IN ('a2a.stream.task', 'a2a.stream.status_update', 'a2a.stream.artifact_update', 'a2a.stream.message')`,
          )
          .get() as { n: number };
        expect(streamEvents.n).toBe(4);
      });
    });

    it(`creates a push config over ${binding} and journals the v0.3 agent's callbacks`, async () => {
      const store: Store = openStore(join(box.home, 'state/profiles/default/missive.sqlite3'));
      const receiver: Receiver = createReceiver(
        sqliteCallbacks(() => store),
        { auth: webhookAuth(CB_TOKEN), maxBodyBytes: 64 * 1024 },
      );
      try {
        const url = (await receiver.start()).url;
        const slow = (await box.run(['send', alias, 'slow push', '--return-immediately', '--json'])).json().data.task;
        const created = await box.run([
          'push',
          'create',
          alias,
          slow.task_id,
          '--url',
          url,
          '--token-env',
          'CB_TOKEN',
          '--config-id',
          `cfg-${binding}`,
          '--json',
        ]);
        expect(created.code).toBe(0);
        expect(created.json().data.config).toMatchObject({ id: `cfg-${binding}`, taskId: slow.task_id, url, token: '[REDACTED]' });
        expect(created.stdout).not.toContain(CB_TOKEN);
        await until('the completed callback', () =>
          readDb(box, (db) => (db.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(slow.task_id) as any)?.state === 'completed'),
        );
        const pushed = readDb(
          box,
          (db) => db.prepare(`SELECT payload_json FROM events WHERE event_type LIKE 'a2a.push.%' AND task_id = ? ORDER BY sequence`).all(slow.task_id) as any[],
        );
        expect(pushed.length).toBeGreaterThan(0);
        expect(JSON.parse(pushed.at(-1).payload_json)).toMatchObject({ dialect: '0.3' });
        expect(receiver.stats()).toMatchObject({ rejected: 0 });
      } finally {
        await receiver.stop();
        store.close();
      }
    });
  }

  it('says ListTasks is not part of A2A 0.3 and what to use instead (exit 76)', async () => {
    const res = await box.run(['task', 'list', '--remote', '--agent', 'v03-jsonrpc', '--json']);
    expect(res.code).toBe(76);
    expect(JSON.parse(res.stderr).data).toMatchObject({
      code: 'missive::protocol::not_in_dialect',
      help: expect.stringContaining('missive task list --agent v03-jsonrpc'),
    });
  });

  it('sends A2A-Version 0.3 and never the v1.0 content type to a v0.3 agent', async () => {
    peer.requests.length = 0;
    await box.run(['send', 'v03-jsonrpc', 'echo a', '--a2a-extension', 'https://example.com/ext/v1']);
    await box.run(['send', 'v03-httpjson', 'echo b']);
    const calls = peer.requests.filter((r) => r.method === 'POST');
    expect(calls.map((r) => r.path)).toEqual(['/rpc', '/rest/v1/message:send']);
    for (const call of calls) {
      expect(call.headers['a2a-version']).toBe('0.3');
      expect(call.headers['content-type']).toMatch(/^application\/json/);
    }
    expect(calls[0]!.headers['x-a2a-extensions']).toBe('https://example.com/ext/v1');
  });

  it('names a version mismatch when forced to speak 1.0 to it, on JSON-RPC and on HTTP+JSON (one line, exit 76)', async () => {
    const rpc = await box.run(['send', 'v03-jsonrpc', 'echo x', '--protocol-version', '1.0', '--json']);
    expect(rpc.code).toBe(76);
    const rpcErr = JSON.parse(rpc.stderr).data;
    expect(rpcErr.code).toBe('missive::protocol::version_mismatch');
    expect(rpcErr.message).toMatch(/answered "Method not found": the agent seems to speak another A2A version than the 1\.0 missive spoke/);
    expect(rpcErr.help).toContain('--protocol-version 0.3');
    const rest = await box.run(['send', 'v03-httpjson', 'echo x', '--protocol-version', '1.0']);
    expect(rest.code).toBe(76);
    expect(rest.stderr).toMatch(/SendMessage at http:\/\/127\.0\.0\.1:\d+\/rest\/message:send answered HTTP 404: the agent seems to speak another A2A version/);
    expect(rest.stderr).not.toMatch(/<|DOCTYPE/i);
    expect(rest.stderr.trim().split('\n')).toHaveLength(2); // the message and its help, nothing of the page
  });
});

describe('the gateway following a v0.3 agent', () => {
  for (const binding of ['json-rpc', 'grpc'] as const) {
    it(`resubscribes over ${binding} (v0.3 tasks/resubscribe, gRPC taskSubscription) until the task settles`, async () => {
      const sent = (await box.run(['send', ALIAS[binding], 'slow follow', '--return-immediately', '--json'])).json().data.task;
      const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
      const stop = new AbortController();
      const done = runGateway(core, { intervalMs: 100, signal: stop.signal });
      try {
        await until('completion', () =>
          readDb(box, (db) => (db.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(sent.task_id) as any)?.state === 'completed'),
        );
      } finally {
        stop.abort();
        await done;
        core.close();
      }
      readDb(box, (db) => {
        expect(db.prepare(`SELECT kind, state FROM gateway_jobs WHERE task_id = ?`).get(sent.task_id)).toEqual({
          kind: 'task_subscription',
          state: 'succeeded',
        });
        const types = (db.prepare(`SELECT event_type FROM events WHERE task_id = ? ORDER BY sequence`).all(sent.task_id) as any[]).map((e) => e.event_type);
        expect(types).toEqual(expect.arrayContaining(['a2a.subscription.started', 'a2a.subscription.status_update']));
      });
    });
  }
});

describe('a v0.3 agent behind a bearer token', () => {
  const SECRET = 'v03-bearer-token-0123456789';
  let guarded: LegacyPeer;
  beforeAll(async () => {
    guarded = await startV03Peer({ bearer: SECRET });
  });
  afterAll(() => guarded.close());

  for (const binding of ['json-rpc', 'http+json'] as const) {
    it(`gets the token on its own origin over ${binding}, and a refusal is an auth error as on 1.0 (exit 77)`, async () => {
      const local = sandbox({ V03_TOKEN: SECRET });
      try {
        await local.run(['agent', 'add', 'guarded', guarded.baseUrl, '--binding-preference', binding]);
        const refused = await local.run(['send', 'guarded', 'echo hi', '--json']);
        expect(refused.code).toBe(77);
        expect(JSON.parse(refused.stderr).data).toMatchObject({ code: 'missive::auth::unauthorized', message: expect.stringContaining('HTTP 401') });
        const ok = await local.run(['send', 'guarded', 'echo hi', '--bearer-token-env', 'V03_TOKEN', '--json']);
        expect(ok.code).toBe(0);
        expect(ok.stdout).not.toContain(SECRET);
        expect(guarded.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
      } finally {
        local.dispose();
      }
    });
  }
});
