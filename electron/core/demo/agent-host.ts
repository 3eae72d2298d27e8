/**
 * Hosts an A2A agent on the official SDK server: the Agent Card at /.well-known/agent-card.json, JSON-RPC at
 * /a2a/jsonrpc, HTTP+JSON at /a2a/rest and, when asked for, gRPC on a port of its own. The embedded demo agent and
 * `missive mock serve` / `mock record` are all served by it; each brings its own card and AgentExecutor.
 *
 * Versions: 1.0 always answers; with 0.3 the SDK's v0.3 compatibility layer (`legacyCompat`) answers v0.3 clients
 * too, and the card lists each HTTP URL a second time with protocolVersion 0.3 (JSON-RPC first, the binding every
 * v0.3 client speaks) after every 1.0 interface, so v1.0 clients keep choosing 1.0. Push notifications go through the
 * SDK's push store and its legacy-aware sender (a v0.3 push config gets v0.3 bodies).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request, type RequestHandler } from 'express';
import { AGENT_CARD_PATH, AgentCard, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type PushNotificationSender,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { createLegacyAwarePushNotificationSender } from '@a2a-js/sdk/compat/v0_3/server';

export type HostBinding = 'http+json' | 'json-rpc' | 'grpc';
export type HostVersion = '1.0' | '0.3';

export interface AgentHostOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) for a free port. */
  port?: number;
  /** Default HTTP+JSON and JSON-RPC; gRPC (on a port of its own) only when listed. */
  bindings?: readonly HostBinding[];
  /** Default both: 1.0, and 0.3 through the SDK's legacyCompat. */
  versions?: readonly HostVersion[];
  /** Accept push configs and deliver callbacks with the SDK's legacy-aware push sender. */
  pushNotifications?: boolean;
  /** Runs before each SendMessage / SendStreamingMessage reaches the executor: what it throws (an A2AError) is the answer. */
  beforeSend?: (params: SendMessageRequest, operation: 'send' | 'stream') => void | Promise<void>;
  /** Sees every HTTP request (method, path, headers) before it is handled. */
  onRequest?: (req: Request) => void;
  /**
   * A2A requests (not the card) must carry `Authorization: Bearer <bearer>`; others get 401 before the SDK sees them.
   * HTTP bindings only: a host with a bearer serves no gRPC.
   */
  bearer?: string;
}

export interface AgentHost {
  baseUrl: string;
  jsonRpcUrl: string;
  restUrl: string;
  /** `host:port` of the gRPC service, when gRPC is served. */
  grpcTarget: string | null;
  /** The card as served (A2A 1.0 JSON). */
  card: Record<string, unknown>;
  close(): Promise<void>;
  /** Stops listening and drops every HTTP connection, keeping tasks and running work. */
  pause(): Promise<void>;
  /** Listens again on the same port, with the same tasks. */
  resume(): Promise<void>;
}

/** Builds the card's JSON once the URLs are known. */
export type CardBuilder = (urls: { baseUrl: string; grpcTarget: string | null }) => Record<string, unknown>;

/**
 * The card's supportedInterfaces for what is served: 1.0 first (HTTP+JSON, JSON-RPC, gRPC), then 0.3 (JSON-RPC, then
 * HTTP+JSON; the SDK serves no v0.3 gRPC).
 */
