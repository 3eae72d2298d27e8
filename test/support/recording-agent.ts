/**
 * A slow A2A v1.0 agent on the official SDK server (HTTP+JSON and JSON-RPC on 127.0.0.1, a random port) that records
 * every message reaching it: how many times each message id arrived, and each text. Every message gets a task that
 * completes on its own after a delay (spread over [minMs, maxMs] in arrival order, no randomness):
 *
 * The executor publishes the task as `working` first, then waits, then publishes `completed` (final). The SDK's
 * DefaultRequestHandler answers a SendMessage whose `configuration.returnImmediately` is true with the first result
 * the executor publishes (that working task) and keeps processing the executor's later events into its task store in
 * the background, so a later GetTask sees the task completed; a blocking send is answered with the final task. Either
 * way the task completes without anyone asking: the gateway's send jobs (returnImmediately, then GetTask polls) finish.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { AgentCard, Message, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { listenLoopback, mountSdkAgent, sdkInterfaces } from './loopback-app.js';

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

export interface ReceivedMessage {
  messageId: string;
  text: string;
}

class RecordingExecutor implements AgentExecutor {
  readonly received: ReceivedMessage[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(private readonly delayMs: (arrival: number) => number) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const arrival = this.received.push({ messageId: ctx.userMessage.messageId, text: textOf(ctx.userMessage) }) - 1;
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_WORKING' }, history: [Message.toJSON(ctx.userMessage)] }),
      ),
    );
    await new Promise<void>((resolve) => {
      if (this.#closed) return resolve();
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, this.delayMs(arrival));
      this.#timers.add(timer);
    });
    const answer = { messageId: randomUUID(), ...ids, role: 'ROLE_AGENT', parts: [{ text: `done: ${textOf(ctx.userMessage)}` }] };
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state: 'TASK_STATE_COMPLETED', message: answer }, final: true })));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}

  /** Ends the pending delays at once (the agent is closing): no timer outlives the test. */
  stop(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

export interface RecordingAgent {
  baseUrl: string;
  /** Every message that reached the agent, in arrival order. */
  readonly received: readonly ReceivedMessage[];
  /** How many times each message id arrived. */
  countsByMessageId(): Map<string, number>;
  /** How many times each text arrived. */
  countsByText(): Map<string, number>;
  close(): Promise<void>;
}

const countBy = (items: readonly ReceivedMessage[], key: (m: ReceivedMessage) => string) => {
  const counts = new Map<string, number>();
  for (const m of items) counts.set(key(m), (counts.get(key(m)) ?? 0) + 1);
  return counts;
};

/** Starts the agent; each task completes `minMs`…`maxMs` after its message arrived (default 150–300 ms). */
export async function startRecordingAgent(options: { minMs?: number; maxMs?: number; name?: string } = {}): Promise<RecordingAgent> {
  const min = options.minMs ?? 150;
  const spread = Math.max(0, (options.maxMs ?? 300) - min);
  // Spread over the range in arrival order (7 steps), not at random: the same run every time.
  const executor = new RecordingExecutor((arrival) => min + Math.round(((arrival % 7) / 6) * spread));
  const app = express();
  const listening = await listenLoopback(app);
  const { baseUrl } = listening;
  const card = AgentCard.fromJSON({
    name: options.name ?? 'recording agent',
    description: 'Records every message id it receives; completes each task after a delay.',
    version: '1.0.0',
    supportedInterfaces: sdkInterfaces(baseUrl),
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'slow', name: 'Slow worker', description: 'Completes each task after a delay', tags: ['test'] }],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  mountSdkAgent(app, requestHandler);
  return {
    baseUrl,
    received: executor.received,
    countsByMessageId: () => countBy(executor.received, (m) => m.messageId),
    countsByText: () => countBy(executor.received, (m) => m.text),
    close: async () => {
      executor.stop();
      await listening.close();
    },
  };
}
