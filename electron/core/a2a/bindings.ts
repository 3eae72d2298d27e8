/**
 * Every unary A2A operation behind one call shape, whatever the wire: missive's own code for A2A 1.0 over HTTP+JSON
 * (`POST <iface>/message:send`, `GET <iface>/extendedAgentCard`, …) and JSON-RPC 2.0 (`SendMessage`, …); the SDK for the v0.3 dialect and for gRPC
 * (sdk-transport.ts). All send the same service-parameter and auth headers and map errors to the same codes.
 */
import { randomUUID } from 'node:crypto';
import { protocolError } from '../../../shared/errors.js';
import { A2A_JSON, type BindingCall } from './binding-call.js';
import { assertAuthorized, assertOk, httpRequest, type HttpRequest } from './http.js';
import { assertSameId, jsonRpcFailure, type JsonRpcErrorObject } from './jsonrpc-errors.js';
import { callRest, parseJson, restRequest, type RestRoute } from './rest-call.js';
import type { UnaryMethod } from './sdk-transport.js';
import { checkUnaryAnswer } from './unary-answer.js';
import { viaSdk } from './interfaces.js';
import { withReauth } from './reauth.js';
import { assertFewObjects } from './wire-limits.js';

export { A2A_JSON, type BindingCall } from './binding-call.js';

const pushConfigs = (p: Record<string, unknown>) => `tasks/${encodeURIComponent(String(p.taskId))}/pushNotificationConfigs`;
const pushConfig = (p: Record<string, unknown>) => `${pushConfigs(p)}/${encodeURIComponent(String(p.id))}`;

/** JSON-RPC method → A2A 1.0 HTTP+JSON route. */
const REST_ROUTES: Record<UnaryMethod, (params: Record<string, unknown>) => Omit<RestRoute, 'contentType'>> = {
  SendMessage: () => ({ method: 'POST', path: 'message:send' }),
  GetTask: (p) => ({ method: 'GET', path: `tasks/${encodeURIComponent(String(p.id))}${queryString({ historyLength: p.historyLength })}` }),
  CancelTask: (p) => ({ method: 'POST', path: `tasks/${encodeURIComponent(String(p.id))}:cancel` }),
  ListTasks: (p) => ({ method: 'GET', path: `tasks${queryString(p)}` }),
  CreateTaskPushNotificationConfig: (p) => ({ method: 'POST', path: pushConfigs(p) }),
  GetTaskPushNotificationConfig: (p) => ({ method: 'GET', path: pushConfig(p) }),
  ListTaskPushNotificationConfigs: (p) => ({ method: 'GET', path: `${pushConfigs(p)}${queryString({ pageSize: p.pageSize, pageToken: p.pageToken })}` }),
  DeleteTaskPushNotificationConfig: (p) => ({ method: 'DELETE', path: pushConfig(p) }),
  // A2A 1.0 §11: `GET /extendedAgentCard`, sent with the agent's auth like every call.
  GetExtendedAgentCard: () => ({ method: 'GET', path: 'extendedAgentCard' }),
};

/** Query string of the defined scalar params (tenant travels in the interface URL on HTTP+JSON). */
function queryString(params: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (key !== 'tenant' && value !== undefined && value !== null && value !== '') q.set(key, String(value));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** Performs one unary A2A operation and returns the result as A2A 1.0 JSON (unwrapped from JSON-RPC, checked by checkUnaryAnswer). */
export async function callUnary(call: BindingCall, method: UnaryMethod, params: Record<string, unknown>): Promise<unknown> {
  return withReauth(call, (c) => callUnaryOnce(c, method, params));
}

async function callUnaryOnce(call: BindingCall, method: UnaryMethod, params: Record<string, unknown>): Promise<unknown> {
  if (viaSdk(call.iface)) return checkUnaryAnswer(method, await (await import('./sdk-transport.js')).callViaSdk(call, method, params));
  if (call.iface.binding === 'http+json') return checkUnaryAnswer(method, await callRest(call, { ...REST_ROUTES[method](params), contentType: A2A_JSON }, method, params));
  return checkUnaryAnswer(method, await callJsonRpc(call, method, params));
}

/** The JSON-RPC 2.0 POST of a unary operation, as callJsonRpc sends it (and requests.preview renders it). */
export function jsonRpcRequest(call: BindingCall, method: UnaryMethod, params: Record<string, unknown>, id: string = randomUUID()): HttpRequest {
  return {
    url: call.iface.url,
    method: 'POST',
    headers: { ...call.headers, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    query: call.query,
    timeoutMs: call.timeoutMs,
    dispatcher: call.dispatcher,
    secrets: call.secrets,
    maxResponseBytes: call.maxResponseBytes,
    wire: call.wire,
    operation: method,
  };
}

/** The HTTP request a unary operation goes out as on the 1.0 wire (HTTP+JSON route or JSON-RPC POST). */
export function unaryHttpRequest(call: BindingCall, method: UnaryMethod, params: Record<string, unknown>): HttpRequest {
  return call.iface.binding === 'http+json' ? restRequest(call, { ...REST_ROUTES[method](params), contentType: A2A_JSON }, method, params) : jsonRpcRequest(call, method, params);
}

async function callJsonRpc(call: BindingCall, method: UnaryMethod, params: Record<string, unknown>): Promise<unknown> {
  const { iface } = call;
  const id = randomUUID();
  const res = await httpRequest(jsonRpcRequest(call, method, params, id));
  assertAuthorized(res, method, iface.url, call);
  assertFewObjects(res.body, `the ${method} answer`, call);
  const body = res.body ? (parseJson(res.body, `the ${method} JSON-RPC response`) as Record<string, unknown>) : undefined;
  if (body && typeof body === 'object' && 'error' in body && body.error) throw jsonRpcFailure(call, method, iface.url, body as { error: JsonRpcErrorObject });
  assertOk(res, method, iface.url, call.protocolVersion);
  if (!body || typeof body !== 'object' || body.jsonrpc !== '2.0' || !('result' in body)) {
    throw protocolError('invalid_jsonrpc', `the ${method} response is not a JSON-RPC 2.0 result`);
  }
  // A result for another request (or for none: id null) is not the answer to this one, whatever it holds.
  assertSameId(method, iface.url, id, body.id);
  return body.result;
}
