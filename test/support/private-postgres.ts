/**
 * A PRIVATE throw-away PostgreSQL cluster for a test that must stop and restart the server (an outage) or change its
 * configuration: the shared cluster of test/support/postgres.ts is never touched. Same recipe as the shared one
 * (Debian's binaries, a temp folder owned by `postgres` when we run as root, 127.0.0.1 only, a SCRAM password over
 * TCP, fsync off), without TLS. `stop()` and `start()` keep the port and the data folder, so clients given `url`
 * reconnect to the same server with the same data; `close()` stops it and removes the folder.
 *
 *   const pg = await privatePostgres();
 *   // … spawn processes with MISSIVE_STORE_URL = pg.url …
 *   pg.stop(); // the outage
 *   pg.start(); // the store is back
 *   await pg.close(); // afterAll
 */
import { startThrowAwayCluster } from './pg-cluster.js';

export interface PrivatePostgres {
  /** The superuser URL (`postgres://postgres:<password>@127.0.0.1:<port>/postgres`), password included. */
  url: string;
  /** The superuser's password (to assert it never reaches logs or output). */
  password: string;
  port: number;
  /** True between start() and stop(). */
  running(): boolean;
  /**
   * Stops the server and waits until it is down. `fast` (default): clients' sessions are terminated (57P01) and the
   * port closes, as when an operator restarts PostgreSQL; `immediate`: no goodbye to anyone, as in a crash.
   */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port and data folder; waits until it accepts connections. */
  start(): void;
  /** The last `lines` of the server's log (for a failure message). */
  logTail(lines?: number): string;
  /** Stops it (if running) and removes its folder. Safe to call twice. */
  close(): Promise<void>;
}

/** Starts a private cluster on a free 127.0.0.1 port (pg-cluster.ts's recipe, no TLS). Fails (never skips) without PostgreSQL binaries. */
export async function privatePostgres(): Promise<PrivatePostgres> {
  const cluster = await startThrowAwayCluster({ prefix: 'missive-private-pg-', what: 'the private PostgreSQL', maxConnections: 100 });
  let up = true;
  let closed = false;
  return {
    url: cluster.url,
    password: cluster.password,
    port: cluster.port,
    running: () => up,
    stop(mode = 'fast') {
      cluster.pgCtl(['-m', mode, '-w', '-t', '60', 'stop']);
      up = false;
    },
    start() {
      try {
        cluster.pgCtl(['-l', cluster.log, '-w', '-t', '60', 'start']);
        up = true;
      } catch (error) {
        throw new Error(`the private PostgreSQL did not start again: ${(error as Error).message}\n${cluster.logTail()}`);
      }
    },
    logTail: cluster.logTail,
    async close() {
      if (closed) return;
      closed = true;
      // Stopped by the test or not, remove() stops what runs and removes the folder.
      cluster.remove();
      up = false;
    },
  };
}
