/**
 * "This agent speaks another A2A version": a JSON-RPC `Method not found` for an A2A method, a gRPC UNIMPLEMENTED, or a
 * 404/405 page without an A2A error body on an A2A route. Each becomes one protocol error (exit 76) that names the
 * dialect missive spoke and what to try, instead of a raw HTML page or a bare `-32601`.
 */
import { MissiveError, protocolError } from '../../../shared/errors.js';
import { redactUrl } from '../security/redact.js';
import { specByJsonRpcCode } from './a2a-errors.js';
import type { Dialect } from './dialect.js';
import { oneLine } from './remote-text.js';
import { tryJson } from './http.js';

export const JSONRPC_METHOD_NOT_FOUND = -32601;

/**
 * A 404/405 whose body is not an A2A error (an HTML page, `{"detail":"Not Found"}`, nothing): the route does not
 * exist. An error object (1.0 google.rpc.Status, JSON-RPC) or a 0.3 HTTP+JSON body with an A2A code (`{code: -32001,
 * message}`, the 0.3 TaskNotFound) is the agent's answer, not a missing route.
 */
export function isMissingRoute(status: number, body: string): boolean {
  if (status !== 404 && status !== 405) return false;
  const parsed = tryJson(body) as { error?: unknown; code?: unknown } | undefined;
  if (parsed && typeof parsed === 'object' && specByJsonRpcCode(parsed.code)) return false;
  return !parsed || typeof parsed !== 'object' || !parsed.error || typeof parsed.error !== 'object';
}

export const isMethodNotFound = (error: { code?: unknown } | undefined | null): boolean => error?.code === JSONRPC_METHOD_NOT_FOUND;

export interface MismatchContext {
  /** The A2A operation, e.g. SendMessage. */
  method: string;
  url: string;
  dialect: Dialect;
  alias?: string;
  /** What the agent answered, already short. */
  answer: string;
}

/** Operations an agent may leave out: a missing one says little about its version. */
const OPTIONAL = /^(ListTasks|SubscribeToTask|\w*PushNotificationConfigs?)\b/;

export function versionMismatchError(ctx: MismatchContext): MissiveError {
  const other: Dialect = ctx.dialect === '1.0' ? '0.3' : '1.0';
  const agent = ctx.alias ?? '<alias>';
  const orMissing = OPTIONAL.test(ctx.method) ? ', or does not implement it' : '';
  return protocolError(
    'version_mismatch',
    `${ctx.method} at ${redactUrl(ctx.url)} answered ${oneLine(ctx.answer)}: the agent seems to speak another A2A version than the ${ctx.dialect} missive spoke${orMissing}`,
    `Refresh its card in case it changed (missive agent refresh ${agent}), or speak A2A ${other} to it with --protocol-version ${other}.`,
  );
}
