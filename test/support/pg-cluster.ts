/**
 * The recipe of a throw-away PostgreSQL cluster, one place for its three users: the tests' shared cluster
 * (postgres.ts, vitest's globalSetup, with TLS), a test's private one it stops and starts (private-postgres.ts), and a
 * benchmark's (bench/_private-postgres.ts). Debian's binaries (/usr/lib/postgresql/<version>/bin), a temp folder
 * owned by the `postgres` user when we run as root (initdb and postgres refuse root), a free port on 127.0.0.1 (a port
 * taken before the start is tried again, three times at most), a SCRAM password over TCP, local socket logins
 * trusted, fsync off. No vitest import: a benchmark runs it under plain Node.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const INSTALL_HELP =
  'The tests need PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/<version>/bin: ' +
  'install them with `apt-get install postgresql` (Debian/Ubuntu; .ci/run does), ' +
  'or point MISSIVE_TEST_PG_URL at a server you run (postgres://user:password@127.0.0.1:port/postgres).';

/** The newest Debian PostgreSQL bin folder, or undefined. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the `postgres` user when we are root. */
function asPostgres(command: string, args: string[]): string {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Gives the folder (and all in it) to the `postgres` user when we are root. */
function handOver(dir: string): void {
  if (!isRoot()) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
  for (const f of readdirSync(dir)) chownSync(join(dir, f), uid, gid);
}

export interface ClusterRecipe {
  /** The temp folder's name prefix (`missive-pg-`). */
  prefix: string;
  /** What the cluster is for, in the message of a start that failed. */
  what: string;
  maxConnections: number;
  /** Run in the folder before it is handed over (e.g. making the TLS files); its lines go into postgresql.conf. */
  prepare?: (dir: string) => string[];
}

export interface ThrowAwayCluster {
  bin: string;
  dir: string;
  data: string;
  log: string;
  port: number;
  password: string;
  /** The superuser URL, password included. */
  url: string;
  /** Runs pg_ctl on the cluster's data folder. */
  pgCtl(args: string[]): void;
  /** The last `lines` of the server's log. */
  logTail(lines?: number): string;
  /** Stops the server at once (if it runs) and removes the folder. */
  remove(): void;
}

/** Makes a cluster by `recipe` and starts it; fails (never skips) without PostgreSQL binaries. */
export async function startThrowAwayCluster(recipe: ClusterRecipe): Promise<ThrowAwayCluster> {
  const bin = binDir();
  if (!bin) throw new Error(`No PostgreSQL found. ${INSTALL_HELP}`);
  const dir = mkdtempSync(join(tmpdir(), recipe.prefix));
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const password = randomBytes(18).toString('hex');
  const pgCtl = (args: string[]) => void asPostgres(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const logTail = (lines = 15) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-lines).join('\n') : '');
  let started = false;
  const remove = () => {
    try {
      if (started) pgCtl(['-m', 'immediate', '-w', 'stop']);
    } catch {
      // stopped already: the folder goes anyway
    } finally {
      started = false;
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    writeFileSync(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
    const extra = recipe.prepare?.(dir) ?? [];
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
          `max_connections = ${recipe.maxConnections}`,
          ...extra,
          '',
        ].join('\n'),
      );
      try {
        pgCtl(['-l', log, '-w', '-t', '60', 'start']);
        started = true;
      } catch (error) {
        if (attempt < 3 && /already in use|could not bind/i.test(logTail())) continue;
        throw new Error(`${recipe.what} did not start: ${(error as Error).message}\n${logTail()}`);
      }
      return { bin, dir, data, log, port, password, url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, pgCtl, logTail, remove };
    }
  } catch (error) {
    remove();
    throw error;
  }
}
