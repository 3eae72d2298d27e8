/**
 * The PostgreSQL store's credentials the way libpq users keep them, through the built CLI (`npm run build` first) as a
 * process of its own, on the shared test cluster (test/support/postgres.ts; never reconfigured here): a role with a
 * random name and password owning a fresh database, reached with the password only in `.pgpass` (PGPASSFILE), through
 * a `pg_service.conf` entry (PGSERVICEFILE), a `[store] password_file`, `MISSIVE_STORE_PASSWORD_FILE` (a systemd
 * credential), the keyring entry `auth set-secret` stores while the store cannot be opened for want of it, and the
 * cluster's unix socket. Refusals name where they tried and never print the password.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKeytarStore } from '../../electron/core/auth/secret-store.js';
import { postgresAdminUrl, postgresCaFile, withAdminClient } from '../support/postgres.js';

const ROLE = `missive_r_${randomBytes(5).toString('hex')}`;
const DB = `missive_t_${randomBytes(5).toString('hex')}`;
// A ':' and a '\' in it: .pgpass must write them escaped (\: and \\), as libpq reads them.
const PASSWORD = `pw:${randomBytes(9).toString('hex')}\\x`;
const WRONG = `wrong-${randomBytes(9).toString('hex')}`;
const admin = new URL(postgresAdminUrl());
const HOST = admin.hostname;
const PORT = admin.port;
const STORE_URL = `postgres://${ROLE}@${HOST}:${PORT}/${DB}`;
const pgpassField = (value: string) => value.replace(/\\/g, '\\\\').replace(/:/g, '\\:');

let home: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI (bin/missive.js) as a child process with exactly `env` (plus PATH, HOME and MISSIVE_HOME), `stdin` written to it. */
function missive(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/missive.js', ...args], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, HOME: home, MISSIVE_HOME: home, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => void (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => void (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A file in the sandbox's home with `text` and `mode`. */
function file(name: string, text: string, mode = 0o600): string {
  const path = join(home, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

/** A config file in the sandbox's home (MISSIVE_CONFIG names it). */
const config = (lines: string[]) => file('missive.toml', `${lines.join('\n')}\n`, 0o644);

/** The error envelope a --json command printed on stderr. */
const errorOf = (res: Run) => {
  const text = res.stderr.trim();
  return JSON.parse(text.slice(text.lastIndexOf('\n{') + 1)).data as { code: string; message: string; help?: string };
};

const expectNoPassword = (res: Run) => {
  expect(res.stdout + res.stderr).not.toContain(PASSWORD);
  expect(res.stdout + res.stderr).not.toContain(PASSWORD.slice(3));
};

beforeAll(async () => {
  await withAdminClient(async (c) => {
    await c.query(`CREATE ROLE ${pg.escapeIdentifier(ROLE)} LOGIN PASSWORD ${pg.escapeLiteral(PASSWORD)}`);
    await c.query(`CREATE DATABASE ${pg.escapeIdentifier(DB)} OWNER ${pg.escapeIdentifier(ROLE)}`);
  });
});
afterAll(async () => {
  await withAdminClient(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(DB)} WITH (FORCE)`);
    await c.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(ROLE)}`);
  });
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'missive-pgcreds-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('libpq conventions', () => {
  it('reads the password from a 0600 .pgpass (PGPASSFILE): first matching line, * wildcards, \\: escapes', async () => {
    const pgpass = file(
      'pgpass',
      ['# comment line', `${HOST}:${PORT}:other_db:${ROLE}:${WRONG}`, `*:${PORT}:${DB}:${ROLE}:${pgpassField(PASSWORD)}`, `*:*:*:*:${WRONG}`, ''].join('\n'),
    );
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: STORE_URL, PGPASSFILE: pgpass });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expectNoPassword(res);
  });

  it('reads ~/.pgpass when PGPASSFILE is not set', async () => {
    file('.pgpass', `${HOST}:${PORT}:${DB}:${ROLE}:${pgpassField(PASSWORD)}\n`);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: STORE_URL });
    expect(res.code).toBe(0);
  });

  it('ignores a .pgpass others can read, with one warning, and the help names every password source', async () => {
    const pgpass = file('pgpass', `*:*:*:*:${pgpassField(PASSWORD)}\n`, 0o644);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: STORE_URL, PGPASSFILE: pgpass });
    expect(res.code).toBe(77);
    // One warning (a JSON envelope on stderr under --json), naming the file.
    expect(res.stderr.split('has group or world access').length - 1).toBe(1);
    expect(res.stderr).toContain(`password file \\"${pgpass}\\" has group or world access (mode 0644)`);
    const error = errorOf(res);
    expect(error.code).toBe('missive::auth::store_auth_failed');
    expect(error.message).toContain('asks for a password and none was given');
    for (const source of ['password_env', 'password_ref', 'password_file', 'MISSIVE_STORE_PASSWORD_FILE', 'PGPASSWORD', '.pgpass'])
      expect(error.help).toContain(source);
    expectNoPassword(res);
  });

  it('connects through a PGSERVICE entry of pg_service.conf (PGSERVICEFILE) naming host, port, dbname and user', async () => {
    const services = file(
      'services.conf',
      ['# team store', '[other]', 'host=192.0.2.1', '', `[team]`, `host=${HOST}`, `port=${PORT}`, `dbname=${DB}`, `user=${ROLE}`, ''].join('\n'),
    );
    const pgpass = file('pgpass', `${HOST}:${PORT}:${DB}:${ROLE}:${pgpassField(PASSWORD)}\n`);
    const viaEnv = await missive(['agent', 'list', '--json'], {
      MISSIVE_STORE_URL: 'postgres://',
      PGSERVICE: 'team',
      PGSERVICEFILE: services,
      PGPASSFILE: pgpass,
    });
    expect(viaEnv.stderr).toBe('');
    expect(viaEnv.code).toBe(0);
    const viaUrl = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: 'postgres://?service=team', PGSERVICEFILE: services, PGPASSWORD: PASSWORD });
    expect(viaUrl.code).toBe(0);
    // The URL's own values win over the service's (libpq): a database that does not exist is what it tried.
    const override = await missive(['agent', 'list', '--json'], {
      MISSIVE_STORE_URL: `postgres:///no_such_db?service=team`,
      PGSERVICEFILE: services,
      PGPASSWORD: PASSWORD,
    });
    expect(override.code).toBe(75);
    expect(errorOf(override).message).toContain('database no_such_db');
  });

  it('an unknown service is refused, naming the files it looked in', async () => {
    const services = file('services.conf', `[team]\nhost=${HOST}\n`);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: 'postgres://', PGSERVICE: 'nope', PGSERVICEFILE: services });
    expect(res.code).toBe(78);
    expect(errorOf(res).message).toContain('"nope"');
    expect(errorOf(res).message).toContain(services);
  });

  it('takes sslmode and sslrootcert from PGSSLMODE / PGSSLROOTCERT and from a service; a TLS failure names where it tried', async () => {
    const env = { MISSIVE_STORE_URL: STORE_URL, PGPASSWORD: PASSWORD, PGSSLMODE: 'verify-full' };
    // verify-full without the test CA: the server's certificate is not trusted, so PGSSLMODE was read.
    const untrusted = await missive(['agent', 'list', '--json'], env);
    expect(untrusted.code).toBe(75);
    expect(errorOf(untrusted)).toMatchObject({ code: 'missive::storage::store_tls_failed' });
    expect(errorOf(untrusted).message).toContain(`at ${HOST}:${PORT} (user ${ROLE}, database ${DB})`);
    expect((await missive(['agent', 'list', '--json'], { ...env, PGSSLROOTCERT: postgresCaFile() })).code).toBe(0);
    const services = file('services.conf', `[tls]\nsslmode=verify-full\nsslrootcert=${postgresCaFile()}\n[tls-no-ca]\nsslmode=verify-full\n`);
    const viaService = await missive(['agent', 'list', '--json'], {
      MISSIVE_STORE_URL: `${STORE_URL}?service=tls`,
      PGSERVICEFILE: services,
      PGPASSWORD: PASSWORD,
    });
    expect(viaService.code).toBe(0);
    const noCa = await missive(['agent', 'list', '--json'], {
      MISSIVE_STORE_URL: `${STORE_URL}?service=tls-no-ca`,
      PGSERVICEFILE: services,
      PGPASSWORD: PASSWORD,
    });
    expect(errorOf(noCa)).toMatchObject({ code: 'missive::storage::store_tls_failed' });
    expect(errorOf(noCa).message).toContain(`service "tls-no-ca" of ${services}`);
  });

  it("connects through the cluster's unix socket: ?host=<dir> in the URL, or PGHOST=<dir>", async () => {
    const dir = (
      await withAdminClient((c) => c.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories'))
    ).rows[0]!.unix_socket_directories.split(',')[0]!.trim();
    // The cluster trusts local (socket) logins and asks TCP ones for a password: no password given, only the socket works.
    const viaUrl = await missive(['agent', 'list', '--json'], {
      MISSIVE_STORE_URL: `postgres:///${DB}?host=${encodeURIComponent(dir)}&port=${PORT}&user=${ROLE}`,
    });
    expect(viaUrl.stderr).toBe('');
    expect(viaUrl.code).toBe(0);
    const viaEnv = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: `postgres:///${DB}`, PGHOST: dir, PGPORT: PORT, PGUSER: ROLE });
    expect(viaEnv.code).toBe(0);
    // A folder with no socket in it: the error names the socket folder, port, user and database it tried.
    const missing = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: `postgres:///${DB}`, PGHOST: home, PGPORT: PORT, PGUSER: ROLE });
    expect(missing.code).toBe(75);
    expect(errorOf(missing).message).toContain(`socket ${home}/.s.PGSQL.${PORT}`);
    expect(errorOf(missing).message).toContain(`user ${ROLE}`);
    expect(errorOf(missing).message).toContain(`database ${DB}`);
  });
});

