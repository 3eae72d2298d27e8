/** What the conformance probe accepts as an agent's TaskNotFound answer, and what it does not. */
import { describe, expect, it } from 'vitest';
import { protocolError, transportError } from '../../shared/errors.js';
import type { WireExchange } from '../../shared/ipc/contract.js';
import { isTaskNotFound } from '../../electron/core/conformance/task-not-found.js';

const exchange = (protocol: 'http' | 'grpc', status: number | null, body: string | null, error: string | null = null): WireExchange => ({
  id: 'x',
  operation: 'GetTask',
  started_at: new Date(0).toISOString(),
  duration_ms: 1,
  request: { protocol, method: 'POST', url: 'http://127.0.0.1:1/', headers: {}, body: null },
  response: status === null ? null : { status, headers: {}, body },
  error: error ? { code: 'missive::protocol::grpc_error', message: error } : null,
});

const failure = protocolError('jsonrpc_error', 'GetTask failed');
const httpFailure = transportError('http_status', 'GetTask answered HTTP 404');

describe('TaskNotFound recognition', () => {
  it('accepts the A2A error on every wire', () => {
    expect(
      isTaskNotFound(failure, [exchange('http', 200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Task not found' } }))]),
    ).toBe(true);
    const rest = {
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'Task not found',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
      },
    };
    expect(isTaskNotFound(httpFailure, [exchange('http', 404, JSON.stringify(rest))])).toBe(true);
    expect(isTaskNotFound(httpFailure, [exchange('http', 404, JSON.stringify({ code: -32001, message: 'Task not found' }))])).toBe(true);
    expect(isTaskNotFound(failure, [exchange('grpc', null, null, 'GetTask failed with gRPC status 5: Task not found')])).toBe(true);
  });

  it('refuses a missing route, another error, a refusal and an auth failure', () => {
    expect(isTaskNotFound(httpFailure, [exchange('http', 404, '<html><title>Not Found</title></html>')])).toBe(false);
    expect(isTaskNotFound(httpFailure, [exchange('http', 404, JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: 'no such route' } }))])).toBe(
      false,
    );
    expect(isTaskNotFound(failure, [exchange('http', 200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal' } }))])).toBe(
      false,
    );
    expect(isTaskNotFound(httpFailure, [exchange('http', 401, JSON.stringify({ code: -32001, message: 'unauthorised' }))])).toBe(false);
    expect(isTaskNotFound(failure, [exchange('grpc', null, null, 'GetTask failed with gRPC status 13: boom')])).toBe(false);
  });
});
