/**
 * gRPC against the SDK's own gRPC service (@a2a-js/sdk 1.x, A2A 1.0) on loopback: negotiated like the other bindings,
 * through the SDK's gRPC client transport, for send, stream, task get/cancel/list and push config CRUD.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, startAgents } from '../support/agents.js';
import { json, minimalCard, startRawServer } from '../support/raw-server.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({
    tasks: { behaviour: 'task', grpc: true },
    slow: { behaviour: 'slow', delayMs: 2000, grpc: true, pushNotifications: true },
    echo: { behaviour: 'echo', grpc: true },
  });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox({ CB_TOKEN: 'grpc-callback-token-0123456789' });
  for (const [alias, agent] of Object.entries(fleet.agents)) {
    // The gRPC port is another origin than the card's; trusting it lets push tokens go there.
    const res = await box.run(['agent', 'add', alias, agent.baseUrl, '--binding-preference', 'grpc', '--trust-origin', `http://${agent.grpcTarget}`]);
    expect(res.code).toBe(0);
  }
});
afterEach(() => box.dispose());

describe('gRPC binding (A2A 1.0)', () => {
  it('negotiates gRPC from the card when preferred, and keeps HTTP+JSON first by default', async () => {
    const data = (await box.run(['agent', 'inspect', 'tasks', '--json'])).json().data;
    expect(data.selected_interface).toMatchObject({ binding: 'grpc', protocol_binding: 'GRPC', url: fleet.agents.tasks!.grpcTarget, dialect: '1.0' });
    await box.run(['agent', 'add', 'tasks-default', fleet.agents.tasks!.baseUrl]);
    expect((await box.run(['agent', 'inspect', 'tasks-default', '--json'])).json().data.selected_interface.binding).toBe('http+json');
    expect((await box.run(['agent', 'inspect', 'tasks-default', '--binding', 'grpc', '--json'])).json().data.selected_interface.binding).toBe('grpc');
  });

  it('sends, streams, gets, lists and cancels over gRPC', async () => {
    const echo = await box.run(['send', 'echo', 'hi', '--json']);
    expect(echo.code).toBe(0);
    expect(echo.json().data).toMatchObject({ response_shape: 'message', selected_interface: { binding: 'grpc' } });
    expect(echo.json().data.response.message.parts).toEqual([{ text: 'echo: hi' }]);

    const sent = (await box.run(['send', 'tasks', 'build', '--json'])).json().data;
    expect(sent.task).toMatchObject({ state: 'completed', artifacts: [{ artifact_id: 'result' }] });
    const got = await box.run(['task', 'get', sent.task.task_id, '--remote', '--json']);
    expect(got.code).toBe(0);
    expect(got.json().data.task.state).toBe('completed');

    const streamed = await box.run(['stream', 'tasks', 'stream it', '--json']);
    expect(streamed.code).toBe(0);
    expect(streamed.json().data).toMatchObject({ task: { state: 'completed' }, counts: { artifact_update: 1 } });

    const listed = await box.run(['task', 'list', '--remote', '--agent', 'tasks', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.json().data.tasks.map((t: any) => t.task_id)).toEqual(expect.arrayContaining([sent.task.task_id]));

    const slow = (await box.run(['send', 'slow', 'wait', '--return-immediately', '--json'])).json().data.task;
    const cancelled = await box.run(['task', 'cancel', slow.task_id, '--json']);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json().data.task.state).toBe('cancelled');
    const refused = await box.run(['task', 'cancel', sent.task.task_id, '--json']);
    expect(refused.code).toBe(76);
    expect(JSON.parse(refused.stderr).data).toMatchObject({ code: 'missive::protocol::task_not_cancelable' });
    readDb(box, (db) => expect((db.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(slow.task_id) as any).state).toBe('cancelled'));
  });

  it('creates, gets, lists and deletes push configs over gRPC, the token redacted', async () => {
    const slow = (await box.run(['send', 'slow', 'wait', '--return-immediately', '--json'])).json().data.task;
    const url = 'http://127.0.0.1:9/a2a/push';
    const created = await box.run(['push', 'create', 'slow', slow.task_id, '--url', url, '--token-env', 'CB_TOKEN', '--config-id', 'g1', '--json']);
    expect(created.code).toBe(0);
    expect(created.json().data.config).toMatchObject({ id: 'g1', url, token: '[REDACTED]' });
    expect((await box.run(['push', 'get', 'slow', slow.task_id, 'g1', '--json'])).json().data.config).toMatchObject({ id: 'g1', token: '[REDACTED]' });
    expect((await box.run(['push', 'list', 'slow', slow.task_id, '--json'])).json().data.configs).toMatchObject([{ id: 'g1' }]);
    expect((await box.run(['push', 'delete', 'slow', slow.task_id, 'g1'])).code).toBe(0);
    expect((await box.run(['push', 'list', 'slow', slow.task_id, '--json'])).json().data.configs).toEqual([]);
    await box.run(['task', 'cancel', slow.task_id]);
  });

  it('bounds a gRPC call by --timeout (exit 69, transport::timeout)', async () => {
    const res = await box.run(['send', 'slow', 'blocking', '--timeout', '300ms', '--json']);
    expect(res.code).toBe(69);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::transport::timeout');
  });

  it('maps an unreachable gRPC interface to a transport error (exit 69)', async () => {
    const raw = await startRawServer();
    try {
      const dead = new URL(await closedPortUrl());
      raw.route('/.well-known/agent-card.json', (_req, res) =>
        json(res, 200, minimalCard(raw.url, { supportedInterfaces: [{ url: dead.host, protocolBinding: 'GRPC', protocolVersion: '1.0' }] })),
      );
      await box.run(['agent', 'add', 'dead', raw.url]);
      const res = await box.run(['send', 'dead', 'hi', '--json', '--timeout', '5s']);
      expect(res.code).toBe(69);
      expect(JSON.parse(res.stderr).data).toMatchObject({ code: 'missive::transport::connection_refused' });
    } finally {
      await raw.close();
    }
  });
});
