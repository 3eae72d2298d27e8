/**
 * gRPC through the SDK's gRPC client transports (`@a2a-js/sdk/client/grpc` for 1.0, its v0.3 compat twin for 0.3),
 * loaded only when an agent is actually spoken to over gRPC: @grpc/grpc-js is not small. Interface URLs may be
 * `grpc://` / `http://` (plaintext), `grpcs://` / `https://` (TLS), or a bare `host:port` target (plaintext on
 * loopback, TLS anywhere else). On TLS, an agent's mutual TLS material (client certificate and key, CA bundle) goes into
 * grpc-js's `credentials.createSsl`. One transport per target, dialect and TLS material is kept, so its channel is reused.
 */
import { AgentCard } from '@a2a-js/sdk';
import type { Transport } from '@a2a-js/sdk/client';
import { usageError } from '../../../shared/errors.js';
import { originKey } from '../../../shared/origins.js';
import type { SelectedInterface } from './interfaces.js';

/** Mutual TLS for a gRPC channel: PEM texts (the key decrypted: grpc-js takes no passphrase), in memory only. */
export interface GrpcTls {
  /** Tells one certificate/key/CA set from another in the channel cache (a hash, never key material). */
  id: string;
  cert?: string;
  key?: string;
  ca?: string;
}

export interface GrpcTarget {
  /** What grpc-js dials: `host:port`. */
  target: string;
  tls: boolean;
}

export function grpcTarget(url: string): GrpcTarget {
  const origin = originKey(url);
  if (!origin) throw usageError('invalid_grpc_target', `the gRPC interface "${url}" is not a grpc(s):// or http(s):// URL or a host:port`);
  const host = origin.host.includes(':') ? `[${origin.host}]` : origin.host;
  return { target: `${host}:${origin.port}`, tls: origin.secure };
}

const cache = new Map<string, Promise<Transport>>();
const MAX_CACHED = 64;

async function create(iface: SelectedInterface, { target, tls }: GrpcTarget, material?: GrpcTls): Promise<Transport> {
  const grpc = await import('@grpc/grpc-js');
  const pem = (text: string | undefined) => (text === undefined ? null : Buffer.from(text));
  const grpcChannelCredentials = tls
    ? material
      ? grpc.credentials.createSsl(pem(material.ca), pem(material.key), pem(material.cert))
      : grpc.credentials.createSsl()
    : grpc.credentials.createInsecure();
  if (iface.dialect === '0.3') {
    const { LegacyGrpcTransport } = await import('@a2a-js/sdk/compat/v0_3/client/grpc');
    return new LegacyGrpcTransport({ endpoint: target, grpcChannelCredentials });
  }
  const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
  // Without legacyCompat the factory always builds the 1.0 transport and never reads the card.
  return new GrpcTransportFactory({ grpcChannelCredentials }).create(target, AgentCard.fromJSON({}));
}

/** The (cached) transport for the interface; `material` is the agent's mutual TLS, used on TLS targets only. */
export function grpcTransport(iface: SelectedInterface, material?: GrpcTls): Promise<Transport> {
  const parsed = grpcTarget(iface.url);
  const tls = parsed.tls ? material : undefined;
  const key = `${iface.dialect} ${parsed.tls ? `tls ${tls?.id ?? ''}` : 'plain'} ${parsed.target}`;
  let transport = cache.get(key);
  if (!transport) {
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    transport = create(iface, parsed, tls);
    transport.catch(() => cache.delete(key));
    cache.set(key, transport);
  }
  return transport;
}
