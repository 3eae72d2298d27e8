/**
 * What every test peer built on express does the same way, written once: listen on 127.0.0.1 at a port the OS picks,
 * and close without waiting for clients' keep-alive connections; and mount an @a2a-js/sdk 1.x request handler the
 * usual way (its card at the well-known path, JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest, no authentication).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface LoopbackApp {
  baseUrl: string;
  server: Server;
  /** Drops open connections, then stops listening. */
  close(): Promise<void>;
}

/** Starts `app` on 127.0.0.1 at a random port. */
export async function listenLoopback(app: Express): Promise<LoopbackApp> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The two HTTP interfaces `mountSdkAgent` serves, as a v1.0 card lists them (HTTP+JSON first). */
export const sdkInterfaces = (baseUrl: string) => [
  { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
];

/** Serves `requestHandler` on `app`: JSON-RPC and HTTP+JSON, and its card at the well-known path unless `card: false`. */
export function mountSdkAgent(app: Express, requestHandler: A2ARequestHandler, options: { card?: boolean } = {}): void {
  if (options.card !== false) app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
}
