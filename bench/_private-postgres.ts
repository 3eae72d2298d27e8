/**
 * A throw-away PostgreSQL cluster for a benchmark, by the tests' recipe (test/support/pg-cluster.ts: Debian's
 * binaries, a temp folder owned by `postgres` when we run as root, a free port on 127.0.0.1, a SCRAM password over
 * TCP, fsync off unless `durable`). `stop()` stops it and removes the folder.
 */
import { startThrowAwayCluster } from '../test/support/pg-cluster.js';

export interface BenchCluster {
  /** The superuser URL, password included. */
  url: string;
  version: string;
  stop(): void;
}

/** `durable`: fsync, synchronous_commit and full-page writes on, as a server keeps them by default (slower commits). */
export async function startBenchCluster(options: { durable?: boolean } = {}): Promise<BenchCluster> {
  const cluster = await startThrowAwayCluster({
    prefix: 'missive-bench-pg-',
    what: "the benchmark's PostgreSQL",
    maxConnections: 200,
    prepare: () => (options.durable ? ['fsync = on', 'synchronous_commit = on', 'full_page_writes = on'] : []),
  });
  return { url: cluster.url, version: cluster.bin.split('/').at(-2)!, stop: cluster.remove };
}
