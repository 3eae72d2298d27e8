/**
 * A2A peers of older generations, built on the SDK lines that real agents run, installed side by side under npm
 * aliases: `a2a-sdk-v03` (@a2a-js/sdk 0.3.x: JSON-RPC, HTTP+JSON and gRPC, card at agent-card.json with url +
 * preferredTransport + additionalInterfaces) and `a2a-sdk-v02` (@a2a-js/sdk 0.2.x: JSON-RPC only, card at
 * /.well-known/agent.json with a url and no version). missive's code is not in them: they are what it must reach.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import { DefaultPushNotificationSender, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from 'a2a-sdk-v03/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-v03/server/express';
import { A2AService, grpcService } from 'a2a-sdk-v03/server/grpc';
import { A2AExpressApp, DefaultRequestHandler as V02RequestHandler, InMemoryTaskStore as V02TaskStore } from 'a2a-sdk-v02/server';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

/** What a legacy peer's executor needs: the v0.2/v0.3 event bus shape (kind-discriminated events). */
interface LegacyBus {
  publish(event: Record<string, unknown>): void;
  finished(): void;
}
interface LegacyContext {
  taskId: string;
  contextId: string;
  userMessage: { parts: Array<{ kind?: string; text?: string }> };
}

/**
 * One executor for both lines. The first word of the message picks the behaviour:
 * `echo …` → a direct message; `slow …` → a working task that completes after `slowMs` unless cancelled;
 * anything else → a task that works, streams an artifact and completes.
 */
class LegacyExecutor {
  readonly #cancelled = new Set<string>();
  constructor(private readonly slowMs: number) {}

  async execute(ctx: LegacyContext, bus: LegacyBus): Promise<void> {
    const text = ctx.userMessage.parts.map((p) => p.text ?? '').join('');
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const message = (value: string) => ({ kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text: value }], ...ids });
    if (text.startsWith('echo')) {
      bus.publish({ kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text: `echo: ${text}` }], contextId: ctx.contextId });
      return bus.finished();
    }
    bus.publish({
      kind: 'task',
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: 'submitted', timestamp: new Date().toISOString() },
      history: [ctx.userMessage],
    });
    bus.publish({ kind: 'status-update', ...ids, status: { state: 'working', timestamp: new Date().toISOString() }, final: false });
    if (text.startsWith('slow')) {
      await new Promise((r) => setTimeout(r, this.slowMs));
      if (this.#cancelled.delete(ctx.taskId)) return bus.finished();
    }
    bus.publish({
      kind: 'artifact-update',
      ...ids,
      artifact: { artifactId: 'result', name: 'result.txt', parts: [{ kind: 'text', text: `result for: ${text}` }] },
      append: false,
      lastChunk: true,
    });
    bus.publish({
      kind: 'status-update',
      ...ids,
      status: { state: 'completed', message: message(`done: ${text}`), timestamp: new Date().toISOString() },
      final: true,
    });
    bus.finished();
  }

  async cancelTask(taskId: string, bus: LegacyBus): Promise<void> {
    this.#cancelled.add(taskId);
    bus.publish({ kind: 'status-update', taskId, contextId: '', status: { state: 'canceled', timestamp: new Date().toISOString() }, final: true });
    bus.finished();
  }
}

export interface LegacyPeer {
  baseUrl: string;
  jsonRpcUrl: string;
  restUrl?: string;
  grpcTarget?: string;
  card: Record<string, unknown>;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

async function listen(app: express.Express): Promise<{ server: Server; baseUrl: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function recorder(requests: RecordedRequest[]): express.RequestHandler {
  return (req, _res, next) => {
    requests.push({ method: req.method, path: req.path, headers: { ...req.headers } });
    next();
  };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export interface V03PeerOptions {
  /** Which binding the card names as preferredTransport at `url` (the others go to additionalInterfaces). */
  preferred?: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
  slowMs?: number;
  streaming?: boolean;
  pushNotifications?: boolean;
  /** Require `Authorization: Bearer <token>` on every A2A route (not on the card). */
  bearer?: string;
  /** Extra card fields (e.g. securitySchemes and security). */
  cardExtra?: Record<string, unknown>;
  /** With `bearer`: the WWW-Authenticate challenge of the refusal, and its status (default 401). */
  challenge?: string;
  refusal?: 401 | 403;
  /** Served by agent/getAuthenticatedExtendedCard (the card should set supportsAuthenticatedExtendedCard). */
  extendedCard?: Record<string, unknown>;
}

/** An agent on @a2a-js/sdk 0.3: JSON-RPC at /rpc, HTTP+JSON at /rest, gRPC on its own port, push via the 0.3 sender. */
export async function startV03Peer(options: V03PeerOptions = {}): Promise<LegacyPeer> {
  const app = express();
  const requests: RecordedRequest[] = [];
  app.use(recorder(requests));
  const { server, baseUrl } = await listen(app);
  const grpcServer = new grpc.Server();
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
  const urls = { JSONRPC: `${baseUrl}/rpc`, 'HTTP+JSON': `${baseUrl}/rest`, GRPC: `127.0.0.1:${grpcPort}` } as const;
  const preferred = options.preferred ?? 'JSONRPC';
  const card = {
    name: 'v03-peer',
    description: 'an agent on @a2a-js/sdk 0.3',
    url: urls[preferred],
    preferredTransport: preferred,
    additionalInterfaces: (Object.keys(urls) as Array<keyof typeof urls>).map((transport) => ({ url: urls[transport], transport })),
    protocolVersion: '0.3.0',
    version: '0.3.14',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: options.pushNotifications ?? true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'work', name: 'Worker', description: 'does work', tags: ['legacy'] }],
    ...options.cardExtra,
  };
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card as never,
    new InMemoryTaskStore(),
    new LegacyExecutor(options.slowMs ?? 2000) as never,
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore, { timeout: 2000 }),
    options.extendedCard ? async () => ({ ...card, ...options.extendedCard }) as never : undefined,
  );
  const auth: express.RequestHandler = (req, res, next) => {
    if (!options.bearer || req.headers.authorization === `Bearer ${options.bearer}`) return next();
    if (options.challenge) res.set('WWW-Authenticate', options.challenge);
    res.status(options.refusal ?? 401).json({ code: -32001, message: 'unauthorised' });
  };
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', auth, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/rest', auth, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    jsonRpcUrl: urls.JSONRPC,
    restUrl: urls['HTTP+JSON'],
    grpcTarget: urls.GRPC,
    card,
    requests,
    close: async () => {
      grpcServer.forceShutdown();
      await close(server);
    },
  };
}

/** An agent on @a2a-js/sdk 0.2: JSON-RPC at the root, card at /.well-known/agent.json with a url and no protocol version. */
export async function startV02Peer(options: { slowMs?: number } = {}): Promise<LegacyPeer> {
  const app = express();
  const requests: RecordedRequest[] = [];
  app.use(recorder(requests));
  const { server, baseUrl } = await listen(app);
  const card = {
    name: 'v02-peer',
    description: 'an agent on @a2a-js/sdk 0.2',
    url: `${baseUrl}/`,
    version: '0.2.5',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [{ id: 'work', name: 'Worker', description: 'does work', tags: [] }],
  };
  new A2AExpressApp(new V02RequestHandler(card as never, new V02TaskStore(), new LegacyExecutor(options.slowMs ?? 2000) as never)).setupRoutes(app as never);
  return { baseUrl, jsonRpcUrl: `${baseUrl}/`, card, requests, close: () => close(server) };
}
