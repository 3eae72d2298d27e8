/**
 * Errors thrown by the SDK's transports, mapped to missive's categories so a v0.3 or gRPC agent fails with the same
 * codes and exit codes as a v1.0 agent on the same binding: each A2A error (the SDK's typed errors carry its ErrorInfo
 * reason, decoded from a JSON-RPC code, an HTTP+JSON body or a gRPC status; a bare 0.3 gRPC status where it is
 * unambiguous) is its one missive error (a2a-errors.ts), other JSON-RPC errors are protocol errors (76), HTTP+JSON error
 * statuses transport errors (69) except 401/403 (auth::unauthorized / auth::forbidden, 77; our fetch normally throws
 * those itself, with the WWW-Authenticate challenge), an answer with another JSON-RPC id than the request's
 * jsonrpc_id_mismatch (76), a missing method or route a version mismatch (76),
 * unreachable or slow agents 69, gRPC UNAUTHENTICATED / PERMISSION_DENIED auth errors (77), and an answer nested so deep
 * that the SDK's decoder overflowed the stack (a gRPC google.protobuf.Struct has no depth limit) too_deeply_nested (76).
 */
import { MissiveError, protocolError, transportError, withHttpStatus } from '../../../shared/errors.js';
import { tooDeepError } from '../security/json-depth.js';
import { redactText, redactUrl } from '../security/redact.js';
import { authRejectedError, isAuthStatus } from './auth-challenge.js';
import type { BindingCall } from './binding-call.js';
import { a2aError, specByReason, specFromGrpcDetail, specFromGrpcStatus, type A2AErrorSpec } from './a2a-errors.js';
import { timeoutError } from './http.js';
import { agentJsonRpcError, jsonRpcIdMismatch, oneLineData } from './jsonrpc-errors.js';
import { oneLine } from './remote-text.js';
import type { HttpTrace } from './sdk-fetch.js';
import { JSONRPC_METHOD_NOT_FOUND, versionMismatchError } from './version-mismatch.js';
import { grpcMessageTooLargeError } from './wire-limits.js';

/** gRPC status codes missive treats specially. */
const GRPC = {
  CANCELLED: 1,
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** grpc-js's status detail for a message over its receive limit: `Received message larger than max (N vs MAX)`. */
const TOO_LARGE = /^Received message larger than max \(\d+ vs (\d+)\)/;

interface SdkErrorShape {
  name?: string;
  message?: string;
  reason?: string;
  /** JSON-RPC error code (SDK JSON-RPC errors). */
  envelopeCode?: number;
  /** gRPC status (SDK gRPC errors) or HTTP status (SDK REST errors). */
  status?: number;
  statusCode?: number;
  transport?: string;
  code?: unknown;
  details?: string;
  cause?: unknown;
  /** JSON-RPC error data (SDK JSON-RPC errors). */
  data?: unknown;
  /** google.rpc.ErrorInfo metadata (SDK typed errors). */
  metadata?: Record<string, unknown>;
}

export interface SdkErrorContext {
  call: BindingCall;
  method: string;
  /** The wire name of the method, when it differs (v0.3 `message/send`). */
  wireMethod?: string;
  url: string;
  trace: HttpTrace;
  /** Set when missive's own time limit cancelled the call. */
  timedOut: boolean;
}

/** The first MissiveError in the cause chain (our fetch throws them from inside the SDK). */
function missiveCause(error: unknown): MissiveError | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) if (e instanceof MissiveError) return e;
  return undefined;
}

const STACK_OVERFLOW = 'Maximum call stack size exceeded';

/** missive's own stack ran out decoding the answer: a RangeError in the cause chain, or grpc-js's failed decode of a gRPC message. */
function isStackOverflow(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RangeError && e.message.includes(STACK_OVERFLOW)) return true;
    const { details } = e as SdkErrorShape;
    if (typeof details === 'string' && details.startsWith(`Response message parsing error: ${STACK_OVERFLOW}`)) return true;
  }
  return false;
}

const A2A_ERROR_BRAND = Symbol.for('@a2a-js/sdk.A2AError');
const isA2aError = (value: unknown): boolean => typeof value === 'object' && value !== null && A2A_ERROR_BRAND in value;

/** The SDK wraps some typed errors in a plain Error ("SSE event contained an error: …"): use the typed one. */
function typedError(error: unknown): unknown {
  if (isA2aError(error)) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return isA2aError(cause) ? cause : error;
}

/** The SDK's v0.3 JSON-RPC client refuses an answer with another id than the request's with this text. */
const ID_MISMATCH = /JSON-RPC response ID mismatch[^.]*\. Expected (.*), got (.*)\.$/;

function idMismatchOf(error: unknown): { sent: string; answered: string | null } | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const match = ID_MISMATCH.exec((e as { message?: string }).message ?? '');
    if (match) return { sent: match[1]!, answered: match[2] === 'null' || match[2] === 'undefined' ? null : match[2]! };
  }
  return undefined;
}

/** The status detail grpc-js received, for a typed SDK error too (its cause is the grpc-js ServiceError). */
const grpcDetailOf = (e: SdkErrorShape): string | undefined => (typeof e.details === 'string' ? e.details : (e.cause as SdkErrorShape | undefined)?.details);

