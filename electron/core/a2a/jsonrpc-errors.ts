/**
 * What a JSON-RPC error object an agent answered means, in one place for unary calls, streams and the SDK's wires:
 * VERSION_NOT_SUPPORTED, a missing method (the agent speaks another A2A version), or the agent's own error (76).
 */
import { protocolError, type MissiveError } from '../../../shared/errors.js';
import type { BindingCall } from './binding-call.js';
import { isVersionNotSupported, versionNotSupportedError } from './http.js';
import { oneLine } from './remote-text.js';
import { isMethodNotFound, versionMismatchError } from './version-mismatch.js';

export interface JsonRpcErrorObject {
  code?: number;
  message?: string;
}

/** The error object as the spec types it, from whatever the agent sent: a code or message of another type counts as absent. */
function specError(error: unknown): JsonRpcErrorObject {
  const { code, message } = (error && typeof error === 'object' ? error : {}) as { code?: unknown; message?: unknown };
  return { code: typeof code === 'number' ? code : undefined, message: typeof message === 'string' ? message : undefined };
}

/** The agent's own JSON-RPC error; `sequence` names the stream event it came in. */
export function agentJsonRpcError(method: string, error: JsonRpcErrorObject, sequence?: number): MissiveError {
  const where = sequence === undefined ? '' : ` in stream event #${sequence}`;
  return protocolError('jsonrpc_error', `${method} failed${where} with JSON-RPC error ${error.code ?? '?'}: ${oneLine(error.message) || 'no message'}`);
}

/**
 * The error for an envelope `{ error }` answered to `method` at `url`. Inside a stream (`sequence` set) a missing
 * method is no sign of another version (the call was understood), so it stays the agent's own error.
 */
export function jsonRpcFailure(call: Pick<BindingCall, 'iface' | 'protocolVersion' | 'alias'>, method: string, url: string, envelope: { error: JsonRpcErrorObject }, sequence?: number): MissiveError {
  const error = specError(envelope.error);
  if (isVersionNotSupported(envelope)) return versionNotSupportedError(call.protocolVersion, error.message);
  if (sequence === undefined && isMethodNotFound(error)) {
    return versionMismatchError({ method, url, dialect: call.iface.dialect, alias: call.alias, answer: '"Method not found"' });
  }
  return agentJsonRpcError(method, error, sequence);
}
