/**
 * Errors thrown by the SDK's transports, mapped to missive's categories so a v0.3 or gRPC agent fails with the same
 * codes and exit codes as a v1.0 agent on the same binding: JSON-RPC errors are protocol errors (76), HTTP+JSON error
 * statuses transport errors (69) except 401/403 (auth::unauthorized / auth::forbidden, 77; our fetch normally throws
 * those itself, with the WWW-Authenticate challenge), a missing method or route a version mismatch (76), VERSION_NOT_SUPPORTED 76,
 * unreachable or slow agents 69, gRPC UNAUTHENTICATED / PERMISSION_DENIED auth errors (77), and an answer nested so deep
 * that the SDK's decoder overflowed the stack (a gRPC google.protobuf.Struct has no depth limit) too_deeply_nested (76).
 */
import { MissiveError, protocolError, transportError } from '../../../shared/errors.js';
import { tooDeepError } from '../security/json-depth.js';
import { redactText, redactUrl } from '../security/redact.js';
import { authRejectedError, isAuthStatus } from './auth-challenge.js';
import type { BindingCall } from './binding-call.js';
import { timeoutError, versionNotSupportedError } from './http.js';
import { agentJsonRpcError } from './jsonrpc-errors.js';
import { oneLine } from './remote-text.js';
import type { HttpTrace } from './sdk-fetch.js';
import { JSONRPC_METHOD_NOT_FOUND, versionMismatchError } from './version-mismatch.js';

/** gRPC status codes missive treats specially. */
const GRPC = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, PERMISSION_DENIED: 7, UNIMPLEMENTED: 12, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

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
  const mismatch = (answer: string) => versionMismatchError({ method: ctx.wireMethod ? `${method} (${ctx.wireMethod})` : method, url: ctx.url, dialect, alias: ctx.call.alias, answer });

  if (e.reason === 'VERSION_NOT_SUPPORTED') return versionNotSupportedError(ctx.call.protocolVersion, text);
  if (e.envelopeCode === JSONRPC_METHOD_NOT_FOUND) return mismatch(`"Method not found"`);

  const grpcStatus = grpcStatusOf(e);
  if (grpcStatus !== undefined) {
    if (ctx.timedOut || grpcStatus === GRPC.DEADLINE_EXCEEDED) return timeout();
    if (grpcStatus === GRPC.UNAVAILABLE) return transportError('connection_refused', `${method} at ${where} is unavailable: ${text}`, 'Is the agent running on that host and port, and does it speak gRPC there?');
    if (grpcStatus === GRPC.UNIMPLEMENTED) return mismatch('gRPC UNIMPLEMENTED');
    if (grpcStatus === GRPC.UNAUTHENTICATED || grpcStatus === GRPC.PERMISSION_DENIED) {
      // As HTTP 401 / 403: the same codes, help and one renewal of an OAuth2 token (reauth.ts).
      const status = grpcStatus === GRPC.UNAUTHENTICATED ? 401 : 403;
      return authRejectedError({ status, what: method, url: ctx.url, headers: {}, detail: text, alias: ctx.call.alias, hint: ctx.call.auth, secrets, grpc: true });
    }
    return protocolError('grpc_error', `${method} failed with gRPC status ${grpcStatus}: ${text}`);
  }
  if (ctx.timedOut) return timeout();
  if (typeof e.envelopeCode === 'number') return agentJsonRpcError(method, { code: e.envelopeCode, message: text });
  // An HTTP error status without a JSON-RPC error is a transport error, as on the 1.0 wire; the SDK's message stays.
  const httpStatus = e.statusCode ?? ctx.trace.status;
  if (ctx.call.iface.binding !== 'grpc' && httpStatus && isAuthStatus(httpStatus)) {
    return authRejectedError({ status: httpStatus, what: method, url: ctx.trace.url ?? ctx.url, headers: {}, detail: text, alias: ctx.call.alias, hint: ctx.call.auth, secrets });
  }
  if (ctx.call.iface.binding !== 'grpc' && httpStatus) {
    return transportError('http_status', `${method} at ${redactUrl(ctx.trace.url ?? ctx.url)} answered HTTP ${httpStatus}: ${text}`);
  }
  return protocolError('invalid_response', `${method} at ${where} gave an answer missive cannot read: ${text}`);
}
