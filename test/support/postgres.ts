/**
 * PostgreSQL for the tests. As vitest's globalSetup (vitest.config.ts) it starts one throw-away cluster for the run:
 * Debian's binaries (/usr/lib/postgresql/<version>/bin), a temp folder owned by the `postgres` user when we run as
 * root, a free port on 127.0.0.1, SCRAM passwords over TCP, TLS on with a throw-away CA and a server certificate for
 * 127.0.0.1 (so the sslmode tests are real), fsync off. The tests get its superuser URL (password included) and the
 * CA file through `inject` (and the environment): MISSIVE_TEST_PG_URL, MISSIVE_TEST_PG_CA. Teardown stops it and
 * removes the folder.
 *
 * With MISSIVE_TEST_PG_URL already set, that server is used and nothing is started (MISSIVE_TEST_PG_CA, if set, is
 * its CA). Without PostgreSQL binaries the run fails, saying how to install them: it never skips quietly.
 *
 * For the tests: `freshPostgresUrl()` makes a database with a random name on that server and returns its URL and a
 * `drop()` to call in afterAll / afterEach.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { INSTALL_HELP, startThrowAwayCluster } from './pg-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    MISSIVE_TEST_PG_URL: string;
    MISSIVE_TEST_PG_CA: string;
  }
}

export { INSTALL_HELP };

/** A CA and a server certificate for 127.0.0.1 (EC keys: quick to make), in `dir`. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=missive test PostgreSQL CA']);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  ]);
  return { ca: join(dir, 'ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server.key') };
}

interface Cluster {
  url: string;
  ca: string;
  stop(): void;
}

/** The run's cluster (pg-cluster.ts's recipe) with TLS on: a throw-away CA and a server certificate for 127.0.0.1. */
async function startCluster(): Promise<Cluster> {
  let ca = '';
  const cluster = await startThrowAwayCluster({
    prefix: 'missive-pg-',
    what: 'PostgreSQL for the tests',
    maxConnections: 300,
    prepare: (dir) => {
      const tls = makeCertificates(dir);
      chmodSync(tls.key, 0o600);
      ca = tls.ca;
      return ['ssl = on', `ssl_cert_file = '${tls.cert}'`, `ssl_key_file = '${tls.key}'`];
    },
  });
  return { url: cluster.url, ca, stop: cluster.remove };
}

/** vitest globalSetup: the cluster for the run (or the one MISSIVE_TEST_PG_URL names); returns the teardown. */
export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.MISSIVE_TEST_PG_URL;
  if (given) {
    project.provide('MISSIVE_TEST_PG_URL', given);
    project.provide('MISSIVE_TEST_PG_CA', process.env.MISSIVE_TEST_PG_CA ?? '');
    return () => undefined;
  }
  const cluster = await startCluster();
  process.env.MISSIVE_TEST_PG_URL = cluster.url;
  process.env.MISSIVE_TEST_PG_CA = cluster.ca;
  project.provide('MISSIVE_TEST_PG_URL', cluster.url);
  project.provide('MISSIVE_TEST_PG_CA', cluster.ca);
  return () => {
    delete process.env.MISSIVE_TEST_PG_URL;
    delete process.env.MISSIVE_TEST_PG_CA;
    cluster.stop();
  };
}

/** The test server's superuser URL, password included. */
export function postgresAdminUrl(): string {
  const url = inject('MISSIVE_TEST_PG_URL') || process.env.MISSIVE_TEST_PG_URL;
  if (!url) throw new Error(`MISSIVE_TEST_PG_URL is not set: is test/support/postgres.ts vitest's globalSetup? ${INSTALL_HELP}`);
  return url;
}

/** The CA file that signed the test server's certificate (sslrootcert=); fails when the server given has none. */
export function postgresCaFile(): string {
  const ca = inject('MISSIVE_TEST_PG_CA') || process.env.MISSIVE_TEST_PG_CA;
  if (!ca) throw new Error('MISSIVE_TEST_PG_CA is not set: the TLS tests need the CA of the server MISSIVE_TEST_PG_URL names (or unset both to start one)');
  return ca;
}

/** `url` with another user, password and/or database. */
export function withUrl(url: string, change: { user?: string; password?: string; database?: string; host?: string; port?: number; search?: string }): string {
  const u = new URL(url);
  if (change.user !== undefined) u.username = encodeURIComponent(change.user);
  if (change.password !== undefined) u.password = encodeURIComponent(change.password);
  if (change.database !== undefined) u.pathname = `/${encodeURIComponent(change.database)}`;
  if (change.host !== undefined) u.hostname = change.host;
  if (change.port !== undefined) u.port = String(change.port);
  if (change.search !== undefined) u.search = change.search;
  return u.toString();
}

/**
 * `db` with an 'error' listener that ignores what happens to a connection while it is idle: a test dropping its
 * database (`DROP DATABASE … WITH (FORCE)`) terminates the connections still open on it (57P01), and pg emits that on
 * the pool or client; with no listener it is an uncaught error, and vitest fails the run with every test green. A
 * query in flight still fails through its own promise.
 */
export function ignoringIdleErrors<T extends { on(event: 'error', listener: (error: Error) => void): unknown }>(db: T): T {
  db.on('error', () => undefined);
  return db;
}

/** Runs `fn` with a client of the server's superuser, on `database` (default: the admin URL's). */
export async function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>, database?: string): Promise<T> {
  const client = ignoringIdleErrors(new pg.Client({ connectionString: database ? withUrl(postgresAdminUrl(), { database }) : postgresAdminUrl() }));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface FreshDatabase {
  /** The database's name (`missive_t_<random>`). */
  name: string;
  /** Its URL, as the superuser, password included. */
  url: string;
  /** Drops it, closing whatever connections are left. */
  drop(): Promise<void>;
}

/** A new, empty database with a random name on the test server; call `drop()` when done (afterAll). */
export async function freshPostgresUrl(): Promise<FreshDatabase> {
  const name = `missive_t_${randomBytes(6).toString('hex')}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  return {
    name,
    url: withUrl(postgresAdminUrl(), { database: name }),
    drop: () => withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(() => undefined),
  };
}
