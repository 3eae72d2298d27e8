/**
 * The HTTP wire missive writes itself: A2A 1.0 over HTTP+JSON (`POST <iface>/message:send`, `GET <iface>/tasks/{id}`,
 * `GET <iface>/extendedAgentCard`, …) and JSON-RPC 2.0 (`SendMessage`, …), plus the one v0.3 HTTP+JSON route the SDK
 * gets wrong (legacy-rest-push.ts). One request builder and one answer reader serve every route: a 401/403 is an auth
 * error whatever its body, every other body is counted (`[qos] max_answer_objects`) and depth-checked before it is
 * parsed, and a JSON-RPC result must answer this request's id. Returns the unwrapped A2A 1.0 JSON result, which
 * unary-answer.ts reads into the operation's typed answer.
 */
import { randomUUID } from 'node:crypto';
import { protocolError } from '../../../shared/errors.js';
import { parseBoundedJson } from '../security/json-depth.js';
import { A2A_JSON, type BindingCall } from './binding-call.js';
import { assertAuthorized, assertOk, httpRequest, tryJson, type HttpRequest } from './http.js';
import { agentServerFailure, assertSameId, jsonRpcFailure, type JsonRpcErrorObject } from './jsonrpc-errors.js';
import type { ParamsOf, UnaryMethod } from './operations.js';
import { isMissingRoute, versionMismatchError } from './version-mismatch.js';
import { assertFewObjects } from './wire-limits.js';

/** A route under the interface URL. */
export interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Relative to the interface URL, e.g. `message:send` or `v1/tasks/abc`. */
  path: string;
  contentType: string;
}

/** An answer's JSON; `what` names it in errors. Text nested deeper than MAX_JSON_DEPTH is refused (exit 76). */
export const parseJson = (text: string, what: string): unknown =>
  parseBoundedJson(text, what, (error) => {
    throw protocolError('invalid_json', `${what} is not valid JSON: ${error.message}`);
  });

const segment = (value: unknown) => encodeURIComponent(String(value));
const pushConfigs = (p: { taskId: string }) => `tasks/${segment(p.taskId)}/pushNotificationConfigs`;

/** Query string of the defined scalar params (tenant travels in the interface URL on HTTP+JSON). */
function queryString(params: object): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (key !== 'tenant' && value !== undefined && value !== null && value !== '') q.set(key, String(value));
  const text = q.toString();
  return text ? `?${text}` : '';
}

type Route = Omit<RestRoute, 'contentType'>;

/** Each operation's A2A 1.0 HTTP+JSON route. */
const REST_ROUTES: { [M in UnaryMethod]: (params: ParamsOf<M>) => Route } = {
  SendMessage: () => ({ method: 'POST', path: 'message:send' }),
  GetTask: (p) => ({ method: 'GET', path: `tasks/${segment(p.id)}${queryString({ historyLength: p.historyLength })}` }),
  CancelTask: (p) => ({ method: 'POST', path: `tasks/${segment(p.id)}:cancel` }),
  ListTasks: (p) => ({ method: 'GET', path: `tasks${queryString(p)}` }),
  CreateTaskPushNotificationConfig: (p) => ({ method: 'POST', path: pushConfigs(p) }),
  GetTaskPushNotificationConfig: (p) => ({ method: 'GET', path: `${pushConfigs(p)}/${segment(p.id)}` }),
  ListTaskPushNotificationConfigs: (p) => ({ method: 'GET', path: `${pushConfigs(p)}${queryString({ pageSize: p.pageSize, pageToken: p.pageToken })}` }),
  DeleteTaskPushNotificationConfig: (p) => ({ method: 'DELETE', path: `${pushConfigs(p)}/${segment(p.id)}` }),
  // A2A 1.0 §11: `GET /extendedAgentCard`, sent with the agent's auth like every call.
  GetExtendedAgentCard: () => ({ method: 'GET', path: 'extendedAgentCard' }),
};

const restRoute = <M extends UnaryMethod>(method: M, params: ParamsOf<M>): RestRoute => ({
  ...(REST_ROUTES[method] as (p: ParamsOf<M>) => Route)(params),
  contentType: A2A_JSON,
});

