/**
 * The bounds on what an agent may send, on every wire (issue 32): one SSE event may grow to MAX_EVENT_BYTES (the answer
 * cap) before it ends; each stream has a budget of bytes and events (`[qos] max_stream_bytes`, `max_stream_events`);
 * one answer or event may hold at most `[qos] max_answer_objects` JSON objects and arrays. Past any of them the call
 * fails with a protocol error (exit 76) naming the agent, the limit and what to raise; a stream's connection is closed
 * by whoever reads it, and what was journaled before stays.
 */
import { protocolError, transportError, type MissiveError } from '../../../shared/errors.js';
import { holdsMoreObjectsThan } from '../security/json-depth.js';
import { redactUrl } from '../security/redact.js';
import { DEFAULT_MAX_ANSWER_OBJECTS, DEFAULT_MAX_STREAM_BYTES, DEFAULT_MAX_STREAM_EVENTS } from '../config/limits.js';
import type { BindingCall } from './binding-call.js';

const MiB = 1024 * 1024;
/** The most one SSE event (its unfinished line and data lines) may hold: the unary answer cap. */
export const MAX_EVENT_BYTES = 16 * MiB;

type Who = Pick<BindingCall, 'alias' | 'iface'>;

/** The agent as messages name it: its alias, else its interface URL. */
export const agentName = (call: Who): string => (call.alias ? `"${call.alias}"` : redactUrl(call.iface.url));

const size = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);

/** An SSE event (or gRPC message) that grew past MAX_EVENT_BYTES (or grpc-js's receive limit) before it ended. */
export function eventTooLargeError(call: Who, method: string, sequence: number | null, max: number = MAX_EVENT_BYTES, how = 'without ending'): MissiveError {
  const which = sequence === null ? 'an event' : `event #${sequence}`;
  return protocolError(
    'event_too_large',
    `${which} of the ${method} stream from ${agentName(call)} passed ${size(max)} ${how}; missive closed the stream`,
    'One event that large is malformed or hostile: report it to whoever runs the agent. Events received before it are kept in the journal.',
  );
}

/**
 * A gRPC message over grpc-js's receive limit (4 MiB; it refuses one before reading it): in a stream, an event too
 * large; as a unary answer, what an HTTP answer over the cap is.
 */
export function grpcMessageTooLargeError(call: Who, method: string, max: number): MissiveError {
  if (method === 'SendStreamingMessage' || method === 'SubscribeToTask')
    return eventTooLargeError(call, method, null, max, "(grpc-js's limit for one message)");
  return transportError('response_too_large', `the ${method} answer from ${agentName(call)} exceeds ${size(max)}, grpc-js's limit for one message`);
}

export function streamTooLargeError(call: Who, method: string, limit: 'bytes' | 'events', max: number): MissiveError {
  const key = limit === 'bytes' ? 'max_stream_bytes' : 'max_stream_events';
  return protocolError(
    'stream_too_large',
    `the ${method} stream from ${agentName(call)} passed [qos] ${key} = ${max} ${limit}; missive closed it`,
    `Events received before the limit are kept in the journal. If this agent is trusted to stream that much, raise [qos] ${key} (docs/config.md).`,
  );
}

/** What one stream has used of its budget; `bytes` and `event` throw stream_too_large once it is spent. */
export interface StreamBudget {
  bytes(count: number): void;
  event(): void;
}

export function streamBudget(call: Who & Pick<BindingCall, 'streamLimits'>, method: string): StreamBudget {
  const maxBytes = call.streamLimits?.maxBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const maxEvents = call.streamLimits?.maxEvents ?? DEFAULT_MAX_STREAM_EVENTS;
  let bytes = 0;
  let events = 0;
  return {
    bytes(count) {
      bytes += count;
      if (bytes > maxBytes) throw streamTooLargeError(call, method, 'bytes', maxBytes);
    },
    event() {
      if (++events > maxEvents) throw streamTooLargeError(call, method, 'events', maxEvents);
    },
  };
}

/**
 * Throws too_many_objects when `text` (an answer or one stream event, as received) holds more JSON objects and arrays
 * than the call's `maxAnswerObjects`; `what` names it ("the SendMessage answer", "event #3 of the … stream").
 */
export function assertFewObjects(text: string, what: string, call: Who & Pick<BindingCall, 'maxAnswerObjects'>): void {
  const max = call.maxAnswerObjects ?? DEFAULT_MAX_ANSWER_OBJECTS;
  if (!holdsMoreObjectsThan(text, max)) return;
  throw protocolError(
    'too_many_objects',
    `${what} from ${agentName(call)} holds more than [qos] max_answer_objects = ${max} JSON objects and arrays (parts, artifacts, messages, data); missive refuses it before reading it`,
    `Nothing of it was recorded. If this agent is trusted to answer with that much, raise [qos] max_answer_objects (docs/config.md).`,
  );
}

/**
 * The errors of these bounds: the agent did answer (too much), so another attempt would send the message again and
 * get as much; jobs and the gateway's follows fail at once on them rather than retry.
 */
const WIRE_LIMIT_CODES: ReadonlySet<string> = new Set(
  ['event_too_large', 'stream_too_large', 'too_many_objects'].map((reason) => `missive::protocol::${reason}`),
);
export const isWireLimit = (error: MissiveError): boolean => WIRE_LIMIT_CODES.has(error.code);
