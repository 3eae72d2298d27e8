/**
 * One request of a load run, start to end: SendMessage (or SendStreamingMessage) straight over the agent's connection,
 * nothing journaled, or, with `--record`, through the send/stream services, journaled as a send is. With `--until
 * final` a task answer is followed to a final state: by its stream, else GetTask polling with backoff (100 ms doubling
 * to 2 s) until the follow deadline; `input_required` and `auth_required` end the request as they are (never waited on).
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import type { Core } from '../handle.js';
import type { Connection } from '../agents/connection.js';
import type { SendAnswer, SendMessageParams, TaskJson } from '../a2a/operations.js';
import { sendMessage } from '../messaging/send.js';
import { streamMessage } from '../messaging/stream.js';
import { partBytes } from '../messaging/parts.js';
import { localTaskState } from '../tasks/task-state.js';
import { INTERRUPTED_TASK_STATES, TERMINAL_TASK_STATES, type TaskState } from '../../../shared/task-states.js';
import type { LoadInput, LoadPlan } from './types.js';
import { sleepAbortable } from './sleep.js';

/** What one request gave: when each thing happened (performance.now()), and how it ended. */
export interface RequestResult {
  /** The answer (send) or the stream's end (stream). */
  answeredAt: number;
  /** Each stream event's arrival, in order (streams only). */
  events: number[];
  /** The answer's kind or task state (`message`, `completed`, `working`, `input_required`…); after following with --until final. */
  outcome: string;
  /** When a final answer was reached (a message, or a task in a terminal state), with --until final. */
  finalAt: number | null;
}

/** How requests to one agent are made: its connection and the request each input becomes. */
export interface AgentLane {
  alias: string;
  conn: Connection;
  /** One request body per input; each request gets a fresh message id. */
  templates: SendMessageParams[];
  inputs: LoadInput[];
}

export interface RequestContext {
  core: Core;
  plan: LoadPlan;
  /** performance.now() after which --until final stops following (the run's end plus a grace). */
  followUntil: () => number;
  signal: AbortSignal;
}

const TERMINAL = new Set<string>(TERMINAL_TASK_STATES);
const INTERRUPTED = new Set<string>(INTERRUPTED_TASK_STATES);
const settled = (state: string): boolean => TERMINAL.has(state) || INTERRUPTED.has(state);

/** The parts of an input, as A2A 1.0 JSON. */
const partsOf = (input: LoadInput): Array<Record<string, unknown>> => [...(input.text ? [{ text: input.text }] : []), ...(input.parts ?? [])];

/** The SendMessage body of an input (the interface's tenant included), checked by the SDK codec once. */
export function requestTemplate(input: LoadInput, tenant: string | undefined): SendMessageParams {
  return SendMessageRequest.toJSON(
    SendMessageRequest.fromJSON({ ...(tenant ? { tenant } : {}), message: { messageId: 'template', role: 'ROLE_USER', parts: partsOf(input) } }),
  ) as SendMessageParams;
}

/** The request body for the `index`-th request: the template with a fresh message id. */
export const withMessageId = (template: SendMessageParams): SendMessageParams => ({ ...template, message: { ...template.message, messageId: randomUUID() } });

export async function runRequest(ctx: RequestContext, lane: AgentLane, index: number): Promise<RequestResult> {
  if (ctx.plan.record) return ctx.plan.stream ? recordedStream(ctx, lane, index) : recordedSend(ctx, lane, index);
  const params = withMessageId(lane.templates[index % lane.templates.length]!);
  return ctx.plan.stream ? directStream(ctx, lane, params) : directSend(ctx, lane, params);
}

function answerState(answer: SendAnswer): { outcome: string; taskId: string | null } {
  if (!answer.task) return { outcome: 'message', taskId: null };
  return { outcome: localTaskState(answer.task.status?.state), taskId: answer.task.id };
}

async function directSend(ctx: RequestContext, lane: AgentLane, params: SendMessageParams): Promise<RequestResult> {
  const answer = await lane.conn.client.sendMessage(params);
  const answeredAt = performance.now();
  const { outcome, taskId } = answerState(answer);
  return follow(ctx, lane, { answeredAt, events: [], outcome, finalAt: null }, taskId);
}

async function directStream(ctx: RequestContext, lane: AgentLane, params: SendMessageParams): Promise<RequestResult> {
  const events: number[] = [];
  let outcome = 'none';
  let taskId: string | null = null;
  for await (const record of lane.conn.client.sendMessageStream(params, { signal: ctx.signal })) {
    events.push(performance.now());
    const p = record.payload;
    if (record.variant === 'message') outcome = 'message';
    else if (record.variant === 'task') {
      taskId ??= typeof p.id === 'string' ? p.id : null;
      outcome = localTaskState(p.status?.state);
    } else if (record.variant === 'statusUpdate') {
      taskId ??= typeof p.taskId === 'string' ? p.taskId : null;
      outcome = localTaskState(p.status?.state);
    }
  }
  return follow(ctx, lane, { answeredAt: performance.now(), events, outcome, finalAt: null }, taskId);
}

/** With --until final: a task not yet settled is polled (GetTask, backoff) until it is, or until the follow deadline. */
async function follow(ctx: RequestContext, lane: AgentLane, result: RequestResult, taskId: string | null): Promise<RequestResult> {
  if (!ctx.plan.untilFinal) return result;
  const finalNow = (r: RequestResult, at: number) => (r.outcome === 'message' || TERMINAL.has(r.outcome) ? { ...r, finalAt: at } : r);
  if (!taskId || settled(result.outcome)) return finalNow(result, result.answeredAt);
  let wait = 100;
  let outcome = result.outcome;
  while (!ctx.signal.aborted && performance.now() + wait < ctx.followUntil()) {
    await sleepAbortable(wait, ctx.signal);
    if (ctx.signal.aborted) break;
    const task: TaskJson = await lane.conn.client.getTask({ id: taskId, historyLength: 0 });
    outcome = localTaskState(task.status?.state);
    if (settled(outcome)) return finalNow({ ...result, outcome }, performance.now());
    wait = Math.min(2000, wait * 2);
  }
  return { ...result, outcome };
}

const capturedOf = (input: LoadInput) => {
  const parts = partsOf(input);
  return { parts, bytes: parts.reduce((sum, part) => sum + partBytes(part), 0) };
};

async function recordedSend(ctx: RequestContext, lane: AgentLane, index: number): Promise<RequestResult> {
  const input = lane.inputs[index % lane.inputs.length]!;
  const sent = await sendMessage(ctx.core, { agent: lane.alias, binding: ctx.plan.binding, cwd: process.cwd(), captured: capturedOf(input) });
  const answeredAt = performance.now();
  const outcome = sent.task ? (sent.task.state as TaskState) : 'message';
  return follow(ctx, lane, { answeredAt, events: [], outcome, finalAt: null }, sent.task?.task_id ?? null);
}

async function recordedStream(ctx: RequestContext, lane: AgentLane, index: number): Promise<RequestResult> {
  const input = lane.inputs[index % lane.inputs.length]!;
  const events: number[] = [];
  let outcome = 'none';
  const streamed = await streamMessage(ctx.core, {
    agent: lane.alias,
    binding: ctx.plan.binding,
    cwd: process.cwd(),
    captured: capturedOf(input),
    signal: ctx.signal,
    onEvent: (event, record) => {
      events.push(performance.now());
      if (record.variant === 'message') outcome = 'message';
      else if (event.state) outcome = event.state;
    },
  });
  return follow(ctx, lane, { answeredAt: performance.now(), events, outcome, finalAt: null }, streamed.task?.task_id ?? null);
}
