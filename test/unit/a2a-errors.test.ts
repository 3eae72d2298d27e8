/** How each A2A error is recognised from what an agent sent, on every binding and both versions, as one missive error. */
import { describe, expect, it } from 'vitest';
import { a2aError, A2A_ERROR_SPECS, specFromGrpcDetail, specFromGrpcStatus, specOfErrorObject } from '../../electron/core/a2a/a2a-errors.js';
import { a2aErrorOfBody } from '../../electron/core/a2a/http.js';
import { isMissingRoute } from '../../electron/core/a2a/version-mismatch.js';

const info = (reason: string, metadata?: Record<string, string>) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'a2a-protocol.org',
  ...(metadata ? { metadata } : {}),
});

describe('A2A error identities', () => {
  it('names every A2A error by its JSON-RPC code and by its ErrorInfo reason alike', () => {
    for (const spec of A2A_ERROR_SPECS) {
      expect(specOfErrorObject({ code: spec.jsonRpcCode, message: 'x' })?.name).toBe(spec.name);
      expect(specOfErrorObject({ code: 400, status: 'FAILED_PRECONDITION', message: 'x', details: [info(spec.reason)] })?.name).toBe(spec.name);
      // A server-defined code with the ErrorInfo in `data` still names it.
      expect(specOfErrorObject({ code: -32000, message: 'x', data: [info(spec.reason)] })?.name).toBe(spec.name);
    }
    expect(specOfErrorObject({ code: -32000, message: 'task-123' })).toBeUndefined();
    expect(specOfErrorObject({ code: 404, status: 'NOT_FOUND', message: 'no route' })).toBeUndefined();
  });

  it('reads the 1.0 google.rpc.Status body and the 0.3 {code, message} body of HTTP+JSON errors', () => {
    const v10 = a2aErrorOfBody(
      { error: { code: 404, status: 'NOT_FOUND', message: 'Task not found', details: [info('TASK_NOT_FOUND', { taskId: 't-1' })] } },
      'GetTask',
      'http://127.0.0.1:1/a2a/rest/tasks/t-1',
      '1.0',
    );
    expect(v10).toMatchObject({
      code: 'missive::protocol::task_not_found',
      exitCode: 76,
      message: expect.stringContaining('(TaskNotFound: Task not found; {"taskId":"t-1"})'),
    });
    expect(v10!.help).not.toMatch(/base URL/);
    expect(a2aErrorOfBody({ code: -32002, message: 'Task not cancelable' }, 'CancelTask', 'http://127.0.0.1:1/rest/v1/tasks/t:cancel', '0.3')?.code).toBe(
      'missive::protocol::task_not_cancelable',
    );
    expect(a2aErrorOfBody({ code: 404, message: 'not found' }, 'GetTask', 'http://127.0.0.1:1/', '1.0')).toBeUndefined();
  });

  it('keeps a 0.3 TaskNotFound body from passing for a missing route, and a bare 404 page as one', () => {
    expect(isMissingRoute(404, JSON.stringify({ code: -32001, message: 'Task not found' }))).toBe(false);
    expect(isMissingRoute(404, '<html><title>Not Found</title></html>')).toBe(true);
    expect(isMissingRoute(404, JSON.stringify({ detail: 'Not Found' }))).toBe(true);
  });

  it('reads a gRPC status without ErrorInfo: the Python SDK prefix, else only statuses one error can be for the operation', () => {
    expect(specFromGrpcDetail('TaskNotCancelableError: Task cannot be canceled')?.name).toBe('TaskNotCancelable');
    expect(specFromGrpcDetail('AuthenticatedExtendedCardNotConfiguredError: none')?.name).toBe('ExtendedAgentCardNotConfigured');
    expect(specFromGrpcDetail('InternalError: boom')).toBeUndefined();
    expect(specFromGrpcStatus(5, 'GetTask')?.name).toBe('TaskNotFound');
    expect(specFromGrpcStatus(9, 'CancelTask')?.name).toBe('TaskNotCancelable');
    expect(specFromGrpcStatus(9, 'GetExtendedAgentCard')?.name).toBe('ExtendedAgentCardNotConfigured');
    expect(specFromGrpcStatus(12, 'CreateTaskPushNotificationConfig')?.name).toBe('PushNotificationNotSupported');
    expect(specFromGrpcStatus(12, 'SendMessage')).toBeUndefined();
    expect(specFromGrpcStatus(9, 'SendMessage')).toBeUndefined();
  });

  it('gives each error one code, exit 76 and a help naming the agent', () => {
    const codes = new Set(A2A_ERROR_SPECS.map((s) => s.code));
    expect(codes.size).toBe(9);
    for (const spec of A2A_ERROR_SPECS) {
      const error = a2aError(spec, { method: 'SendMessage', url: 'http://127.0.0.1:1/rpc?api_key=k', alias: 'echo', protocolVersion: '1.0', detail: 'said' });
      expect(error).toMatchObject({ code: `missive::protocol::${spec.code}`, exitCode: 76 });
      expect(error.message).not.toContain('api_key=k');
      expect(error.help).toBeTruthy();
      expect(error.help).not.toContain('<agent>');
    }
  });
});
