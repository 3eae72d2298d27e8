/**
 * An agent on the @a2a-js/sdk 1.x server whose Agent Card lists interfaces as its operator wrote them: relative URLs
 * (`/a2a/rest`), a path where a gRPC `host:port` belongs, or absolute ones, in any order. JSON-RPC is served at
 * /a2a/jsonrpc and HTTP+JSON at /a2a/rest; the card at /.well-known/agent-card.json, or under `cardPath`. missive's
 * code is not in it.
 */
import express from 'express';
import { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { listenLoopback, mountSdkAgent } from './loopback-app.js';
import { EchoExecutor } from './echo-executor.js';

export interface RelativeUrlPeer {
  baseUrl: string;
  cardUrl: string;
  /** The path of every request it received. */
  paths: string[];
  close(): Promise<void>;
}

/** `interfaces` gets the peer's base URL and returns the card's `supportedInterfaces`, written as the test wants them. */
export async function startRelativeUrlPeer(
  interfaces: (baseUrl: string) => Array<{ url: string; protocolBinding: string; protocolVersion?: string }>,
  options: { cardPath?: string } = {},
): Promise<RelativeUrlPeer> {
  const app = express();
  const paths: string[] = [];
  app.use((req, _res, next) => {
    paths.push(req.path);
    next();
  });
  const { baseUrl, close } = await listenLoopback(app);
  const cardPath = options.cardPath ?? '/.well-known/agent-card.json';
  const cardJson = {
    name: 'relative-url peer',
    description: 'an agent whose card lists relative interface URLs',
    version: '1.0.0',
    supportedInterfaces: interfaces(baseUrl),
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
  };
  // The SDK's handlers check each request's binding and version against the card, not its URLs.
  const requestHandler = new DefaultRequestHandler(AgentCard.fromJSON(cardJson), new InMemoryTaskStore(), new EchoExecutor('relative: '));
  app.get(cardPath, (_req, res) => void res.json(cardJson));
  // The card is served as written above (the SDK's card handler would rewrite it), so the handler's is not mounted.
  mountSdkAgent(app, requestHandler, { card: false });
  return { baseUrl, cardUrl: `${baseUrl}${cardPath}`, paths, close };
}
