/**
 * Mutual TLS test fixtures: a throw-away CA, a server certificate for 127.0.0.1 (SAN IP) and client certificates,
 * made with /usr/bin/openssl in a temp folder; and an SDK echo agent served by node:https that demands a client
 * certificate signed by that CA (`requestCert`, `rejectUnauthorized`), and the same agent over gRPC with TLS that
 * checks client certificates too (grpc-js `ServerCredentials.createSsl(ca, …, true)`).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { EchoExecutor } from './echo-executor.js';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface TlsFiles {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The client key encrypted (AES-256) with `passphrase`. */
  clientKeyEncrypted: string;
  passphrase: string;
  /** A key that belongs to no certificate here. */
  strayKey: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/** Generates the CA, the server certificate (CN and SAN 127.0.0.1) and a client certificate (CN missive-test-client). */
export function makeTlsFiles(): TlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'missive-mtls-'));
  const passphrase = `pp-${randomUUID()}`;
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=missive test CA']);
  const leaf = (name: string, subject: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ]);
  };
  leaf('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', '/CN=missive-test-client/O=missive tests', 'extendedKeyUsage=clientAuth\n');
  openssl(dir, ['pkey', '-in', 'client.key', '-aes256', '-passout', `pass:${passphrase}`, '-out', 'client-encrypted.key']);
  openssl(dir, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'stray.key']);
  const at = (f: string) => join(dir, f);
  return {
    dir,
    caCert: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    clientKeyEncrypted: at('client-encrypted.key'),
    passphrase,
    strayKey: at('stray.key'),
  };
}

export interface MtlsAgent {
  baseUrl: string;
  /** The gRPC interface (TLS, on another port: another origin). */
  grpcUrl: string;
  /** The subject CN of the client certificate of each request that reached the app (TLS refused the others). */
  clients: string[];
  close(): Promise<void>;
}

/** An SDK echo agent (HTTP+JSON and JSON-RPC, streaming) over HTTPS that requires a client certificate from the CA. */
export async function startMtlsAgent(files: TlsFiles): Promise<MtlsAgent> {
  const app = express();
  const clients: string[] = [];
  app.use((req, _res, next) => {
    clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ''));
    next();
  });
  const server: Server = createServer(
    { key: readFileSync(files.serverKey), cert: readFileSync(files.serverCert), ca: readFileSync(files.caCert), requestCert: true, rejectUnauthorized: true },
    app,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder: GrpcUserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const grpcServer = new grpc.Server();
  const credentials = grpc.ServerCredentials.createSsl(
    readFileSync(files.caCert),
    [{ private_key: readFileSync(files.serverKey), cert_chain: readFileSync(files.serverCert) }],
    true,
  );
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', credentials, (error, port) => (error ? reject(error) : resolve(port))),
  );
  const card = AgentCard.fromJSON({
    name: 'mTLS agent',
    description: 'An SDK echo agent behind mutual TLS.',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `grpcs://127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echo', tags: ['demo'] }],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor('mtls echo: '));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  return {
    baseUrl,
    grpcUrl: `grpcs://127.0.0.1:${grpcPort}`,
    clients,
    close: () =>
      new Promise<void>((resolve) => {
        grpcServer.forceShutdown();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
