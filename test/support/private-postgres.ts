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
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asPostgres, binDir, freePort, handOver, INSTALL_HELP } from './postgres.js';

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

/** Starts a private cluster on a free 127.0.0.1 port. Fails (never skips) without PostgreSQL binaries. */
export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (!bin) throw new Error(`No PostgreSQL found. ${INSTALL_HELP}`);
  const dir = mkdtempSync(join(tmpdir(), 'missive-private-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const password = randomBytes(18).toString('hex');
  const pgCtl = join(bin, 'pg_ctl');
  let closed = false;
  let up = false;
  const tail = (lines = 15) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-lines).join('\n') : '');
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    writeFileSync(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
    chmodSync(dir, 0o755);
    handOver(dir);
    asPostgres(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      `--pwfile=${join(dir, 'pwfile')}`,
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    // Bounded: a port taken between freePort() and the start is tried again, three times at most.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      appendFileSync(
        join(data, 'postgresql.conf'),
        [
          '',
          `port = ${port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${dir}'`,
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          'max_connections = 100',
          '',
        ].join('\n'),
      );
      try {
        asPostgres(pgCtl, ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
        up = true;
      } catch (error) {
        if (attempt < 3 && /already in use|could not bind/i.test(tail())) continue;
        throw new Error(`the private PostgreSQL did not start: ${(error as Error).message}\n${tail()}`);
      }
      return {
        url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
        password,
        port,
        running: () => up,
        stop(mode = 'fast') {
          asPostgres(pgCtl, ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
          up = false;
        },
        start() {
          try {
            asPostgres(pgCtl, ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
            up = true;
          } catch (error) {
            throw new Error(`the private PostgreSQL did not start again: ${(error as Error).message}\n${tail()}`);
          }
        },
        logTail: tail,
        async close() {
          if (closed) return;
          closed = true;
          try {
            if (up) asPostgres(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
          } finally {
            up = false;
            cleanup();
          }
        },
      };
    }
  } catch (error) {
    if (up) {
      try {
        asPostgres(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // the folder goes anyway
      }
    }
    cleanup();
    throw error;
  }
}