describe('password files', () => {
  it('[store] password_file (relative to the config file) holds the password', async () => {
    file('store-password', `${PASSWORD}\n`);
    const cfg = config(['[store]', `url = "${STORE_URL}"`, 'password_file = "store-password"']);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_CONFIG: cfg });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
  });

  it('MISSIVE_STORE_PASSWORD_FILE (a 0400 systemd credential) wins over [store] password_file and stands in for an unset password_env', async () => {
    const credential = file('credential', PASSWORD, 0o400);
    file('wrong-password', `${WRONG}\n`);
    const withFile = config(['[store]', `url = "${STORE_URL}"`, 'password_file = "wrong-password"']);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_CONFIG: withFile, MISSIVE_STORE_PASSWORD_FILE: credential });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const shown = JSON.parse((await missive(['config', 'show', '--json'], { MISSIVE_CONFIG: withFile, MISSIVE_STORE_PASSWORD_FILE: credential })).stdout);
    expect(shown.data.values.find((v: { key: string }) => v.key === 'store.password_file')).toMatchObject({
      value: credential,
      source: 'env',
      from: 'MISSIVE_STORE_PASSWORD_FILE',
    });
    const withEnv = config(['[store]', `url = "${STORE_URL}"`, 'password_env = "SHELL_ONLY_PW"']);
    const service = await missive(['agent', 'list', '--json'], { MISSIVE_CONFIG: withEnv, MISSIVE_STORE_PASSWORD_FILE: credential });
    expect(service.code).toBe(0);
  });

  it('one password source per [store] table: password_file with password_env is refused (78)', async () => {
    const cfg = config(['[store]', `url = "${STORE_URL}"`, 'password_env = "PW"', 'password_file = "pw.txt"']);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_CONFIG: cfg });
    expect(res.code).toBe(78);
    expect(res.stderr).toContain('give one of password_env, password_ref and password_file, not several');
  });

  it('a password file others can read is refused (78), saying how to fix it, without reading it', async () => {
    const loose = file('store-password', `${PASSWORD}\n`, 0o644);
    const cfg = config(['[store]', `url = "${STORE_URL}"`, `password_file = "${loose}"`]);
    const res = await missive(['agent', 'list', '--json'], { MISSIVE_CONFIG: cfg });
    expect(res.code).toBe(78);
    const error = errorOf(res);
    expect(error.code).toBe('missive::config::secret_file_insecure');
    expect(error.message).toContain(loose);
    expect(error.message).toContain('[store] password_file');
    expect(error.message).toContain('0644');
    expect(error.help).toContain(`chmod 600 ${loose}`);
    expectNoPassword(res);
    const env = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: STORE_URL, MISSIVE_STORE_PASSWORD_FILE: loose });
    expect(env.code).toBe(78);
    expect(errorOf(env).message).toContain('MISSIVE_STORE_PASSWORD_FILE');
  });
});

