/**
 * The client-certificate dispatchers (mutual TLS) of this process, one per certificate/key/CA set, and their closing
 * at the end of a CLI invocation. A module of its own without imports, so the CLI closes them without loading TLS code.
 */
import type { Agent } from 'undici';
import type { GrpcTls } from '../a2a/grpc-transport.js';

/** One certificate/key/CA set, ready: the HTTP dispatcher that presents it, and the same material for gRPC channels. */
export interface ClientTlsSet {
  dispatcher: Agent;
  grpc: GrpcTls;
}

const pool = new Map<string, ClientTlsSet>();
const MAX_POOLED = 32;

export const pooledClientTls = (key: string): ClientTlsSet | undefined => pool.get(key);

/** Keeps `set` under `key` (the oldest entry is closed beyond the bound); an entry already there wins. */
export function poolClientTls(key: string, set: ClientTlsSet): ClientTlsSet {
  const existing = pool.get(key);
  if (existing) {
    void set.dispatcher.close();
    return existing;
  }
  if (pool.size >= MAX_POOLED) {
    const [oldestKey, oldest] = pool.entries().next().value!;
    pool.delete(oldestKey);
    void oldest.dispatcher.close();
  }
  pool.set(key, set);
  return set;
}

/** Closes every client-certificate dispatcher (their kept-alive sockets would otherwise hold the process open). */
export async function closeClientTlsDispatchers(): Promise<void> {
  const sets = [...pool.values()];
  pool.clear();
  await Promise.all(sets.map((s) => s.dispatcher.close()));
}
