/**
 * Peers for the auth-flow tests, all on 127.0.0.1 random ports:
 *   - startGuardedAgent: an A2A v1.0 SDK agent (JSON-RPC and HTTP+JSON) behind real express middleware that lets a
 *     request through only when `accept(req)` says so (card route included, so the card fetch is authenticated too);
 *     else 401 (with `grpc`, also a gRPC interface answering UNAUTHENTICATED). It echoes what it is sent.
 *   - startTokenServer: a small OAuth2 authorization server: token endpoint (client credentials, refresh, device
 *     code grant), device authorization endpoint, an OpenID Connect discovery document, and a check of the opaque
 *     access tokens it issued (what the agent's middleware asks). It counts every call.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { startGuardedGrpc } from './guarded-grpc.js';
import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { EchoExecutor } from './echo-executor.js';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const listen = (app: express.Express) =>
  new Promise<{ server: Server; url: string }>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve({ server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` }));
  });
const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export interface GuardedAgent {
  baseUrl: string;
  /** With `grpc: true`: the gRPC interface (host:port), behind the same check of the bearer token. */
  grpcTarget: string | null;
  /** Every request the guard saw: path, query, headers; and whether it let it through. */
  requests: Array<{ path: string; query: Record<string, unknown>; headers: Record<string, string | string[] | undefined>; accepted: boolean }>;
  close(): Promise<void>;
}

export async function startGuardedAgent(
  accept: (req: express.Request) => boolean,
  cardExtra: Record<string, unknown> = {},
  options: { grpc?: boolean } = {},
): Promise<GuardedAgent> {
  const app = express();
  const { server, url } = await listen(app);
  const requests: GuardedAgent['requests'] = [];
  // A gRPC call is judged like an HTTP request carrying the same Authorization header.
  const grpc = options.grpc
    ? await startGuardedGrpc((authorization) => {
        const headers = { authorization };
        const accepted = accept({ headers, query: {} } as unknown as express.Request);
        requests.push({ path: 'grpc', query: {}, headers, accepted });
        return accepted;
      })
    : null;
  const card = AgentCard.fromJSON({
    name: 'guarded agent',
    description: 'an SDK agent behind auth middleware',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ...(grpc ? [{ url: grpc.target, protocolBinding: 'GRPC', protocolVersion: '1.0' }] : []),
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['test'] }],
    ...cardExtra,
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  await grpc?.serve(handler);
  const guard: express.RequestHandler = (req, res, next) => {
    const accepted = accept(req);
    requests.push({ path: req.originalUrl.split('?')[0]!, query: { ...req.query }, headers: { ...req.headers }, accepted });
    if (accepted) return next();
    res.set('WWW-Authenticate', 'Bearer realm="a2a"');
    res.status(401).type('text/plain').send('Unauthorized');
  };
  app.use(guard);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl: url,
    grpcTarget: grpc?.target ?? null,
    requests,
    close: async () => {
      grpc?.stop();
      await closeServer(server);
    },
  };
}

export interface TokenServerOptions {
  clientId: string;
  clientSecret: string | null;
  /** Lifetime of issued access tokens, in seconds. */
  expiresIn?: number;
  /** Issue a refresh token with each access token. */
  refreshTokens?: boolean;
  /** Device code: how many polls answer authorization_pending before the outcome. */
  pendingPolls?: number;
  /** Device code: the outcome after the pending polls; `manual` stays pending until `approve()`. */
  deviceOutcome?: 'approve' | 'deny' | 'expire' | 'manual';
  /** Device code: the poll interval the server asks for, in seconds. */
  interval?: number;
  /** The token_endpoint the discovery document names (default: this server's /token). */
  discoveryTokenEndpoint?: string;
}

