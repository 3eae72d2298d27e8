/**
 * SDK peers that answer a message naming an A2A error with that error, so each error can be had on every binding:
 * `fail-with TaskNotFound` makes the agent throw TaskNotFoundError from its request handler, which the SDK's own servers
 * encode per binding (JSON-RPC code, HTTP status with google.rpc.ErrorInfo, gRPC status with ErrorInfo; the 0.3 line:
 * its JSON-RPC codes, `{code, message}` HTTP bodies and bare gRPC statuses). Any other message gets a completed task.
 * One peer on @a2a-js/sdk 1.x (A2A 1.0) and one on @a2a-js/sdk 0.3 (`a2a-sdk-v03`), each serving JSON-RPC, HTTP+JSON
 * and gRPC on 127.0.0.1.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import { AGENT_CARD_PATH, AgentCard, Task, type SendMessageRequest } from '@a2a-js/sdk';
import * as A2AErrors from '@a2a-js/sdk/errors';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { A2AError as V03Error, DefaultRequestHandler as V03Handler, InMemoryTaskStore as V03TaskStore } from 'a2a-sdk-v03/server';
import {
  agentCardHandler as v03CardHandler,
  jsonRpcHandler as v03JsonRpc,
  restHandler as v03Rest,
  UserBuilder as V03UserBuilder,
} from 'a2a-sdk-v03/server/express';
import { A2AService as V03Service, grpcService as v03GrpcService } from 'a2a-sdk-v03/server/grpc';

/** The nine A2A errors, by the name the A2A spec gives them (without `Error`). */
export const A2A_ERRORS = [
  'TaskNotFound',
  'TaskNotCancelable',
  'PushNotificationNotSupported',
  'UnsupportedOperation',
  'ContentTypeNotSupported',
  'InvalidAgentResponse',
  'ExtendedAgentCardNotConfigured',
  'ExtensionSupportRequired',
  'VersionNotSupported',
] as const;
export type A2AErrorName = (typeof A2A_ERRORS)[number];

/** The v0.3 JSON-RPC codes (A2A 0.3 §8.2 defines -32001…-32007). */
export const V03_CODES: Partial<Record<A2AErrorName, number>> = {
  TaskNotFound: -32001,
  TaskNotCancelable: -32002,
  PushNotificationNotSupported: -32003,
  UnsupportedOperation: -32004,
  ContentTypeNotSupported: -32005,
  InvalidAgentResponse: -32006,
  ExtendedAgentCardNotConfigured: -32007,
};

export interface ErrorPeer {
  baseUrl: string;
  grpcTarget: string;
  close(): Promise<void>;
}

const PREFIX = 'fail-with ';
const wanted = (text: string): string | undefined => (text.startsWith(PREFIX) ? text.slice(PREFIX.length).trim() : undefined);

async function listen(app: express.Express): Promise<{ server: Server; baseUrl: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function grpcServer(): Promise<{ server: grpc.Server; target: string }> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { server, target: `127.0.0.1:${port}` };
}

const stop = (server: Server, rpc: grpc.Server) =>
  new Promise<void>((resolve) => {
    rpc.forceShutdown();
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** Completes every task at once (the messages that name no error). */
class DoneExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_COMPLETED' } })));
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

class ThrowingHandler extends DefaultRequestHandler {
  override async sendMessage(params: SendMessageRequest, context: Parameters<DefaultRequestHandler['sendMessage']>[1]) {
    const name = wanted(params.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '');
    const ErrorClass = name ? (A2AErrors as unknown as Record<string, new (message?: string) => Error>)[`${name}Error`] : undefined;
    if (ErrorClass) throw new ErrorClass(`${name} from the test peer`);
    return super.sendMessage(params, context);
  }
}

/** A2A 1.0 on @a2a-js/sdk 1.x: JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest, gRPC on its own port. */
export async function startErrorPeer(): Promise<ErrorPeer> {
  const app = express();
  const { server, baseUrl } = await listen(app);
  const rpc = await grpcServer();
  const card = AgentCard.fromJSON({
    name: 'error peer',
    description: 'answers each A2A error on demand',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: rpc.target, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'errors', name: 'Errors', description: 'fails on demand', tags: ['test'] }],
  });
  const requestHandler = new ThrowingHandler(card, new InMemoryTaskStore(), new DoneExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  rpc.server.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  return { baseUrl, grpcTarget: rpc.target, close: () => stop(server, rpc.server) };
}

interface V03Context {
  taskId: string;
  contextId: string;
}
interface V03Bus {
  publish(event: Record<string, unknown>): void;
  finished(): void;
}

class V03DoneExecutor {
  async execute(ctx: V03Context, bus: V03Bus): Promise<void> {
    bus.publish({ kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'completed', timestamp: new Date().toISOString() } });
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

/** A2A 0.3 on @a2a-js/sdk 0.3: JSON-RPC at /rpc, HTTP+JSON at /rest, gRPC on its own port. */
export async function startV03ErrorPeer(): Promise<ErrorPeer> {
  const app = express();
  const { server, baseUrl } = await listen(app);
  const rpc = await grpcServer();
  const urls = { JSONRPC: `${baseUrl}/rpc`, 'HTTP+JSON': `${baseUrl}/rest`, GRPC: rpc.target };
  const card = {
    name: 'v03 error peer',
    description: 'answers each A2A 0.3 error on demand',
    url: urls.JSONRPC,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: Object.entries(urls).map(([transport, url]) => ({ url, transport })),
    protocolVersion: '0.3.0',
    version: '0.3.14',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'errors', name: 'Errors', description: 'fails on demand', tags: ['test'] }],
  };
  const handler = new V03Handler(card as never, new V03TaskStore(), new V03DoneExecutor() as never);
  const send = handler.sendMessage.bind(handler);
  handler.sendMessage = async (params, context) => {
    const text = params.message.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    const code = V03_CODES[wanted(text) as A2AErrorName];
    if (code !== undefined) throw new V03Error(code, `${wanted(text)} from the test peer`);
    return send(params, context);
  };
  app.use('/.well-known/agent-card.json', v03CardHandler({ agentCardProvider: handler }));
  app.use('/rpc', v03JsonRpc({ requestHandler: handler, userBuilder: V03UserBuilder.noAuthentication }));
  app.use('/rest', v03Rest({ requestHandler: handler, userBuilder: V03UserBuilder.noAuthentication }));
  rpc.server.addService(V03Service, v03GrpcService({ requestHandler: handler, userBuilder: V03UserBuilder.noAuthentication }));
  return { baseUrl, grpcTarget: rpc.target, close: () => stop(server, rpc.server) };
}

/** A fresh id no agent can know. */
export const unknownTaskId = () => `no-such-task-${randomUUID()}`;
