/**
 * What a JSON-RPC error object an agent answered means, in one place for unary calls, streams and the SDK's wires:
 * an A2A error (one missive error per A2A error, see a2a-errors.ts), a missing method (the agent speaks another A2A
 * version), or the agent's own error (76). The error's `data` is shown on one line, redacted and bounded; a
 * server-defined code (-32000…-32099 outside A2A's own) is said to be one, since it tells nothing by itself. An answer
 * whose id is not the request's breaks JSON-RPC 2.0 and is refused.
 */
import { protocolError, type MissiveError } from '../../../shared/errors.js';
import { redactText, redactUrl, redactValue } from '../security/redact.js';
import { a2aError, errorInfoMetadata, specOfErrorObject } from './a2a-errors.js';
import type { BindingCall } from './binding-call.js';
import { isVersionNotSupported, versionNotSupportedError } from './http.js';
import { oneLine } from './remote-text.js';
import { isMethodNotFound, versionMismatchError } from './version-mismatch.js';

export interface JsonRpcErrorObject {
  code?: number;
  message?: string;
  data?: unknown;
}

/** What jsonRpcFailure needs of the call: `secrets` are scrubbed from the agent's message and data. */
export type JsonRpcErrorCall = Pick<BindingCall, 'iface' | 'protocolVersion' | 'alias'> & { secrets?: readonly string[] };

/** How much of an error's `data` a message shows. */
const MAX_DATA = 240;

/** The error object as the spec types it, from whatever the agent sent: a code or message of another type counts as absent. */
function specError(error: unknown): JsonRpcErrorObject {
  const { code, message, data } = (error && typeof error === 'object' ? error : {}) as { code?: unknown; message?: unknown; data?: unknown };
  return { code: typeof code === 'number' ? code : undefined, message: typeof message === 'string' ? message : undefined, data };
}

/** A JSON value as one short line: secrets out (secret-named keys and the call's literal secrets), strings flattened, cut at `max`. */
export function oneLineData(value: unknown, secrets: readonly string[] = [], max = MAX_DATA): string {
  let text: string;
  try {
    text = JSON.stringify(redactValue(value, secrets), (_key, v: unknown) => (typeof v === 'string' ? oneLine(v, 10_000) : v)) ?? String(value);
  } catch {
    text = String(value);
  }
  return oneLine(redactText(text, secrets), max);
}

/** A2A defines -32001…-32009; the rest of -32000…-32099 is each server's own. */
const isServerDefined = (code: number | undefined): boolean => code !== undefined && code <= -32000 && code >= -32099;

/** The agent's own JSON-RPC error; `sequence` names the stream event it came in. */
export function agentJsonRpcError(method: string, error: JsonRpcErrorObject, sequence?: number, secrets: readonly string[] = []): MissiveError {
  const where = sequence === undefined ? '' : ` in stream event #${sequence}`;
  const message = redactText(oneLine(error.message), secrets) || 'no message';
  const data = error.data === undefined || error.data === null ? '' : `; data: ${oneLineData(error.data, secrets)}`;
  if (isServerDefined(error.code)) {
    return protocolError(
      'jsonrpc_error',
      `${method} failed${where} with JSON-RPC error ${error.code} "${message}": a server-defined code, not an A2A error, so it does not say what went wrong${data}`,
      "The error is the agent's own: look it up in the agent's logs, or ask the agent's operator, quoting the code, message and data.",
    );
  }
  return protocolError('jsonrpc_error', `${method} failed${where} with JSON-RPC error ${error.code ?? '?'}: ${message}${data}`);
}

/** Statuses a proxy or load balancer answers for an agent it cannot reach: transport errors on every binding (retried). */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/**
 * A server failure the agent answered on HTTP+JSON as an A2A error object in an HTTP 5xx body (the 1.0 google.rpc.Status
 * `{error: {code, status, message, details}}`, or the 0.3 body `{code, message}`) that names no A2A error (those are
 * decoded by the SDK, a2a-errors.ts): the agent's own error, `protocol::jsonrpc_error` (76) as the same failure is on
 * JSON-RPC (its Internal error), not a transport error. A 502, 503 or 504 stays the transport error it is on JSON-RPC
 * too. Undefined for any other answer.
 */