export interface TokenServer {
  url: string;
  /** Calls per endpoint and grant: `token:client_credentials`, `token:refresh_token`, `token:device_code`, `device`, `discovery`. */
  calls: Record<string, number>;
  /** Authorization headers and bodies the endpoints received (what the client sent). */
  received: Array<{ path: string; authorization: string | undefined; body: Record<string, string> }>;
  /** Every access token issued, newest last. */
  issued: string[];
  isValid(token: string): boolean;
  /** Makes every issued token invalid now (the agent answers 401 until a new one comes). */
  revokeAll(): void;
  /** Approves the pending device-code logins (deviceOutcome `manual`). */
  approve(): void;
  options: TokenServerOptions;
  close(): Promise<void>;
}

export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  const { server, url } = await listen(app);
  const calls: Record<string, number> = {};
  const count = (key: string) => void (calls[key] = (calls[key] ?? 0) + 1);
  const valid = new Map<string, number>();
  const refresh = new Set<string>();
  const issued: string[] = [];
  const received: TokenServer['received'] = [];
  const devices = new Map<string, { polls: number }>();
  let approved = false;
  const issue = (res: express.Response) => {
    const token = `at-${randomBytes(12).toString('hex')}`;
    const expiresIn = options.expiresIn ?? 3600;
    valid.set(token, Date.now() + expiresIn * 1000);
    issued.push(token);
    const body: Record<string, unknown> = { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: 'a2a.read' };
    if (options.refreshTokens) {
      const rt = `rt-${randomBytes(12).toString('hex')}`;
      refresh.add(rt);
      body.refresh_token = rt;
    }
    res.json(body);
  };
  const clientOk = (req: express.Request) => {
    const auth = req.headers.authorization;
    if (options.clientSecret === null) return req.body.client_id === options.clientId;
    return auth === `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
  };
  app.use((req, _res, next) => {
    received.push({ path: req.path, authorization: req.headers.authorization, body: { ...(req.body ?? {}) } });
    next();
  });
  app.get('/.well-known/openid-configuration', (_req, res) => {
    count('discovery');
    res.json({ issuer: url, token_endpoint: options.discoveryTokenEndpoint ?? `${url}/token`, device_authorization_endpoint: `${url}/device` });
  });
  app.post('/device', (req, res) => {
    count('device');
    if (!clientOk(req)) return void res.status(401).json({ error: 'invalid_client' });
    const code = `dc-${randomBytes(8).toString('hex')}`;
    devices.set(code, { polls: 0 });
    res.json({ device_code: code, user_code: 'WDJB-MJHT', verification_uri: `${url}/activate`, expires_in: 300, interval: options.interval ?? 0.02 });
  });
  app.post('/token', (req, res) => {
    const grant = String(req.body.grant_type);
    count(`token:${grant.replace('urn:ietf:params:oauth:grant-type:', '')}`);
    if (!clientOk(req)) return void res.status(401).json({ error: 'invalid_client', error_description: 'client authentication failed' });
    if (grant === 'client_credentials') return issue(res);
    if (grant === 'refresh_token') {
      if (!refresh.delete(String(req.body.refresh_token))) return void res.status(400).json({ error: 'invalid_grant' });
      return issue(res);
    }
    if (grant === 'urn:ietf:params:oauth:grant-type:device_code') {
      const device = devices.get(String(req.body.device_code));
      if (!device) return void res.status(400).json({ error: 'invalid_grant' });
      if (device.polls++ < (options.pendingPolls ?? 2)) return void res.status(400).json({ error: 'authorization_pending' });
      const outcome = options.deviceOutcome ?? 'approve';
      if (outcome === 'manual' && !approved) return void res.status(400).json({ error: 'authorization_pending' });
      if (outcome === 'deny') return void res.status(400).json({ error: 'access_denied' });
      if (outcome === 'expire') return void res.status(400).json({ error: 'expired_token' });
      devices.delete(String(req.body.device_code));
      return issue(res);
    }
    res.status(400).json({ error: 'unsupported_grant_type' });
  });
  return {
    url,
    calls,
    received,
    issued,
    options,
    isValid: (token) => (valid.get(token) ?? 0) > Date.now(),
    revokeAll: () => valid.clear(),
    approve: () => void (approved = true),
    close: () => closeServer(server),
  };
}
