/**
 * The AgentExecutor of `missive mock serve`: for each request, the exchange the matcher picked (server.ts matches it
 * before the SDK runs the executor, so a miss is an A2A error rather than a failed task) is replayed on the event bus:
 * its Task, Message, status and artifact updates in the recorded order, waiting between them as the latency mode says.
 * Every recorded task id and context id becomes this request's live one (RequestContext taskId / contextId), and every
 * recorded message id a fresh one, so `task get` against the mock answers the replayed task, and an `input_required`
 * turn leaves the live task waiting for the client's reply, which matches the recorded reply exchange.
 */
import { randomUUID } from 'node:crypto';
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { JsonObject } from '../a2a/operations.js';
import type { RecordedEvent, RecordedExchange } from './recording.js';
import { rewriteStrings } from './id-rewrite.js';

/** `recorded`: each event at its recorded offset; `none`: all at once; a number: that many ms before each event after the first. */
export type Latency = 'recorded' | 'none' | number;

/** The ids of one exchange as recorded → the live ones of the request replaying it. */
export interface IdMap {
  tasks: Set<string>;
  contexts: Set<string>;
  messages: Map<string, string>;
}

/** The task, context and message ids an exchange recorded (request and events). */
export function recordedIds(exchange: RecordedExchange): IdMap {
  const ids: IdMap = { tasks: new Set(), contexts: new Set(), messages: new Map() };
  const add = (set: Set<string>, value: unknown) => typeof value === 'string' && value && set.add(value);
  add(ids.tasks, exchange.request.taskId);
  add(ids.contexts, exchange.request.contextId);
  for (const { kind, body } of exchange.events) {
    add(ids.tasks, kind === 'task' ? body.id : body.taskId);
    add(ids.contexts, body.contextId);
  }
  return ids;
}

/** `body` with every recorded task / context id replaced by the live one and every message id by a fresh one. */
export function liveBody(body: JsonObject, ids: IdMap, live: { taskId: string; contextId: string }): JsonObject {
  return rewriteStrings(body, (key, value) => {
    if ((key === 'taskId' || key === 'id' || key === 'referenceTaskIds') && ids.tasks.has(value)) return live.taskId;
    if (key === 'contextId' && ids.contexts.has(value)) return live.contextId;
    if (key === 'messageId') {
      if (!ids.messages.has(value)) ids.messages.set(value, randomUUID());
      return ids.messages.get(value)!;
    }
    return value;
  });
}

/** The SDK event of a recorded one (its body already live). */
function agentEvent(kind: RecordedEvent['kind'], body: JsonObject) {
  if (kind === 'task') return AgentEvent.task(Task.fromJSON(body));
  if (kind === 'message') return AgentEvent.message(Message.fromJSON(body));
  if (kind === 'status_update') return AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(body));
  return AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON(body));
}

/**
 * The events to publish: the recorded ones, led by a Task when the recording starts with an update (the SDK wants a
 * Task or a Message first, every turn).
 */
function replayedEvents(exchange: RecordedExchange, live: { taskId: string; contextId: string }): RecordedEvent[] {
  const events = exchange.events;
  const first = events[0];
  if (!first || first.kind === 'task' || first.kind === 'message') return events;
  const status = (events.find((e) => e.kind === 'status_update')?.body.status as JsonObject | undefined) ?? { state: 'TASK_STATE_WORKING' };
  return [{ offset_ms: first.offset_ms, kind: 'task', body: { id: live.taskId, contextId: live.contextId, status: { state: status.state } } }, ...events];
}

/** The longest wait `recorded` latency replays between two events (or before the first): a longer gap is cut to it. */
export const MAX_REPLAYED_GAP_MS = 30_000;

/**
 * When each event is due, in ms after the request arrived: its recorded offset (`recorded`; each gap at most
 * MAX_REPLAYED_GAP_MS, so a recording from a shared store or a file cannot hold a request for days), a fixed gap after
 * the first (a number), or at once (`none`).
 */
export function replayOffsets(events: readonly RecordedEvent[], latency: Latency): number[] {
  let due = 0;
  let recorded = 0;
  return events.map((event, i) => {
    if (latency === 'none') return 0;
    if (typeof latency === 'number') return i === 0 ? 0 : (due += latency);
    const offset = Number.isFinite(event.offset_ms) ? Math.max(recorded, event.offset_ms) : recorded;
    due += Math.min(offset - recorded, MAX_REPLAYED_GAP_MS);
    recorded = offset;
    return due;
  });
}

export class ReplayExecutor implements AgentExecutor {
  /** Running replays: each can be woken early (cancel, close). */
  readonly #running = new Map<string, { stop: () => void; contextId: string }>();
  readonly #cancelled = new Set<string>();

  constructor(
    /** The exchange matched for a request, by the request's message id (taken once). */
    private readonly take: (messageId: string) => RecordedExchange | undefined,
    private readonly latency: Latency,
    /** Told of each replay as it starts, with the live task id its recorded task ids become. */
    private readonly onReplay?: (exchange: RecordedExchange, liveTaskId: string) => void,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const exchange = this.take(ctx.userMessage.messageId);
    const live = { taskId: ctx.taskId, contextId: ctx.contextId };
    if (!exchange) {
      // Matched requests always have one; a request that slipped past matching is answered, not hung.
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({ messageId: randomUUID(), contextId: live.contextId, role: 'ROLE_AGENT', parts: [{ text: 'mock: no exchange' }] }),
        ),
      );
      return bus.finished();
    }
    this.onReplay?.(exchange, live.taskId);
    const ids = recordedIds(exchange);
    const started = Date.now();
    const events = replayedEvents(exchange, live);
    const due = replayOffsets(events, this.latency);
    for (const [i, event] of events.entries()) {
      const wait = started + due[i]! - Date.now();
      if (wait > 0) await this.#sleep(live.taskId, live.contextId, wait);
      if (this.#cancelled.has(live.taskId)) break;
      bus.publish(agentEvent(event.kind, liveBody(event.body, ids, live)));
    }
    this.#cancelled.delete(live.taskId);
    bus.finished();
  }

  #sleep(taskId: string, contextId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        this.#running.delete(taskId);
        resolve();
      };
      const timer = setTimeout(stop, ms);
      timer.unref();
      this.#running.set(taskId, { stop, contextId });
    });
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const running = this.#running.get(taskId);
    this.#cancelled.add(taskId);
    running?.stop();
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId, ...(running ? { contextId: running.contextId } : {}), status: { state: 'TASK_STATE_CANCELED' } }),
      ),
    );
    bus.finished();
  }

  /** Ends every wait at once (the mock is closing). */
  stop(): void {
    for (const [taskId, { stop }] of this.#running) {
      this.#cancelled.add(taskId);
      stop();
    }
  }
}
