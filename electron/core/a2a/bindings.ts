/**
 * The two A2A bindings missive speaks, behind one call shape: HTTP+JSON (`POST <iface>/message:send`, …) and
 * JSON-RPC 2.0 (`SendMessage`, …). Both send the same service-parameter and auth headers; both map A2A errors.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { protocolError } from '../../../shared/errors.js';
import { assertOk, httpRequest, isVersionNotSupported, versionNotSupportedError } from './http.js';
import type { SelectedInterface } from './interfaces.js';

export const A2A_JSON = 'application/a2a+json';

export interface BindingCall {
  iface: SelectedInterface;
  headers: Record<string, string>;
  timeoutMs: number;
  protocolVersion: string;
  dispatcher?: Dispatcher;
  secrets?: readonly string[];
  maxResponseBytes?: number;
}

/** JSON-RPC method → HTTP+JSON route for the unary operations. */
const pushConfigs = (p: Record<string, unknown>) => `tasks/${encodeURIComponent(String(p.taskId))}/pushNotificationConfigs`;
const pushConfig = (p: Record<string, unknown>) => `${pushConfigs(p)}/${encodeURIComponent(String(p.id))}`;

const REST_ROUTES: Record<string, (params: Record<string, unknown>) => { method: 'GET' | 'POST' | 'DELETE'; path: string }> = {
  SendMessage: () => ({ method: 'POST', path: 'message:send' }),
  GetTask: (p) => ({ method: 'GET', path: `tasks/${encodeURIComponent(String(p.id))}` }),
  CancelTask: (p) => ({ method: 'POST', path: `tasks/${encodeURIComponent(String(p.id))}:cancel` }),
  ListTasks: (p) => ({ method: 'GET', path: `tasks${queryString(p)}` }),
  CreateTaskPushNotificationConfig: (p) => ({ method: 'POST', path: pushConfigs(p) }),
  GetTaskPushNotificationConfig: (p) => ({ method: 'GET', path: pushConfig(p) }),
  ListTaskPushNotificationConfigs: (p) => ({ method: 'GET', path: `${pushConfigs(p)}${queryString({ pageSize: p.pageSize, pageToken: p.pageToken })}` }),
  DeleteTaskPushNotificationConfig: (p) => ({ method: 'DELETE', path: pushConfig(p) }),
};

/** Query string of the defined scalar params (tenant travels in the interface URL on HTTP+JSON). */
function queryString(params: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (key !== 'tenant' && value !== undefined && value !== null && value !== '') q.set(key, String(value));
  const text = q.toString();
  return text ? `?${text}` : '';
}

const parseJson = (text: string, what: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw protocolError('invalid_json', `${what} is not valid JSON: ${(error as Error).message}`);
  }
};

/** Performs one unary A2A operation and returns the result JSON (unwrapped from JSON-RPC). */
export async function callUnary(call: BindingCall, method: keyof typeof REST_ROUTES, params: Record<string, unknown>): Promise<unknown> {
  const { iface } = call;
  const common = { timeoutMs: call.timeoutMs, dispatcher: call.dispatcher, secrets: call.secrets, maxResponseBytes: call.maxResponseBytes };
  if (iface.binding === 'http+json') {
    const route = REST_ROUTES[method]!(params);
    const url = `${iface.url.replace(/\/+$/, '')}/${route.path}`;
    const res = await httpRequest({
      ...common,
      url,
      method: route.method,
      headers: { ...call.headers, Accept: `${A2A_JSON}, application/json`, ...(route.method === 'POST' ? { 'Content-Type': A2A_JSON } : {}) },
      body: route.method === 'POST' ? JSON.stringify(params) : undefined,
    });
    assertOk(res, `${method}`, url, call.protocolVersion);
    // 204 No Content (DeleteTaskPushNotificationConfig) has no body to parse.
    return res.body.trim() ? parseJson(res.body, `the ${method} response`) : null;
  }
  const id = randomUUID();
  const res = await httpRequest({
    ...common,
    url: iface.url,
    method: 'POST',
    headers: { ...call.headers, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const body = res.body ? (parseJson(res.body, `the ${method} JSON-RPC response`) as Record<string, unknown>) : undefined;
  if (body && typeof body === 'object' && 'error' in body && body.error) {
    if (isVersionNotSupported(body)) throw versionNotSupportedError(call.protocolVersion, (body.error as { message?: string }).message);
    const err = body.error as { code?: number; message?: string };
    throw protocolError('jsonrpc_error', `${method} failed with JSON-RPC error ${err.code ?? '?'}: ${err.message ?? 'no message'}`);
  }
  assertOk(res, method, iface.url, call.protocolVersion);
  if (!body || typeof body !== 'object' || body.jsonrpc !== '2.0' || !('result' in body)) {
    throw protocolError('invalid_jsonrpc', `the ${method} response is not a JSON-RPC 2.0 result`);
  }
  return body.result;
}
