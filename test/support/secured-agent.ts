/**
 * An A2A v1.0 agent on the official SDK server (JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest) whose card declares
 * the security schemes given, behind a real bearer middleware on its A2A routes (the card stays public): a request
 * without `Authorization: Bearer <token>` gets 401 with a `WWW-Authenticate` challenge; with `forbid`, every request
 * gets 403. It echoes what it is sent, as a Message (unary) or a stream of that one Message.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard, Message } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { EchoExecutor } from './echo-executor.js';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface SecuredAgentOptions {
  /** v1.0 JSON `securitySchemes` of the card. */
  securitySchemes?: Record<string, unknown>;
  /** v1.0 JSON `securityRequirements` of the card. */
  securityRequirements?: unknown[];
  /** The bearer token the middleware accepts; unset, no check. */
  token?: string;
  /** The `WWW-Authenticate` header of a 401 (default `Bearer realm="a2a"`); null sends none. */
  challenge?: string | null;
  /** Answer every A2A request 403 Forbidden. */
  forbid?: boolean;
}

export interface SecuredAgent {
  baseUrl: string;
  /** The A2A requests (behind the guard), with their Authorization header. */
  requests: Array<{ path: string; authorization: string | undefined }>;
  /** Every request that reached the server, the card's included, with its Authorization header. */
  allRequests: Array<{ path: string; authorization: string | undefined }>;
  /** Every message that reached the executor, as A2A JSON (its parts as sent). */
  messages: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startSecuredAgent(options: SecuredAgentOptions = {}): Promise<SecuredAgent> {
  const app = express();
  const requests: SecuredAgent['requests'] = [];
  const allRequests: SecuredAgent['allRequests'] = [];
  const messages: SecuredAgent['messages'] = [];
  app.use((req, _res, next) => {
    allRequests.push({ path: req.path, authorization: req.headers.authorization });
    next();
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: 'secured agent',
    description: 'an SDK agent behind auth middleware',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['test'] }],
    securitySchemes: options.securitySchemes ?? {},
    securityRequirements: options.securityRequirements ?? [],
  });
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new EchoExecutor('echo: ', (message) => messages.push(Message.toJSON(message) as Record<string, unknown>)),
  );
  const guard: express.RequestHandler = (req, res, next) => {
    requests.push({ path: req.path, authorization: req.headers.authorization });
    if (options.forbid) return void res.status(403).json({ error: 'forbidden', message: 'this caller may not use this agent' });
    if (!options.token || req.headers.authorization === `Bearer ${options.token}`) return next();
    const challenge = options.challenge === undefined ? 'Bearer realm="a2a"' : options.challenge;
    if (challenge) res.set('WWW-Authenticate', challenge);
    res.status(401).type('text/plain').send('Unauthorized');
  };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', guard, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', guard, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    requests,
    allRequests,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
