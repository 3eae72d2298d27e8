/**
 * Where a local HTTP face of missive listens (the web console, and `mcp serve --http` above it): the address it may
 * bind, the names a server bound to every interface answers to, the address shown for it, and the listen itself with
 * its failure as a missive error. Each face names itself (`what`) and says what it would expose on the network.
 */
import type { Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { isLoopbackHost } from '../../../shared/origins.js';
import { MissiveError, usageError } from '../../../shared/errors.js';
import { urlHost } from './guard.js';

/** An IP address or localhost; anything but loopback only with `allowRemote` (`remote_bind` says what it would expose). */
export function checkBindHost(host: string, allowRemote: boolean | undefined, face: { serve: string; exposes: string; listens: string }): void {
  if (host !== 'localhost' && !isIP(host)) throw usageError('invalid_host', `--host must be an IP address or localhost, not "${host}"`);
  if (!isLoopbackHost(host) && !allowRemote) {
    throw usageError(
      'remote_bind',
      `refusing to serve ${face.serve} on ${host}: it would be reachable from the network, and ${face.exposes}`,
      `Leave --host out (${face.listens} on 127.0.0.1), or pass --allow-remote as well and put TLS in front of it.`,
    );
  }
}

/** This machine's addresses and name: the Host values a server bound to 0.0.0.0 or :: answers to. */
export function machineNames(): { addresses: string[]; hostname: string } {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
  return { addresses, hostname: hostname() };
}

/** Where a user reaches a server bound to every interface: the first external IPv4 address, else loopback. */
export function externalAddress(): string {
  const ipv4 = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((i) => i.family === 'IPv4' && !i.internal);
  return ipv4?.address ?? '127.0.0.1';
}

/** Listens on `host:port`; a failure is `transport::listen_failed` naming `what` (EADDRINUSE: pick another port). */
export function listenOn(server: Server, port: number, host: string, what: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        new MissiveError('transport', 'listen_failed', `${what} cannot listen on ${urlHost(host)}:${port}: ${error.code ?? error.message}`, {
          help: error.code === 'EADDRINUSE' ? 'Pick another --port, or leave it out for a free one.' : undefined,
        }),
      );
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}
