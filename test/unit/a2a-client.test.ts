/**
 * The A2A client (electron/core/a2a/client.ts) on both 1.0 wires it writes itself, against a raw loopback peer: each
 * operation sends the interface's tenant (the tenant decorator) where A2A 1.0 puts it, answers come back typed and in
 * the SDK's canonical form, and a request that names its own tenant keeps it; a shared deadline already passed sends
 * nothing (the deadline decorator).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BindingCall } from '../../electron/core/a2a/binding-call.js';
import { a2aClient } from '../../electron/core/a2a/client.js';
import type { SelectedInterface } from '../../electron/core/a2a/interfaces.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';

const TASK = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' }, extra: 'dropped by the codec' };

let peer: RawServer;
beforeAll(async () => {
  peer = await startRawServer();
  // JSON-RPC: answers every method with what its client reads.
  peer.route('/rpc', (_req, res, body) => {
    const { id, method } = JSON.parse(body) as { id: string; method: string };
    const result = method === 'ListTasks' ? { tasks: [TASK], nextPageToken: '', totalSize: 1 } : method === 'SendMessage' ? { task: TASK } : TASK;
    json(res, 200, { jsonrpc: '2.0', id, result });
  });
  peer.route('/rest/tasks/t-1', (_req, res) => json(res, 200, TASK));
  peer.route('/rest/message:send', (_req, res) => json(res, 200, { message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }));
});
afterAll(() => peer.close());

const callOf = (binding: 'http+json' | 'json-rpc', tenant: string | null): BindingCall => {
  const iface: SelectedInterface = {
    binding,
    protocol_binding: binding === 'json-rpc' ? 'JSONRPC' : 'HTTP+JSON',
    url: `${peer.url}/${binding === 'json-rpc' ? 'rpc' : 'rest'}`,
    tenant,
    protocol_version: '1.0',
    dialect: '1.0',
    source: 'agent_card',
  };
  return { iface, headers: {}, timeoutMs: 5_000, protocolVersion: '1.0', alias: 'raw' };
};

const lastBody = () => JSON.parse(peer.requests.at(-1)!.body) as { params: Record<string, unknown> } & Record<string, unknown>;

describe('the A2A client', () => {
  it('sends the interface tenant with every JSON-RPC operation and reads typed, canonical answers', async () => {
    const client = a2aClient(callOf('json-rpc', 'acme'));
    const task = await client.getTask({ id: 't-1', historyLength: 2 });
    expect(lastBody().params).toEqual({ tenant: 'acme', id: 't-1', historyLength: 2 });
    expect(task).toEqual({ id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } });
    const page = await client.listTasks({ pageSize: 1 });
    expect(lastBody().params).toEqual({ tenant: 'acme', pageSize: 1 });
    expect(page).toEqual({ tasks: [task], nextPageToken: null, totalSize: 1 });
    const sent = await client.sendMessage({ tenant: 'other', message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(lastBody().params.tenant).toBe('other');
    expect(sent.task?.id).toBe('t-1');
  });

  it('keeps the tenant out of HTTP+JSON paths and queries, and puts it in the bodies it sends', async () => {
    const client = a2aClient(callOf('http+json', 'acme'));
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(peer.requests.at(-1)).toMatchObject({ method: 'GET', path: '/rest/tasks/t-1', body: '' });
    const sent = await client.sendMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(JSON.parse(peer.requests.at(-1)!.body)).toMatchObject({ tenant: 'acme', message: { messageId: 'm-1' } });
    expect(sent.message?.messageId).toBe('m-2');
  });

  it('adds no tenant when the interface has none', async () => {
    await a2aClient(callOf('json-rpc', null)).cancelTask({ id: 't-1' });
    expect(lastBody()).toMatchObject({ method: 'CancelTask', params: { id: 't-1' } });
    expect(lastBody().params).not.toHaveProperty('tenant');
  });

  it('sends nothing once a shared deadline has passed: a timeout (exit 69)', async () => {
    const before = peer.requests.length;
    const client = a2aClient(callOf('json-rpc', null), { deadline: Date.now() - 1 });
    await expect(client.getTask({ id: 't-1' })).rejects.toMatchObject({ code: 'missive::transport::timeout', exitCode: 69 });
    expect(peer.requests.length).toBe(before);
    expect((await a2aClient(callOf('json-rpc', null), { deadline: Date.now() + 60_000 }).getTask({ id: 't-1' })).id).toBe('t-1');
  });
});
