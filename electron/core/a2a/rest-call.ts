/** One HTTP+JSON request to an A2A route under the interface URL, its answer parsed; shared by the 1.0 and 0.3 wires. */
import { protocolError } from '../../../shared/errors.js';
import { parseBoundedJson } from '../security/json-depth.js';
import { A2A_JSON, type BindingCall } from './binding-call.js';
import { assertAuthorized, assertOk, httpRequest, type HttpRequest } from './http.js';
import { assertFewObjects } from './wire-limits.js';
import { isMissingRoute, versionMismatchError } from './version-mismatch.js';

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

/** The HTTP request of a route under the interface URL, as callRest sends it (and requests.preview renders it). */
export function restRequest(call: BindingCall, route: RestRoute, what: string, body: unknown): HttpRequest {
  return {
    url: `${call.iface.url.replace(/\/+$/, '')}/${route.path}`,
    method: route.method,
    headers: { ...call.headers, Accept: `${A2A_JSON}, application/json`, ...(route.method === 'POST' ? { 'Content-Type': route.contentType } : {}) },
    body: route.method === 'POST' ? JSON.stringify(body) : undefined,
    query: call.query,
    timeoutMs: call.timeoutMs,
    dispatcher: call.dispatcher,
    secrets: call.secrets,
    maxResponseBytes: call.maxResponseBytes,
    wire: call.wire,
    operation: what,
  };
}

export async function callRest(call: BindingCall, route: RestRoute, what: string, body: unknown): Promise<unknown> {
  const req = restRequest(call, route, what, body);
  const { url } = req;
  const res = await httpRequest(req);
  if (isMissingRoute(res.status, res.body)) {
    throw versionMismatchError({ method: what, url, dialect: call.iface.dialect, alias: call.alias, answer: `HTTP ${res.status}` });
  }
  // A 401/403 is an auth error whatever its body; any other body is counted before it is parsed.
  assertAuthorized(res, what, url, call);
  assertFewObjects(res.body, `the ${what} answer`, call);
  assertOk(res, what, url, call.protocolVersion, call);
  // 204 No Content (a deleted push config) has no body to parse.
  return res.body.trim() ? parseJson(res.body, `the ${what} response`) : null;
}
