/**
 * One URL, two A2A versions: an agent on the @a2a-js/sdk 1.x server with its v0.3 compatibility layer switched on.
 * The card handler answers a v0.3-shaped card to `A2A-Version: 0.3` (or no header) and the v1.0 card, listing the
 * JSON-RPC URL once per version, to `A2A-Version: 1.0`; the JSON-RPC handler serves `message/send` (0.3) and
 * `SendMessage` (1.0) on that one URL, chosen by the same header. missive's code is not in it.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { EchoExecutor } from './echo-executor.js';

export interface DualVersionPeer {
  baseUrl: string;
  rpcUrl: string;
  /** Every request: path, JSON-RPC method (when any) and the A2A-Version header it carried. */
  requests: Array<{ path: string; method: string | null; version: string | null }>;
  close(): Promise<void>;
}

export async function startDualVersionPeer(): Promise<DualVersionPeer> {
  const app = express();
  const requests: DualVersionPeer['requests'] = [];
  app.use(express.json());
  app.use((req, _res, next) => {
    const version = req.headers['a2a-version'];
    requests.push({
      path: req.path,
      method: typeof req.body?.method === 'string' ? req.body.method : null,
      version: typeof version === 'string' ? version : null,
    });
    next();
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rpcUrl = `${baseUrl}/a2a/jsonrpc`;
  const card = AgentCard.fromJSON({
    name: 'dual-version peer',
    description: 'A2A 1.0 and 0.3 on one URL',
    version: '1.0.0',
    supportedInterfaces: [
      { url: rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor('dual: '));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  return {
    baseUrl,
    rpcUrl,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
