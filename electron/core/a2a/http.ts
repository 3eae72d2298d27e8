/**
 * The one HTTP client of missive: undici over a single pooled dispatcher. Maps network failures and
 * HTTP statuses to transport errors, 401/403 to auth errors (exit 77, with the scheme the agent asked for), and A2A
 * error bodies (TaskNotFound … VersionNotSupported) to their one protocol error each (exit 76, see a2a-errors.ts).
 * With a wire capture, each request and its answer are recorded for the wire view.
 */
import type { Dispatcher } from 'undici';
import { MissiveError, transportError, withHttpStatus } from '../../../shared/errors.js';
import { parseBoundedJson } from '../security/json-depth.js';
import { redactText, redactUrl, redactValue } from '../security/redact.js';
import { a2aError, errorInfoMetadata, specByJsonRpcCode, specByReason, specOfErrorObject } from './a2a-errors.js';
import { authRejectedError, isAuthStatus, type AuthHint } from './auth-challenge.js';
import { oneLine } from './remote-text.js';
import { tlsFailureHelp } from './tls-errors.js';
import { loadUndici } from './undici.js';
import type { WireCapture } from './wire.js';

export { closeSharedDispatcher, sharedDispatcher } from './shared-dispatcher.js';
import { sharedDispatcher } from './shared-dispatcher.js';

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  /** Query parameters merged into `url` (secrets: an API key in the query; messages show `url` without them). */
  query?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  connectTimeoutMs?: number;
  maxResponseBytes?: number;
  dispatcher?: Dispatcher;
  /** Literal secrets to scrub from any error text (and from the wire view). */
  secrets?: readonly string[];
  /** Records this exchange for the wire view, under `operation` (the A2A operation, e.g. SendMessage). */
  wire?: WireCapture;
  operation?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSONRPC_VERSION_NOT_SUPPORTED = -32009;

/** True when a JSON error body (JSON-RPC or google.rpc ErrorInfo) reports VERSION_NOT_SUPPORTED. */
export function isVersionNotSupported(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const text = JSON.stringify(body);
  if (text.includes('VERSION_NOT_SUPPORTED') || text.includes('VersionNotSupported')) return true;
  const error = (body as { error?: { code?: unknown } }).error;
  return error?.code === JSONRPC_VERSION_NOT_SUPPORTED;
}

export const versionNotSupportedError = (version: string, detail?: string): MissiveError =>
  a2aError(specByReason('VERSION_NOT_SUPPORTED')!, { method: '', protocolVersion: version, detail });

/**
 * The A2A error an HTTP error body names, as missive's one error for it: the 1.0 google.rpc.Status body
 * `{error: {code, status, message, details: [ErrorInfo]}}` (by its ErrorInfo reason), a JSON-RPC envelope's error, or
 * the 0.3 HTTP+JSON body `{code: -3200x, message}`. Undefined for any other body.
 */
export function a2aErrorOfBody(body: unknown, what: string, url: string, protocolVersion: string, context: AuthContext = {}): MissiveError | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const holder = body as { error?: unknown; code?: unknown; message?: unknown };
  const error = (holder.error && typeof holder.error === 'object' ? holder.error : undefined) as
    { message?: unknown; details?: unknown; data?: unknown } | undefined;
  const spec = error ? specOfErrorObject(error) : typeof holder.message === 'string' ? specByJsonRpcCode(holder.code) : undefined;
  if (!spec) return undefined;
  const message = error ? error.message : holder.message;
  const metadata = errorInfoMetadata(error?.details) ?? errorInfoMetadata(error?.data);
  const said = [typeof message === 'string' ? oneLine(message) : '', metadata ? oneLine(JSON.stringify(redactValue(metadata, context.secrets)), 120) : '']
    .filter(Boolean)
    .join('; ');
  return a2aError(spec, { method: what, url, alias: context.alias, protocolVersion, detail: redactText(said, context.secrets) || undefined });
}

/** The JSON of an (error) body, or undefined when it is not JSON; text nested too deep is refused (exit 76), as `what`. */
export const tryJson = (text: string, what = "the agent's answer"): unknown => parseBoundedJson(text, what, () => undefined);

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** `url` with `query` merged into its search parameters (a parameter of the same name is replaced). */
export function withQuery(url: string, query: Record<string, string> | undefined): string {
  if (!query) return url;
  const merged = new URL(url);
  for (const [name, value] of Object.entries(query)) merged.searchParams.set(name, value);
  return merged.href;
}

/** One request, its whole answer read (size-capped); recorded when `req.wire` is set, with no extra work otherwise. */
export function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  return req.wire ? recordedRequest(req, req.wire) : exchange(req);
}

/**
 * `dispatcher`, calling `onWrite` each time it is about to write a request on a connection (after connecting: undici's
 * `onRequestStart`, its former `onConnect`). The wire view's clock starts there, so neither connecting nor undici's
 * first-use set-up (its HTTP parser is compiled on the first connection) is timed as if it were the agent.
 */
export function timedDispatcher(dispatcher: Dispatcher, onWrite: () => void): Dispatcher {
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(options, {
        onRequestStart: (controller, context) => {
          onWrite();
          handler.onRequestStart?.(controller, context);
        },
        onRequestUpgrade: (controller, status, headers, socket) => handler.onRequestUpgrade?.(controller, status, headers, socket),
        onResponseStart: (controller, status, headers, message) => handler.onResponseStart?.(controller, status, headers, message),
        onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
      }),
  );
}

/** undici's `request` and the dispatcher a request goes through: everything loaded before anything is sent. */
interface Sender {
  request: typeof import('undici').request;
  dispatcher: Dispatcher;
}