describe('refusals name what was tried, never the password', () => {
  it('a wrong password: host, port, user and database in the error; no password anywhere', async () => {
    const pgpass = file('pgpass', `*:*:*:*:${pgpassField(PASSWORD)}\n`);
    for (const mode of ['--json', '--ndjson', '']) {
      const res = await missive(['agent', 'list', ...(mode ? [mode] : [])], { MISSIVE_STORE_URL: STORE_URL, PGPASSWORD: WRONG, PGPASSFILE: pgpass });
      expect(res.code).toBe(77);
      const out = res.stdout + res.stderr;
      expect(out).toContain(`refused the login for user ${ROLE} on ${HOST}:${PORT}, database ${DB}`);
      expect(out).not.toContain(WRONG);
      expectNoPassword(res);
    }
  });

  it('an unreachable server and a missing database name where they tried', async () => {
    const down = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: `postgres://${ROLE}@127.0.0.1:1/${DB}`, PGPASSWORD: PASSWORD });
    expect(down.code).toBe(75);
    expect(errorOf(down).message).toContain(`127.0.0.1:1`);
    expect(errorOf(down).message).toContain(`user ${ROLE}`);
    expect(errorOf(down).message).toContain(`database ${DB}`);
    const missing = await missive(['agent', 'list', '--json'], { MISSIVE_STORE_URL: `postgres://${ROLE}@${HOST}:${PORT}/no_such_db`, PGPASSWORD: PASSWORD });
    expect(missing.code).toBe(75);
    expect(errorOf(missing).message).toContain(`${HOST}:${PORT}`);
    expect(errorOf(missing).message).toContain('database no_such_db');
    for (const res of [down, missing]) expectNoPassword(res);
  });
});