export function agentServerFailure(method: string, status: number, body: unknown, secrets: readonly string[] = []): MissiveError | undefined {
  if (status < 500 || status > 599 || GATEWAY_STATUSES.has(status) || !body || typeof body !== 'object') return undefined;
  const holder = body as { error?: unknown; code?: unknown; message?: unknown };
  const status10 =
    holder.error && typeof holder.error === 'object' ? (holder.error as { code?: unknown; status?: unknown; message?: unknown; details?: unknown }) : null;
  const isStatus = status10 !== null && typeof status10.code === 'number' && typeof status10.status === 'string' && typeof status10.message === 'string';
  const isV03 = status10 === null && typeof holder.code === 'number' && typeof holder.message === 'string';
  if ((!isStatus && !isV03) || specOfErrorObject(status10 ?? holder)) return undefined;
  const message = redactText(oneLine(String(status10 ? status10.message : holder.message)), secrets) || 'no message';
  const name = status10 ? ` ${oneLine(String(status10.status), 40)}` : ` (code ${String(holder.code)})`;
  const details = Array.isArray(status10?.details) && status10.details.length ? `; details: ${oneLineData(status10.details, secrets)}` : '';
  return protocolError('jsonrpc_error', `${method} failed with HTTP ${status}${name}: ${message}${details}`);
}

/**
 * The error for an envelope `{ error }` answered to `method` at `url` (a JSON-RPC error object, or in an HTTP+JSON
 * stream a google.rpc.Status). Inside a stream (`sequence` set) a missing method is no sign of another version (the
 * call was understood), so it stays the agent's own error.
 */
export function jsonRpcFailure(call: JsonRpcErrorCall, method: string, url: string, envelope: { error: JsonRpcErrorObject }, sequence?: number): MissiveError {
  const error = specError(envelope.error);
  const secrets = call.secrets ?? [];
  const spec = specOfErrorObject(envelope.error);
  if (spec) {
    const metadata = errorInfoMetadata(error.data) ?? errorInfoMetadata((envelope.error as { details?: unknown }).details);
    const detail = [redactText(oneLine(error.message), secrets), metadata ? oneLineData(metadata, secrets, 120) : ''].filter(Boolean).join('; ');
    return a2aError(spec, { method, url, alias: call.alias, protocolVersion: call.protocolVersion, detail });
  }
  if (isVersionNotSupported(envelope)) return versionNotSupportedError(call.protocolVersion, error.message);
  if (sequence === undefined && isMethodNotFound(error)) {
    return versionMismatchError({ method, url, dialect: call.iface.dialect, alias: call.alias, answer: '"Method not found"' });
  }
  return agentJsonRpcError(method, error, sequence, secrets);
}

const idText = (id: unknown): string =>
  id === null || id === undefined ? 'null' : oneLine(typeof id === 'string' ? JSON.stringify(id) : (JSON.stringify(id) ?? String(id)), 80);

/** An answer carrying another id than the request's (null included): the agent broke JSON-RPC 2.0. */
export function jsonRpcIdMismatch(method: string, url: string, sent: unknown, answered: unknown): MissiveError {
  return protocolError(
    'jsonrpc_id_mismatch',
    `${method} at ${redactUrl(url)}: the agent answered with JSON-RPC id ${idText(answered)}, not the id of the request (${idText(sent)}); a JSON-RPC 2.0 answer must carry it, so missive does not take the answer as this call's`,
    "The fault is the agent's: report it to the agent's operator (every JSON-RPC answer must echo the request's id).",
  );
}

/** Throws jsonRpcIdMismatch when an answer's `id` is not the request's. */
export function assertSameId(method: string, url: string, sent: unknown, answered: unknown): void {
  if (answered !== sent) throw jsonRpcIdMismatch(method, url, sent, answered);
}
