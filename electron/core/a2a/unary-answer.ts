/**
 * The one decoder of unary A2A answers: the agent's JSON result (as the wire hands it over: unwrapped from JSON-RPC,
 * or translated to A2A 1.0 JSON by the SDK) becomes the operation's typed answer (operations.ts), checked the way
 * stream-response.ts checks stream events: a SendMessage answer holds exactly one task or message, a task has an id,
 * and every value decodes with the SDK codec. Nothing after this point decodes the answer again. An answer that does
 * not pass is the agent's fault (exit 76), never a crash.
 */
import { AgentCard, ListTaskPushNotificationConfigsResponse, ListTasksResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { protocolError, type MissiveError } from '../../../shared/errors.js';
import { parseCard } from './card.js';
import { oneLine } from './remote-text.js';
import type { AnswerOf, Json, PushConfigJson, TaskJson, UnaryMethod, UnaryOperations } from './operations.js';
import { checkStreamResponse, type StreamRecord, type StreamVariant } from './stream-response.js';

interface Codec<T> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK codecs' own signature (ts-proto's fromJSON takes any)
  fromJSON(object: any): T;
  toJSON(message: T): unknown;
}

const invalid = (method: UnaryMethod, reason: string): MissiveError => protocolError('invalid_response', `the ${method} answer cannot be read: ${reason}`);

/** `value` as a StreamResponse holding one of `variants` (zod, then the SDK codec): its canonical record. */
function record(method: UnaryMethod, value: unknown, variants: readonly StreamVariant[]): StreamRecord {
  const checked = checkStreamResponse(value);
  if (!checked.ok) throw invalid(method, checked.reason);
  if (!variants.includes(checked.record.variant)) throw invalid(method, `expected ${variants.join(' or ')}, found ${checked.record.variant}`);
  return checked.record;
}

const task = (method: UnaryMethod, value: unknown): TaskJson => record(method, { task: value }, ['task']).payload as TaskJson;

/** `value` decoded by the SDK codec (its TypeErrors on wrong field types are the agent's fault). */
function decode<T>(method: UnaryMethod, codec: Codec<T>, value: unknown): T {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(method, 'the result is not a JSON object');
  try {
    const decoded = codec.fromJSON(value);
    codec.toJSON(decoded);
    return decoded;
  } catch (error) {
    throw invalid(method, oneLine((error as Error).message));
  }
}

const pushConfig = (config: TaskPushNotificationConfig): PushConfigJson => TaskPushNotificationConfig.toJSON(config) as PushConfigJson;

type Readers = { [M in UnaryMethod]: (value: unknown, method: M) => UnaryOperations[M]['answer'] };

const READERS: Readers = {
  SendMessage: (value, method) => {
    const { variant, payload } = record(method, value, ['task', 'message']);
    return variant === 'task' ? { task: payload as TaskJson } : { message: payload };
  },
  GetTask: (value, method) => task(method, value),
  CancelTask: (value, method) => task(method, value),
  ListTasks: (value, method) => {
    const tasks = (value as { tasks?: unknown } | null)?.tasks;
    if (!value || typeof value !== 'object' || Array.isArray(value) || (tasks !== undefined && !Array.isArray(tasks))) {
      throw protocolError('invalid_list_tasks', 'the ListTasks response is not an object with a tasks array');
    }
    // Without `tasks`, the page is empty; pagination fields are optional in practice: absent means "no more pages".
    const read = (tasks ?? []).map((t) => task(method, t));
    const page = decode(method, ListTasksResponse, value);
    return { tasks: read, nextPageToken: page.nextPageToken || null, totalSize: page.totalSize || null };
  },
  // No body (null) means "as asked"; a body is returned as the agent sent it, once it decodes.
  CreateTaskPushNotificationConfig: (value, method) => {
    if (value === null) return null;
    decode(method, TaskPushNotificationConfig, value);
    return value as PushConfigJson;
  },
  GetTaskPushNotificationConfig: (value, method) => pushConfig(decode(method, TaskPushNotificationConfig, value)),
  // No body (null) means "none".
  ListTaskPushNotificationConfigs: (value, method) => {
    if (value === null) return { configs: [], nextPageToken: null };
    const page = decode(method, ListTaskPushNotificationConfigsResponse, value);
    return { configs: page.configs.map(pushConfig), nextPageToken: page.nextPageToken || null };
  },
  DeleteTaskPushNotificationConfig: () => undefined,
  GetExtendedAgentCard: (value, method) => {
    decode(method, AgentCard, value);
    try {
      return { card: parseCard(value, `the ${method} answer`), raw: value as Json };
    } catch (error) {
      throw invalid(method, oneLine((error as Error).message));
    }
  },
};

/** The typed answer of `method` read from its A2A 1.0 JSON result (null: no body); throws invalid_response if unreadable. */
export function readAnswer<M extends UnaryMethod>(method: M, value: unknown): AnswerOf<M> {
  return (READERS[method] as (value: unknown, method: M) => AnswerOf<M>)(value, method);
}