describe('auth set-secret and the store password', () => {
  const keyring = createKeytarStore();
  const account = `pgcreds-${randomUUID()}`;
  afterAll(async () => {
    if ((await keyring.available()).ok) await keyring.delete('missive-test', account);
  });

  it("stores the store's own password_ref in the keyring while the store cannot be opened without it", async () => {
    const available = await keyring.available();
    const bus = process.env.DBUS_SESSION_BUS_ADDRESS ? { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS } : {};
    const cfg = config([
      '[store]',
      `url = "${STORE_URL}"`,
      'password_ref = "store_pw"',
      '[auth_refs.store_pw]',
      'kind = "keyring"',
      'keyring_service = "missive-test"',
      `keyring_account = "${account}"`,
    ]);
    const env = { ...bus, MISSIVE_CONFIG: cfg };
    if (!available.ok) {
      if (process.env.MISSIVE_REQUIRE_KEYRING === '1') throw new Error(`keyring required but unavailable: ${available.reason}`);
      return;
    }
    const before = await missive(['agent', 'list', '--json'], env);
    expect(before.code).toBe(77);
    expect(errorOf(before).code).toBe('missive::auth::keyring_missing');
    const set = await missive(['auth', 'set-secret', 'store_pw', '--json'], env, `${PASSWORD}\n`);
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).data).toMatchObject({ name: 'store_pw', stored: true });
    expectNoPassword(set);
    expect(await keyring.get('missive-test', account)).toBe(PASSWORD);
    const after = await missive(['agent', 'list', '--json'], env);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  });
});
