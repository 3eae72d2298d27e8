/**
 * A2A 0.3 JSON-RPC results without the `kind` discriminator, which some v0.2/v0.3 servers send (VoltAgent's, a2a-js):
 * the variant is read from the object's shape before the SDK decodes it (id + status → task, messageId + role →
 * message, taskId + status → status update, taskId + artifact → artifact update), and so is the kind of every part
 * (text, file or data field) and nested message. A shape that fits none or several of the variants a method may
 * answer is the agent's fault: `protocol::ambiguous_result` (exit 76), naming the agent. Only the copy the SDK reads
 * is completed; the wire view and the journal's raw exchange keep the JSON as received.
 */
import { protocolError, type MissiveError } from '../../../shared/errors.js';

export type ResultKind = 'task' | 'message' | 'status-update' | 'artifact-update';

const SHAPES: ReadonlyArray<[ResultKind, readonly string[]]> = [
  ['task', ['id', 'status']],
  ['message', ['messageId', 'role']],
  ['status-update', ['taskId', 'status']],
  ['artifact-update', ['taskId', 'artifact']],
];

const NAMES: Record<ResultKind, string> = { task: 'a task', message: 'a message', 'status-update': 'a status update', 'artifact-update': 'an artifact update' };

/** The kinds each operation's result (or each event of its stream) may hold; other operations are left alone. */
export const RESULT_KINDS: Partial<Record<string, readonly ResultKind[]>> = {
  SendMessage: ['task', 'message'],
  SendStreamingMessage: ['task', 'message', 'status-update', 'artifact-update'],
  SubscribeToTask: ['task', 'message', 'status-update', 'artifact-update'],
  GetTask: ['task'],
  CancelTask: ['task'],
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is being read, for the refusal: `agent "x" answered message/send` or `… stream event #2 of message/stream`. */
export interface ResultOrigin {
  agent: string;
  wireMethod: string;
  /** 1-based stream event number; absent for a unary answer. */
  event?: number;
}

const orList = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);

function ambiguous(origin: ResultOrigin, allowed: readonly ResultKind[], candidates: ResultKind[]): MissiveError {
  const what = origin.event === undefined ? `answered ${origin.wireMethod} with a result` : `sent stream event #${origin.event} of ${origin.wireMethod}`;
  const why = candidates.length
    ? `could be ${orList(candidates.map((k) => NAMES[k]))}`
    : `fits none of ${orList(allowed.map((k) => NAMES[k]))} (${allowed.map((k) => `${k}: ${SHAPES.find(([s]) => s === k)![1].join(' + ')}`).join('; ')})`;
  return protocolError(
    'ambiguous_result',
    `agent ${origin.agent} ${what} that has no "kind" and ${why}; A2A 0.3 requires "kind", so missive cannot tell what it is`,
    'The fault is the agent\'s: report it to the agent\'s operator (every result and stream event needs its "kind").',
  );
}

/** A part's kind from its fields (text, file, data); undefined when none fits (the SDK then refuses the part). */
function partKind(part: Json): string | undefined {
  if (typeof part.text === 'string') return 'text';
  if (isObject(part.file)) return 'file';
  if ('data' in part) return 'data';
  return undefined;
}

/** Completes `kind` on the parts of `parts`; returns whether any was missing. */
function completeParts(parts: unknown): boolean {
  let missing = false;
  if (!Array.isArray(parts)) return false;
  for (const part of parts) {
    if (!isObject(part) || typeof part.kind === 'string') continue;
    const kind = partKind(part);
    if (kind) {
      part.kind = kind;
      missing = true;
    }
  }
  return missing;
}

function completeMessage(message: unknown): boolean {
  if (!isObject(message)) return false;
  let missing = completeParts(message.parts);
  if (typeof message.kind !== 'string' && typeof message.messageId === 'string') {
    message.kind = 'message';
    missing = true;
  }
  return missing;
}

/** Completes the nested messages and parts of a result of `kind`; returns whether anything lacked its kind. */
function completeNested(kind: ResultKind, value: Json): boolean {
  const status = isObject(value.status) ? value.status : undefined;
  switch (kind) {
    case 'message':
      return completeParts(value.parts);
    case 'status-update':
      return completeMessage(status?.message);
    case 'artifact-update':
      return completeParts(isObject(value.artifact) ? value.artifact.parts : undefined);
    case 'task': {
      let missing = completeMessage(status?.message);
      for (const m of Array.isArray(value.history) ? value.history : []) missing = completeMessage(m) || missing;
      for (const a of Array.isArray(value.artifacts) ? value.artifacts : []) missing = (isObject(a) && completeParts(a.parts)) || missing;
      return missing;
    }
  }
}

/**
 * Gives `result` (a JSON-RPC result, mutated in place) the kinds it lacks. Returns whether any was missing; throws
 * ambiguous_result when the result itself has no kind and its shape does not pick exactly one of `allowed`.
 */
export function completeKinds(result: unknown, allowed: readonly ResultKind[], origin: ResultOrigin): boolean {
  if (!isObject(result)) return false;
  let kind = result.kind as ResultKind | undefined;
  let missing = false;
  if (typeof kind !== 'string') {
    const candidates = SHAPES.filter(([k, keys]) => allowed.includes(k) && keys.every((key) => key in result)).map(([k]) => k);
    if (candidates.length !== 1) throw ambiguous(origin, allowed, candidates);
    kind = candidates[0]!;
    result.kind = kind;
    missing = true;
  }
  if (!SHAPES.some(([k]) => k === kind)) return missing;
  return completeNested(kind, result) || missing;
}

/** The warning for an agent whose results lack kinds: the same text whatever the result, so it is given once per agent. */
export const kindlessWarning = (agent: string): string =>
  `agent ${agent} sends A2A 0.3 results without the "kind" field the protocol requires; missive reads each one by its shape (report it to the agent's operator)`;

/** A JSON-RPC response body (text) with the kinds its result lacks completed; `changed` is false when nothing lacked one. */
export function completeJsonRpcBody(text: string, allowed: readonly ResultKind[], origin: ResultOrigin): { text: string; changed: boolean } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { text, changed: false };
  }
  if (!isObject(body) || !('result' in body)) return { text, changed: false };
  const changed = completeKinds(body.result, allowed, origin);
  return changed ? { text: JSON.stringify(body), changed } : { text, changed };
}