async function senderFor(dispatcher: Dispatcher | undefined): Promise<Sender> {
  const { request } = await loadUndici();
  return { request, dispatcher: dispatcher ?? (await sharedDispatcher()) };
}

async function recordedRequest(req: HttpRequest, capture: WireCapture): Promise<HttpResponse> {
  const method = req.method ?? 'GET';
  // Loaded first: the wire view times the exchange, not the loading of undici on the first request.
  const sender = await senderFor(req.dispatcher);
  const wire = capture.begin(
    req.operation ?? method,
    { protocol: 'http', method, url: withQuery(req.url, req.query), headers: req.headers ?? {}, body: req.body },
    req.secrets,
  );
  try {
    const res = await exchange(req, { ...sender, dispatcher: timedDispatcher(sender.dispatcher, wire.sent) });
    wire.response(res.status, res.headers);
    wire.body(res.body);
    wire.end();
    return res;
  } catch (error) {
    wire.fail(error);
    throw error;
  }
}

async function exchange(req: HttpRequest, ready?: Sender): Promise<HttpResponse> {
  const where = redactUrl(req.url);
  const maxBytes = req.maxResponseBytes ?? 16 * 1024 * 1024;
  let res: Dispatcher.ResponseData;
  try {
    const { request, dispatcher } = ready ?? (await senderFor(req.dispatcher));
    res = await request(withQuery(req.url, req.query), {
      method: req.method ?? 'GET',
      headers: req.headers,
      body: req.body,
      dispatcher,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
  } catch (error) {
    throw networkError(error, where, req.timeoutMs, req.secrets);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw transportError('response_too_large', `response from ${where} exceeds ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof MissiveError) throw error;
    throw networkError(error, where, req.timeoutMs, req.secrets);
  }
  return { status: res.statusCode, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') };
}

/** Who asked, for the help of a 401/403: the agent's alias, what its card declares and what was sent. */
export interface AuthContext {
  alias?: string;
  auth?: AuthHint;
  secrets?: readonly string[];
}

/** Throws the auth error of a 401/403 answer (before its body is read as JSON-RPC or A2A JSON); other statuses pass. */
export function assertAuthorized(res: Pick<HttpResponse, 'status' | 'headers' | 'body'>, what: string, url: string, context: AuthContext = {}): void {
  if (!isAuthStatus(res.status)) return;
  // The status decides: a body that is no JSON (or JSON nested too deep) only loses its detail.
  let body: unknown;
  try {
    body = tryJson(res.body, `the answer to the ${what} at ${redactUrl(url)}`);
  } catch {
    body = undefined;
  }
  const plain = body as { error?: unknown; message?: unknown } | undefined;
  const said = [errorMessageOf(body), plain?.message, plain?.error].find((v): v is string => typeof v === 'string');
  const detail = said ?? (body === undefined ? oneLine(res.body) : undefined);
  throw withHttpStatus(
    authRejectedError({ status: res.status, what, url, headers: res.headers, detail, alias: context.alias, hint: context.auth, secrets: context.secrets }),
    res.status,
  );
}

/** Throws the right error for a non-2xx response (401/403 → auth, an A2A error body → its A2A error (76), others → transport). */
export function assertOk(res: HttpResponse, what: string, url: string, protocolVersion: string, context: AuthContext = {}): void {
  if (res.status >= 200 && res.status < 300) return;
  assertAuthorized(res, what, url, context);
  const body = tryJson(res.body, `the answer to the ${what} at ${redactUrl(url)}`);
  const a2a = a2aErrorOfBody(body, what, url, protocolVersion, context);
  if (a2a) throw withHttpStatus(a2a, res.status);
  if (isVersionNotSupported(body))
    throw withHttpStatus(versionNotSupportedError(protocolVersion, redactText(errorMessageOf(body) ?? '', context.secrets) || undefined), res.status);
  const detail = oneLine(errorMessageOf(body) ?? res.body);
  throw withHttpStatus(
    transportError(
      'http_status',
      `${what} at ${redactUrl(url)} answered HTTP ${res.status}${detail ? `: ${redactText(detail, context.secrets)}` : ''}`,
      res.status === 404 ? 'Check the base URL: the agent may serve its card or interface elsewhere.' : undefined,
    ),
    res.status,
  );
}

function errorMessageOf(body: unknown): string | undefined {
  const error = (body as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === 'string' ? error.message : undefined;
}

export const timeoutError = (where: string, timeoutMs: number): MissiveError =>
  transportError('timeout', `${where} did not answer within ${timeoutMs} ms`, 'Raise --timeout or [qos].timeout if the agent is slow.');

/** A stream that stopped before its end: what arrived is kept, and the message says how much. */
export const streamBrokenError = (where: string, received: number, cause: MissiveError): MissiveError =>
  transportError(
    'stream_broken',
    `the stream from ${where} broke after ${received} event(s): ${cause.message}`,
    'Events received so far are kept in the journal.',
  );

export function networkError(error: unknown, where: string, timeoutMs: number, secrets: readonly string[] = []): MissiveError {
  const err = error as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  if (err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return timeoutError(where, timeoutMs);
  }
  if (code === 'ECONNREFUSED') return transportError('connection_refused', `${where} refused the connection`, 'Is the agent running on that host and port?');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return transportError('dns', `cannot resolve the host of ${where}`);
  const message = redactText(oneLine(err.cause?.message ?? err.message ?? String(error)), secrets);
  return transportError('network', `request to ${where} failed: ${message}${code ? ` (${code})` : ''}`, tlsFailureHelp(code, where));
}
