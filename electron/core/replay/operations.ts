/**
 * The collective steps of a context as the journal recorded them: `missive.<step>.*` events grouped by their
 * `operation_id`, in the order the steps started, with the `a2a.send.completed` events of the context indexed by the
 * request message id (what each fan-out member's send brought back).
 */
import type { EventRow } from '../store/rows/events.js';

export const STEP_KINDS = ['bcast', 'scatter', 'barrier', 'gather', 'reduce'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export interface JournaledOperation {
  kind: StepKind;
  operation_id: string;
  /** The `missive.<kind>.started` event, null when the journal lost it. */
  started: EventRow | null;
  /** The per-member events (`missive.<kind>.member.*`, `missive.reduce.input.*`), in journal order. */
  members: EventRow[];
  /** The closing event: `missive.<kind>.completed` (or `missive.reduce.failed`), null while it is missing. */
  finished: EventRow | null;
}

export interface SendAnswer {
  response_shape: 'task' | 'message' | null;
  response_message_id: string | null;
  task_id: string | null;
  state: string | null;
}

const STEP_EVENT = /^missive\.(bcast|scatter|barrier|gather|reduce)\.(.+)$/;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a journal payload is JSON of one shape per event type; rebuild.ts and stored.ts check each field they read (str, num)
const payloadOf = (e: EventRow) => (e.payload ?? {}) as Record<string, any>;

/** Groups the context's journal into its collective operations, ordered by their first event. */
export function operationsOf(events: readonly EventRow[]): JournaledOperation[] {
  const byId = new Map<string, JournaledOperation>();
  for (const e of events) {
    const match = STEP_EVENT.exec(e.type);
    const operationId = payloadOf(e).operation_id;
    if (!match || typeof operationId !== 'string') continue;
    const kind = match[1] as StepKind;
    const what = match[2]!;
    let op = byId.get(operationId);
    if (!op) byId.set(operationId, (op = { kind, operation_id: operationId, started: null, members: [], finished: null }));
    if (what === 'started') op.started = e;
    else if (what === 'completed' || (kind === 'reduce' && what === 'failed')) op.finished = e;
    else if (what.startsWith('member.') || (kind === 'reduce' && what.startsWith('input.'))) op.members.push(e);
  }
  return [...byId.values()];
}

/** `a2a.send.completed` payloads of the context, by the request's message id. */
export function sendAnswersOf(events: readonly EventRow[]): Map<string, SendAnswer> {
  const answers = new Map<string, SendAnswer>();
  for (const e of events) {
    if (e.type !== 'a2a.send.completed') continue;
    const p = payloadOf(e);
    if (typeof p.message_id !== 'string') continue;
    answers.set(p.message_id, {
      response_shape: p.response_shape ?? null,
      response_message_id: p.response_message_id ?? null,
      task_id: p.task?.task_id ?? e.taskId ?? null,
      state: p.task?.state ?? null,
    });
  }
  return answers;
}

/** The status a per-member event names: the last segment of its type (`missive.gather.member.missing_task` → `missing_task`). */
export const memberStatusOf = (e: EventRow): string => e.type.slice(e.type.lastIndexOf('.') + 1);

export { payloadOf };
