/**
 * An A2A 1.0 peer on the `@a2a-js/sdk` server that answers the way LLM frameworks stream: one artifact whose text
 * arrives one token per TaskArtifactUpdateEvent (`append: true` after the first), then a completed status without a
 * message, so the answer is the artifact's text. JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest, push notification
 * configs accepted; the card at /.well-known/agent-card.json and, as some frameworks serve it, at
 * /.well-known/agent-card (no `.json`). A message starting with "crash" makes the request handler throw a plain Error,
 * which the SDK answers as a server failure on each binding (JSON-RPC -32603, HTTP+JSON 500 with a google.rpc.Status).
 * The "LLM" is a deterministic echo. startV03CrashPeer: the same server failure from an A2A 0.3 agent (@a2a-js/sdk 0.3),
 * whose HTTP+JSON answers it as HTTP 500 with `{code: -32603, message}`.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent, type SendMessageRequest } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import { listenLoopback, mountSdkAgent, sdkInterfaces } from './loopback-app.js';
import { DefaultRequestHandler as V03Handler, InMemoryTaskStore as V03TaskStore } from 'a2a-sdk-v03/server';
import {
  agentCardHandler as v03CardHandler,
  jsonRpcHandler as v03JsonRpc,
  restHandler as v03Rest,
  UserBuilder as V03UserBuilder,
} from 'a2a-sdk-v03/server/express';

export interface TokenPeer {
  baseUrl: string;
  /** The card URL without `.json`. */
  bareCardUrl: string;
  close(): Promise<void>;
}

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** The echo split into tokens the way a tokenizer does: each word with its leading space. */
export const tokensOf = (text: string): string[] => `echo: ${text}`.split(/(?= )/);

class TokenExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_WORKING' } })));
    const tokens = tokensOf(textOf(ctx.userMessage));
    tokens.forEach((token, i) =>
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            artifact: { artifactId: 'answer', name: 'answer', parts: [{ text: token }] },
            append: i > 0,
            lastChunk: i === tokens.length - 1,
          }),
        ),
      ),
    );
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state: 'TASK_STATE_COMPLETED' }, final: true })));
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

const crashes = (params: SendMessageRequest) =>
  (params.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '').startsWith('crash');

class CrashingHandler extends DefaultRequestHandler {
  override async sendMessage(params: SendMessageRequest, context: Parameters<DefaultRequestHandler['sendMessage']>[1]) {
    if (crashes(params)) throw new Error('the model backend crashed');
    return super.sendMessage(params, context);
  }
  override sendMessageStream(params: SendMessageRequest, context: Parameters<DefaultRequestHandler['sendMessageStream']>[1]) {
    if (crashes(params)) throw new Error('the model backend crashed');
    return super.sendMessageStream(params, context);
  }
}

/** Starts the peer on 127.0.0.1, HTTP+JSON first in its card (`binding` puts JSON-RPC first instead). */
export async function startTokenPeer(options: { first?: 'http+json' | 'json-rpc'; name?: string } = {}): Promise<TokenPeer> {
  const app = express();
  const { baseUrl, close } = await listenLoopback(app);
  const [rest, rpc] = sdkInterfaces(baseUrl);
  const card = AgentCard.fromJSON({
    name: options.name ?? `token peer ${randomUUID().slice(0, 8)}`,
    description: 'streams its answer one token per artifact chunk',
    version: '1.0.0',
    supportedInterfaces: options.first === 'json-rpc' ? [rpc, rest] : [rest, rpc],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'tokens', name: 'Tokens', description: 'echoes token by token', tags: ['test'] }],
  });
  const requestHandler = new CrashingHandler(card, new InMemoryTaskStore(), new TokenExecutor(), undefined, new InMemoryPushNotificationStore());
  mountSdkAgent(app, requestHandler);
  // As some frameworks serve it: the card at /.well-known/agent-card too, no `.json`.
  app.use('/.well-known/agent-card', agentCardHandler({ agentCardProvider: requestHandler }));
  return { baseUrl, bareCardUrl: `${baseUrl}/.well-known/agent-card`, close };
}

/** An A2A 0.3 agent on @a2a-js/sdk 0.3 (JSON-RPC at /rpc, HTTP+JSON at /rest) whose request handler fails every send. */
export async function startV03CrashPeer(): Promise<Pick<TokenPeer, 'baseUrl' | 'close'>> {
  const app = express();
  const { baseUrl, close } = await listenLoopback(app);
  const card = {
    name: 'v03 crash peer',
    description: 'fails every send with a server error',
    url: `${baseUrl}/rest`,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: `${baseUrl}/rest`, transport: 'HTTP+JSON' },
      { url: `${baseUrl}/rpc`, transport: 'JSONRPC' },
    ],
    protocolVersion: '0.3.0',
    version: '0.3.0',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'crash', name: 'Crash', description: 'fails', tags: ['test'] }],
  };
  const executor = { execute: async () => undefined, cancelTask: async () => undefined };
  const handler = new V03Handler(card as never, new V03TaskStore(), executor as never);
  handler.sendMessage = async () => {
    throw new Error('the model backend crashed');
  };
  app.use('/.well-known/agent-card.json', v03CardHandler({ agentCardProvider: handler }));
  app.use('/rpc', v03JsonRpc({ requestHandler: handler, userBuilder: V03UserBuilder.noAuthentication }));
  app.use('/rest', v03Rest({ requestHandler: handler, userBuilder: V03UserBuilder.noAuthentication }));
  return { baseUrl, close };
}
