/**
 * A throw-away PostgreSQL cluster for a benchmark, started the way the tests start theirs (test/support/postgres.ts):
 * Debian's binaries (/usr/lib/postgresql/<version>/bin), a temp folder owned by `postgres` when we run as root, a free
 * port on 127.0.0.1, a SCRAM password over TCP, fsync off. `stop()` stops it and removes the folder.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchCluster {
  /** The superuser URL, password included. */
  url: string;
  version: string;
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) throw new Error('no PostgreSQL server binaries in /usr/lib/postgresql/<version>/bin: install postgresql, or set MISSIVE_BENCH_PG_URL');
  return join(root, versions[0], 'bin');
}

const isRoot = () => process.getuid?.() === 0;

function asPostgres(command: string, args: string[]): void {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export async function startBenchCluster(): Promise<BenchCluster> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'missive-bench-pg-'));
  const data = join(dir, 'data');
  const password = randomBytes(18).toString('hex');
  try {
    writeFileSync(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
    chmodSync(dir, 0o755);
    if (isRoot()) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
      chownSync(join(dir, 'pwfile'), uid, gid);
    }
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
    const port = await freePort();
    appendFileSync(
      join(data, 'postgresql.conf'),
      `\nport = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n`,
    );
    asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', 'start']);
    return {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      version: bin.split('/').at(-2)!,
      stop() {
        try {
          asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