/** The options every request of the call carries. */
function carried(
  call: BindingCall,
  operation: string,
): Pick<HttpRequest, 'query' | 'timeoutMs' | 'dispatcher' | 'secrets' | 'maxResponseBytes' | 'wire' | 'operation'> {
  return {
    query: call.query,
    timeoutMs: call.timeoutMs,
    dispatcher: call.dispatcher,
    secrets: call.secrets,
    maxResponseBytes: call.maxResponseBytes,
    wire: call.wire,
    operation,
  };
}

/** The HTTP request of a route under the interface URL. */
export function restRequest(call: BindingCall, route: RestRoute, what: string, body: unknown): HttpRequest {
  return {
    url: `${call.iface.url.replace(/\/+$/, '')}/${route.path}`,
    method: route.method,
    headers: { ...call.headers, Accept: `${A2A_JSON}, application/json`, ...(route.method === 'POST' ? { 'Content-Type': route.contentType } : {}) },
    body: route.method === 'POST' ? JSON.stringify(body) : undefined,
    ...carried(call, what),
  };
}

/** The JSON-RPC 2.0 POST of an operation. */
function jsonRpcRequest(call: BindingCall, method: UnaryMethod, params: object, id: string): HttpRequest {
  return {
    url: call.iface.url,
    method: 'POST',
    headers: { ...call.headers, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    ...carried(call, method),
  };
}

/** The HTTP request an operation goes out as on the 1.0 wire (what send makes, and what requests.preview renders). */
export function unaryHttpRequest<M extends UnaryMethod>(call: BindingCall, method: M, params: ParamsOf<M>, id: string = randomUUID()): HttpRequest {
  return call.iface.binding === 'http+json' ? restRequest(call, restRoute(method, params), method, params) : jsonRpcRequest(call, method, params, id);
}

/**
 * Sends `req` and reads its answer: the JSON body of a route (null when it has none: 204), or, with `jsonRpcId`, the
 * result of a JSON-RPC 2.0 response to that id.
 */
export async function exchange(call: BindingCall, req: HttpRequest, what: string, jsonRpcId?: string): Promise<unknown> {
  const { url } = req;
  const res = await httpRequest(req);
  if (jsonRpcId === undefined && isMissingRoute(res.status, res.body)) {
    throw versionMismatchError({ method: what, url, dialect: call.iface.dialect, alias: call.alias, answer: `HTTP ${res.status}` });
  }
  // A 401/403 is an auth error whatever its body; any other body is counted before it is parsed.
  assertAuthorized(res, what, url, call);
  assertFewObjects(res.body, `the ${what} answer`, call);
  if (jsonRpcId === undefined) {
    // An A2A error object in a 5xx body: the agent's own error, as on JSON-RPC (jsonrpc-errors.ts).
    const failure = res.status >= 500 ? agentServerFailure(what, res.status, tryJson(res.body), call.secrets) : undefined;
    if (failure) throw failure;
    assertOk(res, what, url, call.protocolVersion, call);
    // 204 No Content (a deleted push config) has no body to parse.
    return res.body.trim() ? parseJson(res.body, `the ${what} response`) : null;
  }
  const body = res.body ? (parseJson(res.body, `the ${what} JSON-RPC response`) as Record<string, unknown>) : undefined;
  if (body && typeof body === 'object' && 'error' in body && body.error) throw jsonRpcFailure(call, what, url, body as { error: JsonRpcErrorObject });
  assertOk(res, what, url, call.protocolVersion);
  if (!body || typeof body !== 'object' || body.jsonrpc !== '2.0' || !('result' in body)) {
    throw protocolError('invalid_jsonrpc', `the ${what} response is not a JSON-RPC 2.0 result`);
  }
  // A result for another request (or for none: id null) is not the answer to this one, whatever it holds.
  assertSameId(what, url, jsonRpcId, body.id);
  return body.result;
}

/** One operation on the 1.0 wire (HTTP+JSON or JSON-RPC): its A2A 1.0 JSON result. */
export function jsonWireCall<M extends UnaryMethod>(call: BindingCall, method: M, params: ParamsOf<M>): Promise<unknown> {
  const id = randomUUID();
  const rest = call.iface.binding === 'http+json';
  return exchange(call, unaryHttpRequest(call, method, params, id), method, rest ? undefined : id);
}
