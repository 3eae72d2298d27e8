/**
 * The operations the conformance probe knows, in table order, and what each needs: the card capability that
 * advertises it, whether it is read-only, whether A2A 0.3 has it, and the answer a conformant agent gives to the
 * probe's request (a result, or TaskNotFound for a task id that cannot exist).
 */
import type { ParsedCard } from '../a2a/card.js';

export type ProbeOperation =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** What counts as the conformant answer: any result, or the A2A TaskNotFound error. */
export type Expectation = 'result' | 'task_not_found';

export interface OperationSpec {
  name: ProbeOperation;
  /** The card capability that advertises it (none: every agent has it). */
  capability: 'streaming' | 'pushNotifications' | 'extendedAgentCard' | null;
  /** Writes state at the agent: probed only on request (`send`) or never (`never`). */
  writes: 'no' | 'send' | 'never';
  inV03: boolean;
  expect: Expectation;
}

export const OPERATIONS: readonly OperationSpec[] = [
  { name: 'SendMessage', capability: null, writes: 'send', inV03: true, expect: 'result' },
  { name: 'SendStreamingMessage', capability: 'streaming', writes: 'send', inV03: true, expect: 'result' },
  { name: 'GetTask', capability: null, writes: 'no', inV03: true, expect: 'task_not_found' },
  { name: 'ListTasks', capability: null, writes: 'no', inV03: false, expect: 'result' },
  { name: 'CancelTask', capability: null, writes: 'no', inV03: true, expect: 'task_not_found' },
  { name: 'SubscribeToTask', capability: 'streaming', writes: 'no', inV03: true, expect: 'task_not_found' },
  { name: 'CreateTaskPushNotificationConfig', capability: 'pushNotifications', writes: 'never', inV03: true, expect: 'task_not_found' },
  { name: 'GetTaskPushNotificationConfig', capability: 'pushNotifications', writes: 'no', inV03: true, expect: 'task_not_found' },
  { name: 'ListTaskPushNotificationConfigs', capability: 'pushNotifications', writes: 'no', inV03: true, expect: 'task_not_found' },
  { name: 'DeleteTaskPushNotificationConfig', capability: 'pushNotifications', writes: 'no', inV03: true, expect: 'task_not_found' },
  { name: 'GetExtendedAgentCard', capability: 'extendedAgentCard', writes: 'no', inV03: true, expect: 'result' },
];

/** Whether the card advertises the capability an operation needs. */
export function advertises(card: ParsedCard, capability: OperationSpec['capability']): boolean {
  if (capability === null) return true;
  const caps = (card.typed.capabilities ?? {}) as Record<string, unknown>;
  if (caps[capability] === true) return true;
  // A v0.3 card says it at the top level; the translator may keep it there.
  return capability === 'extendedAgentCard' && (card.wire as Record<string, unknown>).supportsAuthenticatedExtendedCard === true;
}
