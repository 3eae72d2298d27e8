/**
 * An SDK agent (v1.0: HTTP+JSON, JSON-RPC and optionally gRPC, on 127.0.0.1 random ports) whose Agent Card is signed
 * with the SDK's generateAgentCardSignature (ES256, a throw-away key) and whose JWKS is served at /jwks.json. Its card
 * advertises an extended card (GetExtendedAgentCard), which every binding serves only with `Bearer <token>`: HTTP
 * answers 401 without it, gRPC UNAUTHENTICATED.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { startGuardedGrpc } from './guarded-grpc.js';
import { exportJWK, generateKeyPair } from 'jose';
import { AGENT_CARD_PATH, AgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { EchoExecutor } from './echo-executor.js';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/** `signed`: a valid signature; `tampered`: signed, then the description changed; `unsigned`: no signature. */
export type CardSigning = 'signed' | 'tampered' | 'unsigned';

export interface SignedAgentOptions {
  signing?: CardSigning;
  /** The bearer token GetExtendedAgentCard (and every A2A call) needs. */
  token: string;
  grpc?: boolean;
  /** Put the JWKS URL in the signature's jku (default true). */
  jku?: boolean;
  kid?: string;
  /** The jku of the real signature (default: this agent's /jwks.json), e.g. a JWKS served on another port. */
  jkuUrl?: string;
  /**
   * That many extra signature entries before the real one (a hostile card), each naming a key the JWKS lacks and its
   * own jku on this agent's origin (/jwks/<n>.json, which serves the same JWKS); counted in `requests`.
   */
  extraSignatures?: number;
}

export interface SignedAgent {
  baseUrl: string;
  jwksUrl: string;
  /** The public JWKS (as served). */
  jwks: { keys: unknown[] };
  grpcTarget: string | null;
  requests: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

export async function startSignedAgent(options: SignedAgentOptions): Promise<SignedAgent> {
  const kid = options.kid ?? 'card-key-1';
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] };
  const app = express();
  const requests: SignedAgent['requests'] = [];
  app.use((req, _res, next) => {
    requests.push({ path: req.path, authorization: req.headers.authorization });
    next();
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const jwksUrl = `${baseUrl}/jwks.json`;
  const grpcServer = options.grpc ? await startGuardedGrpc((authorization) => authorization === `Bearer ${options.token}`) : null;

  const cardJson = (extended: boolean) => ({
    name: extended ? 'signed agent (extended)' : 'signed agent',
    description: extended ? 'What authenticated clients see.' : 'A signed SDK agent.',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ...(grpcServer ? [{ url: grpcServer.target, protocolBinding: 'GRPC', protocolVersion: '1.0' }] : []),
    ],
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] },
      ...(extended ? [{ id: 'private-reports', name: 'Private reports', description: 'Only for authenticated clients', tags: ['internal'] }] : []),
    ],
  });
  const sign = generateAgentCardSignature(privateKey, { alg: 'ES256', kid, typ: 'JOSE', ...(options.jku === false ? {} : { jku: options.jkuUrl ?? jwksUrl }) });
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const extraSignatures = Array.from({ length: options.extraSignatures ?? 0 }, (_, n) => ({
    protected: b64({ alg: 'ES256', kid: `decoy-${n}`, typ: 'JOSE', jku: `${baseUrl}/jwks/${n}.json` }),
    signature: Buffer.alloc(64, n % 256).toString('base64url'),
  }));
  const signing = options.signing ?? 'signed';
  const publicCard = AgentCard.fromJSON(cardJson(false));
  const extendedCard = AgentCard.fromJSON(cardJson(true));
  const requestHandler = new DefaultRequestHandler(
    publicCard,
    new InMemoryTaskStore(),
    new EchoExecutor(),
    undefined,
    undefined,
    undefined,
    async () => extendedCard,
    sign,
  );

  app.get('/jwks.json', (_req, res) => void res.json(jwks));
  app.get('/jwks/:n.json', (_req, res) => void res.json(jwks));
  app.get(`/${AGENT_CARD_PATH}`, async (_req, res) => {
    const json = signing === 'unsigned' ? AgentCard.toJSON(publicCard) : AgentCard.toJSON(await requestHandler.getAgentCard());
    if (signing === 'tampered') (json as { description: string }).description = 'A card changed after it was signed.';
    if (extraSignatures.length)
      (json as { signatures?: unknown[] }).signatures = [...extraSignatures, ...((json as { signatures?: unknown[] }).signatures ?? [])];
    res.json(json);
  });
  const requireToken: express.RequestHandler = (req, res, next) => {
    if (req.headers.authorization === `Bearer ${options.token}`) return next();
    res.status(401).set('WWW-Authenticate', 'Bearer realm="signed-agent"').json({ error: 'unauthorized' });
  };
  app.use('/a2a/jsonrpc', requireToken, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', requireToken, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  await grpcServer?.serve(requestHandler);

  return {
    baseUrl,
    jwksUrl,
    jwks,
    grpcTarget: grpcServer?.target ?? null,
    requests,
    close: async () => {
      grpcServer?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