export function hostInterfaces(
  baseUrl: string,
  grpcTarget: string | null,
  bindings: readonly HostBinding[] = ['http+json', 'json-rpc', 'grpc'],
  versions: readonly HostVersion[] = ['1.0', '0.3'],
): Array<{ url: string; protocolBinding: string; protocolVersion: string }> {
  const has = (b: HostBinding) => bindings.includes(b);
  const out: Array<{ url: string; protocolBinding: string; protocolVersion: string }> = [];
  if (versions.includes('1.0')) {
    if (has('http+json')) out.push({ url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
    if (has('json-rpc')) out.push({ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    if (has('grpc') && grpcTarget) out.push({ url: grpcTarget, protocolBinding: 'GRPC', protocolVersion: '1.0' });
  }
  if (versions.includes('0.3')) {
    if (has('json-rpc')) out.push({ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
    if (has('http+json')) out.push({ url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' });
  }
  return out;
}

/** The SDK's request handler, with `beforeSend` run ahead of both send operations. */
class CheckedRequestHandler extends DefaultRequestHandler {
  beforeSend?: AgentHostOptions['beforeSend'];
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    await this.beforeSend?.(params, 'send');
    return super.sendMessage(params, context);
  }
  override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    await this.beforeSend?.(params, 'stream');
    yield* super.sendMessageStream(params, context);
  }
}

/** 401 (with `WWW-Authenticate: Bearer`) unless the request carries the bearer; compared by digest, in constant time. */
function bearerGuard(bearer: string): RequestHandler {
  const expected = createHash('sha256').update(`Bearer ${bearer}`).digest();
  return (req, res, next) => {
    const given = req.headers.authorization ?? '';
    if (timingSafeEqual(createHash('sha256').update(given.trim()).digest(), expected)) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer')
      .json({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'this agent needs its bearer token' } });
  };
}

export async function startAgentHost(buildCard: CardBuilder, executor: AgentExecutor, options: AgentHostOptions = {}): Promise<AgentHost> {
  const host = options.host ?? '127.0.0.1';
  const bindings = options.bindings ?? ['http+json', 'json-rpc'];
  const versions = options.versions ?? ['1.0', '0.3'];
  const app = express();
  if (options.onRequest) {
    const onRequest = options.onRequest;
    app.use((req, _res, next) => {
      onRequest(req);
      next();
    });
  }
  if (options.bearer) {
    if (bindings.includes('grpc')) throw new Error('an agent host with a bearer serves HTTP bindings only');
    app.use('/a2a', bearerGuard(options.bearer));
  }
  const listen = (on: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = app.listen(on, host, () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
  let server: Server | undefined = await listen(options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  const stopListening = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      s.closeAllConnections();
      s.close(() => resolve());
    });
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${port}`;
  let grpcServer: Awaited<ReturnType<typeof startGrpcServer>> | null = null;
  try {
    grpcServer = bindings.includes('grpc') ? await startGrpcServer(host) : null;
  } catch (error) {
    await stopListening();
    throw error;
  }
  const card = AgentCard.fromJSON(buildCard({ baseUrl, grpcTarget: grpcServer?.target ?? null }));
  const pushStore = options.pushNotifications ? new InMemoryPushNotificationStore() : undefined;
  // Callbacks in the shape of the version the push config was set with (a v0.3 client gets v0.3 bodies).
  const pushSender: PushNotificationSender | undefined = pushStore ? createLegacyAwarePushNotificationSender(pushStore, { timeout: 2000 }) : undefined;
  const requestHandler = new CheckedRequestHandler(card, new InMemoryTaskStore(), executor, undefined, pushStore, pushSender);
  requestHandler.beforeSend = options.beforeSend;
  const legacyCompat = { enabled: versions.includes('0.3') };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  if (bindings.includes('json-rpc')) app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  if (bindings.includes('http+json')) app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  await grpcServer?.serve(requestHandler);
  return {
    baseUrl,
    jsonRpcUrl: `${baseUrl}/a2a/jsonrpc`,
    restUrl: `${baseUrl}/a2a/rest`,
    grpcTarget: grpcServer?.target ?? null,
    card: AgentCard.toJSON(card) as Record<string, unknown>,
    close: async () => {
      grpcServer?.stop();
      await stopListening();
    },
    pause: stopListening,
    async resume() {
      server ??= await listen(port);
    },
  };
}

/** The SDK's gRPC service on its own port; @grpc/grpc-js is loaded only for hosts that serve it. */
async function startGrpcServer(host: string) {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder: GrpcUserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const server = new grpc.Server();
  const bindHost = host.includes(':') ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${bindHost}:0`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    target: `${bindHost}:${port}`,
    serve: async (requestHandler: DefaultRequestHandler) =>
      void server.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication })),
    stop: () => server.forceShutdown(),
  };
}
