/**
 * Recognises the A2A TaskNotFound error in what an agent answered, on every wire: missive's own
 * `protocol::task_not_found` (the one error every binding maps TaskNotFound to), else, from the recorded exchanges,
 * JSON-RPC error -32001 (1.0 and 0.3,
 * in a unary answer or an SSE record), an HTTP+JSON 404 whose A2A error body names TASK_NOT_FOUND (1.0 ErrorInfo) or
 * -32001 (0.3), and gRPC status NOT_FOUND, on HTTP 200 or 404 only. It reads the call's recorded wire exchanges, so a plain 404 page (a route
 * that does not exist) or another error does not count.
 */
import type { WireExchange } from '../../../shared/ipc/contract.js';
import type { MissiveError } from '../../../shared/errors.js';
import { specByReason } from '../a2a/a2a-errors.js';
import { tryJson } from '../a2a/http.js';

const JSONRPC_TASK_NOT_FOUND = -32001;
const GRPC_NOT_FOUND = 5;
const TASK_NOT_FOUND_CODE = `missive::protocol::${specByReason('TASK_NOT_FOUND')!.code}`;

/** True when the JSON value is an A2A TaskNotFound error object (or an envelope holding one). */
function isTaskNotFoundJson(value: unknown, httpStatus: number | null): boolean {
  if (!value || typeof value !== 'object') return false;
  // A refusal (401, 403, 500…) is not the answer, whatever its body says.
  if (httpStatus !== null && httpStatus !== 200 && httpStatus !== 404) return false;
  const holder = value as { error?: unknown; code?: unknown };
  const error = (holder.error && typeof holder.error === 'object' ? holder.error : holder) as { code?: unknown };
  if (error.code === JSONRPC_TASK_NOT_FOUND) return true;
  if (httpStatus !== 404 || holder.error === undefined) return false;
  // Only the A2A reason: a generic google.rpc NOT_FOUND may well be a route that does not exist.
  return JSON.stringify(error).includes('"TASK_NOT_FOUND"');
}

function exchangeSaysNotFound(exchange: WireExchange): boolean {
  const status = exchange.response?.status ?? null;
  const body = exchange.response?.body;
  if (body && isTaskNotFoundJson(tryJson(body), exchange.request.protocol === 'grpc' ? null : status)) return true;
  for (const frame of exchange.frames ?? []) if (isTaskNotFoundJson(tryJson(frame.data), null)) return true;
  return exchange.request.protocol === 'grpc' && new RegExp(`gRPC status ${GRPC_NOT_FOUND}\\b`).test(exchange.error?.message ?? '');
}

/** Whether the failure of a call is the agent's TaskNotFound answer (judged from its recorded exchanges). */
export function isTaskNotFound(error: MissiveError, exchanges: readonly WireExchange[]): boolean {
  if (error.code === TASK_NOT_FOUND_CODE) return true;
  if (error.category !== 'protocol' && error.category !== 'transport') return false;
  return exchanges.some(exchangeSaysNotFound);
}
