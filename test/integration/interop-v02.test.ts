/**
 * The same commands against a v0.2-style agent: @a2a-js/sdk 0.2 (installed as `a2a-sdk-v02`), JSON-RPC only, its card
 * at the legacy /.well-known/agent.json with a `url` and no protocol version.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { startV02Peer, type LegacyPeer } from '../support/legacy-peers.js';

let peer: LegacyPeer;
let box: Sandbox;

beforeAll(async () => {
  peer = await startV02Peer({ slowMs: 1500 });
});
afterAll(() => peer.close());
beforeEach(async () => {
  box = sandbox({ CB_TOKEN: 'v02-callback-token-0123456789' });
  expect((await box.run(['agent', 'add', 'old', peer.baseUrl])).code).toBe(0);
});
afterEach(() => box.dispose());

describe('A2A v0.2-style peer (@a2a-js/sdk 0.2)', () => {
  it('finds the card at /.well-known/agent.json, reads it as v0.2 and keeps asking there', async () => {
    peer.requests.length = 0;
    const res = await box.run(['agent', 'inspect', 'old', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(data.cache.url).toBe(`${peer.baseUrl}/.well-known/agent.json`);
    expect(data.card).toMatchObject({ name: 'v02-peer', format: '0.2', declared_protocol_version: null, protocol_versions: ['0.2'] });
    expect(data.card.supported_interfaces).toEqual([{ protocol_binding: 'JSONRPC', url: peer.jsonRpcUrl, protocol_version: '0.2', tenant: null }]);
    expect(data.selected_interface).toMatchObject({ binding: 'json-rpc', url: peer.jsonRpcUrl, dialect: '0.3' });
    expect(peer.requests.map((r) => r.path)).toEqual(['/.well-known/agent-card.json', '/.well-known/agent.json']);

    peer.requests.length = 0;
    expect((await box.run(['agent', 'refresh', 'old'])).code).toBe(0);
    expect(peer.requests.map((r) => r.path)).toEqual(['/.well-known/agent.json']);
    const human = await box.run(['agent', 'inspect', 'old']);
    expect(human.stdout).toMatch(/card format\s+A2A 0\.2, from http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent\.json/);
  });

  it('sends, streams, gets and cancels with the exit codes of a v1.0 JSON-RPC agent', async () => {
    const echo = await box.run(['send', 'old', 'echo there', '--json']);
    expect(echo.code).toBe(0);
    expect(echo.json().data.response.message.parts).toEqual([{ text: 'echo: echo there' }]);

    const task = (await box.run(['send', 'old', 'build', '--json'])).json().data.task;
    expect(task).toMatchObject({ state: 'completed', artifacts: [{ artifact_id: 'result' }] });
    expect((await box.run(['task', 'get', task.task_id, '--remote', '--json'])).json().data.task).toMatchObject({
      state: 'completed',
      protocol_version: '0.2',
    });

    const streamed = await box.run(['stream', 'old', 'stream it', '--json']);
    expect(streamed.code).toBe(0);
    expect(streamed.json().data).toMatchObject({ events: 4, task: { state: 'completed' }, last_message_text: 'done: stream it' });

    const slow = (await box.run(['send', 'old', 'slow one', '--return-immediately', '--json'])).json().data.task;
    expect((await box.run(['task', 'cancel', slow.task_id, '--json'])).code).toBe(0);
    // A 0.2 agent answers the cancel before applying it; the wait sees it land, with the v1.0 outcome code.
    const waited = await box.run(['task', 'wait', slow.task_id, '--interval', '100ms', '--json']);
    expect(waited.code).toBe(81);
    expect(waited.json().data).toMatchObject({ outcome: 'cancelled', exit_code: 81 });
    const refused = await box.run(['task', 'cancel', task.task_id, '--json']);
    expect(refused.code).toBe(76);
    expect(JSON.parse(refused.stderr).data).toMatchObject({
      code: 'missive::protocol::task_not_cancelable',
      message: expect.stringMatching(/\(TaskNotCancelable: Task not cancelable/),
    });
    readDb(box, (db) => expect((db.prepare(`SELECT count(*) AS n FROM tasks WHERE agent_alias = 'old'`).get() as any).n).toBe(3));
  });

  it('creates a push config; an operation v0.2 lacks is named, not a raw -32601 (exit 76)', async () => {
    const slow = (await box.run(['send', 'old', 'slow push', '--return-immediately', '--json'])).json().data.task;
    const created = await box.run(['push', 'create', 'old', slow.task_id, '--url', 'http://127.0.0.1:9/a2a/push', '--token-env', 'CB_TOKEN', '--json']);
    expect(created.code).toBe(0);
    expect(created.json().data.config).toMatchObject({ url: 'http://127.0.0.1:9/a2a/push', token: '[REDACTED]' });
    const list = await box.run(['push', 'list', 'old', slow.task_id, '--json']);
    expect(list.code).toBe(76);
    const err = JSON.parse(list.stderr).data;
    expect(err.code).toBe('missive::protocol::version_mismatch');
    expect(err.message).toContain('ListTaskPushNotificationConfigs (tasks/pushNotificationConfig/list)');
    expect(err.message).toContain(
      'answered "Method not found": the agent seems to speak another A2A version than the 0.3 missive spoke, or does not implement it',
    );
  });

  it('refuses a binding the card does not offer (exit 69)', async () => {
    const res = await box.run(['send', 'old', 'hi', '--binding', 'http+json']);
    expect(res.code).toBe(69);
    expect(res.stderr).toMatch(/does not advertise http\+json \(it offers: JSONRPC\)/);
  });
});