const grpcStatusOf = (e: SdkErrorShape): number | undefined =>
  e.transport === 'grpc' ? e.status : typeof e.code === 'number' && typeof e.details === 'string' ? e.code : undefined;

export function fromSdkError(error: unknown, ctx: SdkErrorContext): MissiveError {
  const ours = missiveCause(error);
  if (ours) return ours;
  const e = (typedError(error) ?? {}) as SdkErrorShape;
  const secrets = ctx.call.secrets ?? [];
  const text = redactText(oneLine(e.details ?? e.message ?? String(error)), secrets);
  const where = redactUrl(ctx.url);
  const { method } = ctx;
  if (isStackOverflow(error)) return tooDeepError(`the ${method} answer from ${where}`);
  const dialect = ctx.call.iface.dialect;
  const timeout = () => timeoutError(where, ctx.call.timeoutMs);
  const mismatch = (answer: string) =>
    versionMismatchError({ method: ctx.wireMethod ? `${method} (${ctx.wireMethod})` : method, url: ctx.url, dialect, alias: ctx.call.alias, answer });

  const named = (spec: A2AErrorSpec, said = text) => {
    const metadata = e.metadata && typeof e.metadata === 'object' && Object.keys(e.metadata).length > 0 ? oneLineData(e.metadata, secrets, 120) : '';
    const detail = [said, metadata].filter(Boolean).join('; ');
    return a2aError(spec, { method, url: ctx.url, alias: ctx.call.alias, protocolVersion: ctx.call.protocolVersion, detail });
  };

  const spec = specByReason(e.reason);
  if (spec) return named(spec);
  const wrongId = idMismatchOf(error);
  if (wrongId) return jsonRpcIdMismatch(method, ctx.url, wrongId.sent, wrongId.answered);
  if (e.envelopeCode === JSONRPC_METHOD_NOT_FOUND) return mismatch(`"Method not found"`);

  const grpcStatus = grpcStatusOf(e);
  if (grpcStatus !== undefined) {
    if (ctx.timedOut || grpcStatus === GRPC.DEADLINE_EXCEEDED) return timeout();
    // No ErrorInfo: a `TaskNotFoundError: …` detail (the Python SDK), or a status only one A2A error can be for this operation.
    const detail = grpcDetailOf(e);
    const byStatus = specFromGrpcDetail(detail) ?? specFromGrpcStatus(grpcStatus, method);
    if (byStatus) return named(byStatus, detail === undefined ? text : redactText(oneLine(detail), secrets));
    const tooLarge = grpcStatus === GRPC.RESOURCE_EXHAUSTED ? TOO_LARGE.exec(detail ?? '') : null;
    if (tooLarge) return grpcMessageTooLargeError(ctx.call, method, Number(tooLarge[1]));
    if (grpcStatus === GRPC.UNAVAILABLE)
      return transportError(
        'connection_refused',
        `${method} at ${where} is unavailable: ${text}`,
        'Is the agent running on that host and port, and does it speak gRPC there?',
      );
    if (grpcStatus === GRPC.UNIMPLEMENTED) return mismatch('gRPC UNIMPLEMENTED');
    if (grpcStatus === GRPC.UNAUTHENTICATED || grpcStatus === GRPC.PERMISSION_DENIED) {
      // As HTTP 401 / 403: the same codes, help and one renewal of an OAuth2 token (reauth.ts).
      const status = grpcStatus === GRPC.UNAUTHENTICATED ? 401 : 403;
      return authRejectedError({
        status,
        what: method,
        url: ctx.url,
        headers: {},
        detail: text,
        alias: ctx.call.alias,
        hint: ctx.call.auth,
        secrets,
        grpc: true,
      });
    }
    return protocolError(
      'grpc_error',
      `${method} failed with gRPC status ${grpcStatus}: ${detail === undefined ? text : redactText(oneLine(detail), secrets) || 'no detail'}`,
    );
  }
  if (ctx.timedOut) return timeout();
  if (typeof e.envelopeCode === 'number') return agentJsonRpcError(method, { code: e.envelopeCode, message: text, data: e.data }, undefined, secrets);
  // An HTTP error status without a JSON-RPC error is a transport error, as on the 1.0 wire; the SDK's message stays.
  const httpStatus = e.statusCode ?? ctx.trace.status;
  if (ctx.call.iface.binding !== 'grpc' && httpStatus && isAuthStatus(httpStatus)) {
    return authRejectedError({
      status: httpStatus,
      what: method,
      url: ctx.trace.url ?? ctx.url,
      headers: {},
      detail: text,
      alias: ctx.call.alias,
      hint: ctx.call.auth,
      secrets,
    });
  }
  if (ctx.call.iface.binding !== 'grpc' && httpStatus) {
    return withHttpStatus(
      transportError('http_status', `${method} at ${redactUrl(ctx.trace.url ?? ctx.url)} answered HTTP ${httpStatus}: ${text}`),
      httpStatus,
    );
  }
  return protocolError('invalid_response', `${method} at ${where} gave an answer missive cannot read: ${text}`);
}
