/**
 * The result of a unary A2A operation, checked before the SDK codecs and the journal read it, as stream-response.ts
 * checks stream events: a SendMessage answer holds exactly one task or message, a task has an id, and every value
 * decodes with the SDK codec its reader uses. An answer that does not is the agent's fault (exit 76), never a crash.
 */
import { AgentCard, ListTaskPushNotificationConfigsResponse, ListTasksResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { protocolError, type MissiveError } from '../../../shared/errors.js';
import { parseCard } from './card.js';
import { oneLine } from './remote-text.js';
import type { UnaryMethod } from './sdk-transport.js';
import { checkStreamResponse, type StreamVariant } from './stream-response.js';

interface Codec {
  fromJSON(object: any): unknown;
  toJSON(message: any): unknown;
}

const invalid = (method: UnaryMethod, reason: string): MissiveError => protocolError('invalid_response', `the ${method} answer cannot be read: ${reason}`);

/** `value` as a StreamResponse holding one of `variants` (zod, then the SDK codec). */
function checkRecord(method: UnaryMethod, value: unknown, variants: readonly StreamVariant[]): void {
  const checked = checkStreamResponse(value);
  if (!checked.ok) throw invalid(method, checked.reason);
  if (!variants.includes(checked.record.variant)) throw invalid(method, `expected ${variants.join(' or ')}, found ${checked.record.variant}`);
}

/** `value` as a JSON object the SDK codec decodes (its TypeErrors on wrong field types are the agent's fault). */
function checkDecodes(method: UnaryMethod, codec: Codec, value: unknown): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(method, 'the result is not a JSON object');
  try {
    codec.toJSON(codec.fromJSON(value));
  } catch (error) {
    throw invalid(method, oneLine((error as Error).message));
  }
}

/** Returns `value` (the A2A 1.0 JSON result of `method`) unchanged when its readers can use it; else throws invalid_response. */
export function checkUnaryAnswer(method: UnaryMethod, value: unknown): unknown {
  switch (method) {
    case 'SendMessage':
      checkRecord(method, value, ['task', 'message']);
      break;
    case 'GetTask':
    case 'CancelTask':
      checkRecord(method, { task: value }, ['task']);
      break;
    case 'ListTasks': {
      // A missing or non-array `tasks` is the ListTasks reader's own error (invalid_list_tasks).
      const tasks = (value as { tasks?: unknown } | null)?.tasks;
      if (!Array.isArray(tasks)) break;
      for (const task of tasks) checkRecord(method, { task }, ['task']);
      checkDecodes(method, ListTasksResponse, value);
      break;
    }
    case 'CreateTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
      // No body (null) means "as asked" / "none".
      if (value !== null) checkDecodes(method, method === 'ListTaskPushNotificationConfigs' ? ListTaskPushNotificationConfigsResponse : TaskPushNotificationConfig, value);
      break;
    case 'GetTaskPushNotificationConfig':
      checkDecodes(method, TaskPushNotificationConfig, value);
      break;
    case 'DeleteTaskPushNotificationConfig':
      break;
    case 'GetExtendedAgentCard':
      // Its reader is parseCard (zod + the SDK codec): the answer must pass it.
      checkDecodes(method, AgentCard, value);
      try {
        parseCard(value, `the ${method} answer`);
      } catch (error) {
        throw invalid(method, oneLine((error as Error).message));
      }
      break;
  }
  return value;
}
