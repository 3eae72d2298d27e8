/**
 * An A2A v1.0 agent on the official SDK server (HTTP+JSON and JSON-RPC on 127.0.0.1) that forgets its tasks: once a
 * SendMessage has been answered, the task it answered with is gone from its task store, so GetTask answers
 * TaskNotFound (the SDK's own error, encoded by the SDK per binding). Agents may expire or purge tasks; a terminal task
 * never changes, so a client that already holds it final has no reason to ask.
 * - a message starting with `linger`: the task is left `working` (the execution ends without a final state), then
 *   forgotten: the agent no longer knows a task that never finished.
 * - anything else: a `completed` task whose status message is `done: <text>`, then forgotten.
 * `gets` lists the task ids GetTask was asked for, on either binding.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { AgentCard, Message, Task, TaskStatusUpdateEvent, type GetTaskRequest, type SendMessageRequest } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { listenLoopback, mountSdkAgent, sdkInterfaces } from './loopback-app.js';

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

class ForgettingExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage);
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_WORKING' }, history: [Message.toJSON(ctx.userMessage)] }),
      ),
    );
    if (!text.trim().startsWith('linger')) {
      const answer = { messageId: randomUUID(), ...ids, role: 'ROLE_AGENT', parts: [{ text: `done: ${text}` }] };
      bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state: 'TASK_STATE_COMPLETED', message: answer }, final: true })));
    }
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

/** The SDK's in-memory store, except that a forgotten task is never found again. */
class ForgettingTaskStore extends InMemoryTaskStore {
  readonly forgotten = new Set<string>();

  override async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.forgotten.has(taskId) ? undefined : super.load(taskId, context);
  }
}

/** The SDK's request handler, forgetting each task once its SendMessage is answered, and noting each GetTask. */
class ForgettingHandler extends DefaultRequestHandler {
  readonly gets: string[] = [];

  constructor(
    card: AgentCard,
    private readonly store: ForgettingTaskStore,
  ) {
    super(card, store, new ForgettingExecutor());
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const answer = await super.sendMessage(params, context);
    if ('status' in answer && answer.id) this.store.forgotten.add(answer.id);
    return answer;
  }

  override async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    this.gets.push(params.id);
    return super.getTask(params, context);
  }
}

export interface ForgettingPeer {
  baseUrl: string;
  /** The task ids GetTask was asked for, oldest first. */
  readonly gets: readonly string[];
  close(): Promise<void>;
}

export async function startForgettingPeer(name = 'forgetting agent'): Promise<ForgettingPeer> {
  const app = express();
  const { baseUrl, close } = await listenLoopback(app);
  const card = AgentCard.fromJSON({
    name,
    description: 'Answers with a task, then forgets it: GetTask answers TaskNotFound.',
    version: '1.0.0',
    supportedInterfaces: sdkInterfaces(baseUrl),
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'forget', name: 'Forgetful worker', description: 'Completes each task, then forgets it', tags: ['test'] }],
  });
  const requestHandler = new ForgettingHandler(card, new ForgettingTaskStore());
  mountSdkAgent(app, requestHandler);
  return { baseUrl, gets: requestHandler.gets, close };
}
