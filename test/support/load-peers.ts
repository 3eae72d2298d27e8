/**
 * SDK peers for `missive load` (A2A 1.0 on @a2a-js/sdk, JSON-RPC and HTTP+JSON, streaming, on 127.0.0.1). Each counts
 * the SendMessage and SendStreamingMessage requests it received (failed ones included), and answers as told:
 * - `message` (default): a direct message, after `delayMs`; with `slowAfter`, every request after the first
 *   `slowAfter` takes `delayMs * slowFactor`.
 * - `task-later`: a task answered at once in `working` (the peer answers as if asked to return immediately), completed
 *   `completeAfterMs` later, so GetTask sees it finish.
 * - `input-required`: a task that waits in `input_required`, for good.
 * - `stream-chunks`: a task streamed as working, three artifact chunks `delayMs` apart, and completed.
 * With `failEvery: n`, the n-th, 2n-th… request fails with the SDK's TaskNotFoundError.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent, type SendMessageRequest } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export type LoadPeerAnswer = 'message' | 'task-later' | 'input-required' | 'stream-chunks';

export interface LoadPeerOptions {
  name?: string;
  answer?: LoadPeerAnswer;
  delayMs?: number;
  slowAfter?: number;
  slowFactor?: number;
  failEvery?: number;
  completeAfterMs?: number;
}

export interface LoadPeer {
  baseUrl: string;
  /** Requests received (SendMessage and SendStreamingMessage), failed ones included. */
  readonly received: number;
  close(): Promise<void>;
}

const pause = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms).unref()) : Promise.resolve());
const textOf = (message: Message | undefined) => message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';

class LoadExecutor implements AgentExecutor {
  answered = 0;
  constructor(private readonly options: LoadPeerOptions) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const o = this.options;
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const task = (state: string) => bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state } })));
    const status = (state: string) => bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state } })));
    const n = ++this.answered;
    switch (o.answer ?? 'message') {
      case 'task-later':
        task('TASK_STATE_WORKING');
        await pause(o.completeAfterMs ?? 200);
        status('TASK_STATE_COMPLETED');
        return bus.finished();
      case 'input-required':
        task('TASK_STATE_SUBMITTED');
        status('TASK_STATE_INPUT_REQUIRED');
        return bus.finished();
      case 'stream-chunks':
        task('TASK_STATE_WORKING');
        for (let i = 0; i < 3; i++) {
          await pause(o.delayMs ?? 0);
          bus.publish(
            AgentEvent.artifactUpdate(
              TaskArtifactUpdateEvent.fromJSON({ ...ids, artifact: { artifactId: 'a', parts: [{ text: `chunk ${i}` }] }, append: i > 0, lastChunk: i === 2 }),
            ),
          );
        }
        status('TASK_STATE_COMPLETED');
        return bus.finished();
      default: {
        const slow = o.slowAfter !== undefined && n > o.slowAfter;
        await pause((o.delayMs ?? 0) * (slow ? (o.slowFactor ?? 10) : 1));
        bus.publish(
          AgentEvent.message(
            Message.fromJSON({ messageId: randomUUID(), contextId: ctx.contextId, role: 'ROLE_AGENT', parts: [{ text: `ok ${textOf(ctx.userMessage)}` }] }),
          ),
        );
        return bus.finished();
      }
    }
  }

  async cancelTask(): Promise<void> {}
}

class CountingHandler extends DefaultRequestHandler {
  received = 0;
  failEvery = 0;
  returnImmediately = false;

  private count(): void {
    this.received++;
    if (this.failEvery > 0 && this.received % this.failEvery === 0) throw new TaskNotFoundError('no such task (the load peer fails one request in ten)');
  }

  override async sendMessage(params: SendMessageRequest, context: Parameters<DefaultRequestHandler['sendMessage']>[1]) {
    this.count();
    if (!this.returnImmediately) return super.sendMessage(params, context);
    return super.sendMessage({ ...params, configuration: { ...params.configuration, returnImmediately: true } } as SendMessageRequest, context);
  }

  override sendMessageStream(params: SendMessageRequest, context: Parameters<DefaultRequestHandler['sendMessageStream']>[1]) {
    this.count();
    return super.sendMessageStream(params, context);
  }
}

export async function startLoadPeer(options: LoadPeerOptions = {}): Promise<LoadPeer> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: options.name ?? 'load peer',
    description: 'an SDK agent for load tests',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'load', name: 'Load', description: 'answers load', tags: ['test'] }],
  });
  const handler = new CountingHandler(card, new InMemoryTaskStore(), new LoadExecutor(options));
  handler.failEvery = options.failEvery ?? 0;
  handler.returnImmediately = options.answer === 'task-later';
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    get received() {
      return handler.received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
