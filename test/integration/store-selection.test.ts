/**
 * Team mode's store selection: `--store URL` over MISSIVE_STORE_URL over `[store] url` (a profile's over the top
 * level), SQLite when none is set; the URL's password never printed; connecting for real to the run's throw-away
 * PostgreSQL (test/support/postgres.ts): plain, sslmode=require and verify-full, and the failures a user meets
 * (unreachable, wrong or missing password, untrusted certificate) each with its code and exit code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, postgresCaFile, withAdminClient, withUrl, type FreshDatabase } from '../support/postgres.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { openPool } from '../../electron/core/store/postgres/connect.js';
import { selectStore, type PostgresSelection } from '../../electron/core/store/selection.js';
import { resolveConfig } from '../../electron/core/config/load.js';
import { isMissiveError } from '../../shared/errors.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.dispose());

/** The error a command printed (its `--json` envelope's data), after any one-line warning envelope (a password in --store's URL). */
const errorOf = (res: { stdout: string; stderr: string }) =>
  JSON.parse(
    res.stdout ||
      res.stderr
        .split('\n')
        .filter((line) => !/^\{.*"kind":"warning"/.test(line))
        .join('\n'),
  ).data as { code: string; message: string; help?: string };

type Value = { key: string; value: unknown; source: string; from: string };
const valueOf = (data: { values: Value[] }, key: string) => data.values.find((v) => v.key === key);

function writeConfig(text: string): string {
  mkdirSync(join(box.home, 'config'), { recursive: true });
  const file = join(box.home, 'config/config.toml');
  writeFileSync(file, text);
  return file;
}

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('which store: flag, environment, config', () => {
  const FILE_URL = 'postgres://team@db-file.example:5432/missive?sslmode=verify-full';
  const ENV_URL = 'postgres://team:env-pass-7731@db-env.example:5432/missive';
  const FLAG_URL = 'postgresql://team:flag-pass-8842@db-flag.example:6543/missive?sslmode=require';

  it('--store wins over MISSIVE_STORE_URL, which wins over [store] url; the password is never shown', async () => {
    const file = writeConfig(['[store]', `url = "${FILE_URL}"`, 'password_env = "STORE_PW"'].join('\n'));
    const fromFile = await box.run(['config', 'show', '--json']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(valueOf(fromFile.json().data, 'store.url')).toMatchObject({ value: FILE_URL, source: 'file', from: `${file}:2` });
    expect(valueOf(fromFile.json().data, 'store.password_env')).toMatchObject({ value: 'STORE_PW', source: 'file', from: `${file}:3` });
    expect(valueOf(fromFile.json().data, 'store.schema')).toMatchObject({ value: 'missive_default', source: 'default' });

    const fromEnv = await box.run(['config', 'show', '--json'], { env: { MISSIVE_STORE_URL: ENV_URL } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(valueOf(fromEnv.json().data, 'store.url')).toMatchObject({
      value: 'postgres://team:***@db-env.example:5432/missive',
      source: 'env',
      from: 'MISSIVE_STORE_URL',
    });
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain('env-pass-7731');

    const fromFlag = await box.run(['config', 'show', '--json', '--store', FLAG_URL], { env: { MISSIVE_STORE_URL: ENV_URL } });
    expect(fromFlag.code, fromFlag.stderr).toBe(0);
    expect(valueOf(fromFlag.json().data, 'store.url')).toMatchObject({
      value: 'postgresql://team:***@db-flag.example:6543/missive?sslmode=require',
      source: 'flag',
      from: '--store',
    });
    expect(fromFlag.stdout + fromFlag.stderr).not.toContain('flag-pass-8842');

    // The human table too.
    const human = await box.run(['config', 'show', '--store', FLAG_URL]);
    expect(human.stdout).toContain('postgresql://team:***@db-flag.example:6543/missive?sslmode=require');
    expect(human.stdout).not.toContain('flag-pass-8842');
  });

  it("a profile's [profiles.<name>.store] wins over the top level; each profile gets its own schema", async () => {
    const file = writeConfig(
      [
        '[store]', // 1
        'url = "postgres://team@db.example/missive"', // 2
        '[profiles.night-shift]', // 3
        '[profiles.night-shift.store]', // 4
        'url = "postgres://night@db-night.example/missive"', // 5
        '[profiles.ops]', // 6
        '[profiles.ops.store]', // 7
        'schema = "ops_rows"', // 8
      ].join('\n'),
    );
    const night = (await box.run(['config', 'show', '--json', '--profile', 'night-shift'])).json().data;
    expect(valueOf(night, 'store.url')).toMatchObject({ value: 'postgres://night@db-night.example/missive', source: 'profile', from: `${file}:5` });
    expect(valueOf(night, 'store.schema')).toMatchObject({ value: 'missive_night_shift', source: 'default' });
    const ops = (await box.run(['config', 'show', '--json', '--profile', 'ops'])).json().data;
    expect(valueOf(ops, 'store.url')).toMatchObject({ value: 'postgres://team@db.example/missive', source: 'file', from: `${file}:2` });
    expect(valueOf(ops, 'store.schema')).toMatchObject({ value: 'ops_rows', source: 'profile', from: `${file}:8` });
  });

  it('unset, or empty, is the SQLite file', async () => {
    const res = await box.run(['config', 'show', '--json'], { env: { MISSIVE_STORE_URL: '' } });
    expect(res.code, res.stderr).toBe(0);
    expect(valueOf(res.json().data, 'store.url')).toMatchObject({ value: null, source: 'default' });
  });

  it("a URL that is not PostgreSQL's is a config error (78) that does not echo it", async () => {
    for (const [args, env] of [
      [['--store', 'mysql://root:hunter2-secret@db.example/app'], {}],
      [[], { MISSIVE_STORE_URL: 'mysql://root:hunter2-secret@db.example/app' }],
      [['--store', 'hunter2-secret'], {}],
    ] as Array<[string[], NodeJS.ProcessEnv]>) {
      const res = await box.run(['agent', 'list', '--json', ...args], { env });
      expect(res.code, res.stdout + res.stderr).toBe(78);
      const error = errorOf(res);
      expect(error.code).toBe('missive::config::invalid_store_url');
      expect(error.message).toMatch(/postgres:\/\//);
      expect(res.stdout + res.stderr).not.toContain('hunter2-secret');
    }
  });

  it('a config file URL with a password, or another scheme, is refused at its line without echoing it', async () => {
    const file = writeConfig(['[store]', 'url = "postgres://team:in-file-pass-5512@db.example/missive"'].join('\n'));
    const res = await box.run(['config', 'show', '--json']);
    expect(res.code).toBe(78);
    expect(res.stdout + res.stderr).toContain(`${file}:2: store.url: must not embed a password`);
    expect(res.stdout + res.stderr).not.toContain('in-file-pass-5512');
    writeConfig(['[store]', 'url = "redis://db.example"'].join('\n'));
    const scheme = await box.run(['config', 'show', '--json']);
    expect(scheme.code).toBe(78);
    expect(scheme.stdout + scheme.stderr).toContain('store.url: must be a postgres:// or postgresql:// URL');
  });

  it('two profiles that would share one schema on one server are refused', async () => {
    writeConfig(['[store]', 'url = "postgres://team@db.example/missive"', '[profiles.team-a]', '[profiles.team_a]'].join('\n'));
    const res = await box.run(['config', 'show', '--json', '--profile', 'team-a']);
    expect(res.code).toBe(78);
    expect(errorOf(res)).toMatchObject({ code: 'missive::config::store_schema_shared' });
    expect(res.stdout + res.stderr).toContain('missive_team_a');
    // On different servers they do not share anything.
    writeConfig(
      [
        '[profiles.team-a.store]',
        'url = "postgres://team@db-a.example/missive"',
        '[profiles.team_a.store]',
        'url = "postgres://team@db-b.example/missive"',
      ].join('\n'),
    );
    expect((await box.run(['config', 'show', '--json', '--profile', 'team-a'])).code).toBe(0);
  });

  it('password_ref must name an auth ref of the config file', async () => {
    writeConfig(['[store]', 'url = "postgres://team@db.example/missive"', 'password_ref = "pg"'].join('\n'));
    const res = await box.run(['config', 'show', '--json']);
    expect(res.code).toBe(78);
    expect(errorOf(res)).toMatchObject({ code: 'missive::config::unknown_auth_ref' });
  });
});

describe('with no store URL set, nothing reaches PostgreSQL', () => {
  let listener: Server;
  let port: number;
  const connections: Socket[] = [];
  beforeAll(async () => {
    listener = createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => listener.close(resolve)));

  it('commands use the SQLite file even with PGHOST/PGPORT/PGUSER/PGPASSWORD pointing at a listener', async () => {
    const env = { PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: 'postgres', PGPASSWORD: 'pg-env-pass-1', PGDATABASE: 'postgres', PGSSLMODE: 'require' };
    for (const args of [
      ['agent', 'add', 'echo', 'http://127.0.0.1:9', '--json'],
      ['agent', 'list', '--json'],
      ['group', 'create', 'crew', '--json'],
      ['config', 'show', '--json'],
      ['doctor', '--json'],
    ]) {
      const res = await box.run(args, { env });
      if (args[0] !== 'doctor') expect(res.code, `${args.join(' ')}: ${res.stdout}${res.stderr}`).toBe(0);
      expect(res.stdout + res.stderr).not.toMatch(/postgres/i);
    }
    const doctor = (await box.run(['doctor', '--json'], { env })).json().data;
    expect(doctor.checks.map((c: { name: string }) => c.name)).toContain('store.sqlite_migrations');
    expect(doctor.checks.map((c: { name: string }) => c.name)).not.toContain('store.postgres');
    expect(readDb(box, (db) => db.prepare('SELECT alias FROM agents').all())).toEqual([{ alias: 'echo' }]);
    expect(connections).toHaveLength(0);
  });
});

describe('connecting to PostgreSQL', () => {
  let db: FreshDatabase;
  beforeAll(async () => (db = await freshPostgresUrl()));
  afterAll(() => db.drop());

  const password = () => new URL(db.url).password;
  const selection = (url: string, extra: Partial<PostgresSelection> = {}): PostgresSelection => {
    const config = resolveConfig({}, { kind: 'defaults', path: null, searched: [] } as never);
    const picked = selectStore({ flag: url, env: {}, config, profile: 'default' });
    if (picked.kind !== 'postgres') throw new Error('expected a PostgreSQL selection');
    return { ...picked, ...extra };
  };
  const open = (sel: PostgresSelection, env: NodeJS.ProcessEnv = {}, more: Partial<Parameters<typeof openPool>[1]> = {}) => {
    const config = resolveConfig({}, { kind: 'defaults', path: null, searched: [] } as never);
    return openPool(sel, { env, secrets: createMemorySecretStore(), config, ...more });
  };
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (isMissiveError(error)) return error;
      throw error;
    }
    throw new Error('expected a failure');
  };

  it('sets the profile schema as search_path and names itself missive', async () => {
    const pool = await open(selection(db.url));
    try {
      const { rows } = await pool.query('SELECT current_setting($1) AS path, current_setting($2) AS app', ['search_path', 'application_name']);
      expect(rows[0]).toEqual({ path: '"missive_default"', app: 'missive' });
    } finally {
      await pool.end();
    }
  });

  it('sslmode=require encrypts; verify-full with the CA in sslrootcert checks the certificate', async () => {
    for (const search of [
      '?sslmode=require',
      `?sslmode=verify-full&sslrootcert=${encodeURIComponent(postgresCaFile())}`,
      `?sslmode=verify-ca&sslrootcert=${encodeURIComponent(postgresCaFile())}`,
    ]) {
      const pool = await open(selection(withUrl(db.url, { search })));
      try {
        const { rows } = await pool.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
        expect(rows[0], search).toEqual({ ssl: true });
      } finally {
        await pool.end();
      }
    }
    // Without sslmode: no TLS (pg's default).
    const plain = await open(selection(db.url));
    expect((await plain.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0]).toEqual({ ssl: false });
    await plain.end();
  });

  it('verify-full without the CA: store_tls_failed (75) saying how to give it', async () => {
    const error = await failure(open(selection(withUrl(db.url, { search: '?sslmode=verify-full' }))));
    expect(error).toMatchObject({ code: 'missive::storage::store_tls_failed', exitCode: 75 });
    expect(error.message).toContain('not signed by a CA missive trusts');
    expect(error.help).toContain('sslrootcert=');
    expect(error.message).not.toContain(password());
  });

  it('an unreachable port: store_unreachable (75) naming the URL without its password', async () => {
    const port = await closedPort();
    const error = await failure(open(selection(withUrl(db.url, { port }))));
    expect(error).toMatchObject({ code: 'missive::storage::store_unreachable', exitCode: 75 });
    expect(error.message).toContain(`postgres://postgres:***@127.0.0.1:${port}/${db.name}`);
    expect(error.message).toContain('refused');
    expect(`${error.message} ${error.help}`).not.toContain(password());
  });

  it('a wrong password: store_auth_failed (77); no password at all says so, and leaves no login open', async () => {
    const wrong = await failure(open(selection(withUrl(db.url, { password: 'not-the-password-42' }))));
    expect(wrong).toMatchObject({ code: 'missive::auth::store_auth_failed', exitCode: 77 });
    expect(wrong.message).toContain('password authentication failed');
    expect(wrong.message).not.toContain('not-the-password-42');

    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    await expect.poll(sockets, { timeout: 10_000 }).toBe(0); // the wrong password's connection, closed by the server
    const none = await failure(open(selection(withUrl(db.url, { password: '' }))));
    expect(none).toMatchObject({ code: 'missive::auth::store_auth_failed', exitCode: 77 });
    expect(none.message).toContain('none was given');
    // pg gives up on a SCRAM login without a password but keeps its socket open (until the server's 60 s
    // authentication_timeout): a CLI run would hang that long after printing its error.
    await expect.poll(sockets, { timeout: 10_000 }).toBe(0);
  });

  it('URL parameters pg cannot use are config errors (78): a CA file it cannot read, a bad pool size', async () => {
    const noCa = await failure(open(selection(withUrl(db.url, { search: '?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem' }))));
    expect(noCa).toMatchObject({ code: 'missive::config::invalid_store_url', exitCode: 78 });
    expect(noCa.message).toContain('/nonexistent/ca.pem');
    expect(noCa.message).not.toContain(password());
    expect(await failure(open(selection(withUrl(db.url, { search: '?max=0' }))))).toMatchObject({ code: 'missive::config::invalid_store_url' });
    const pool = await open(selection(withUrl(db.url, { search: '?max=3&application_name=team-gw' })));
    try {
      expect(pool.options.max).toBe(3);
      expect((await pool.query('SELECT current_setting($1) AS app', ['application_name'])).rows[0]).toEqual({ app: 'team-gw' });
    } finally {
      await pool.end();
    }
  });

  it('a database that does not exist: store_database_missing (75)', async () => {
    const error = await failure(open(selection(withUrl(db.url, { database: `${db.name}_absent` }))));
    expect(error).toMatchObject({ code: 'missive::storage::store_database_missing', exitCode: 75 });
  });

  it('the password from password_env, an env auth ref, a keyring auth ref, or PGPASSWORD', async () => {
    const bare = withUrl(db.url, { password: '' });
    const config = resolveConfig(
      { auth_refs: { pgenv: { kind: 'env', env: 'PG_REF_PW' }, pgkey: { kind: 'keyring', keyring_service: 'missive-pg', keyring_account: 'team' } } },
      { kind: 'defaults', path: null, searched: [] } as never,
    );
    const secrets = createMemorySecretStore();
    await secrets.set('missive-pg', 'team', password());
    const remembered: string[] = [];
    const cases: Array<[Partial<PostgresSelection>, NodeJS.ProcessEnv]> = [
      [{ passwordEnv: 'STORE_PW' }, { STORE_PW: password() }],
      [{ passwordRef: 'pgenv' }, { PG_REF_PW: password() }],
      [{ passwordRef: 'pgkey' }, {}],
      [{}, { PGPASSWORD: password() }],
    ];
    for (const [extra, env] of cases) {
      const pool = await openPool(selection(bare, extra), { env, secrets, config, remember: (v) => remembered.push(...v) });
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await pool.end();
    }
    expect(remembered).toEqual([password(), password(), password(), password()]);
    const missing = await failure(openPool(selection(bare, { passwordEnv: 'STORE_PW' }), { env: {}, secrets, config }));
    expect(missing).toMatchObject({ code: 'missive::auth::env_missing', exitCode: 77 });
  });

  it('a pooled connection the server drops is reported once, and the process goes on', async () => {
    const reported: string[] = [];
    const pool = await open(selection(db.url), {}, { onError: (message) => reported.push(message) });
    try {
      const clients = await Promise.all([pool.connect(), pool.connect()]);
      for (const c of clients) c.release();
      await withAdminClient((c) =>
        c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'missive' AND datname = $1", [db.name]),
      );
      await expect.poll(() => reported.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(reported).toHaveLength(1);
      expect(reported[0]).toContain(`postgres://postgres:***@`);
      expect(reported[0]).not.toContain(password());
      // The pool replaces the connections it lost.
      expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    } finally {
      await pool.end();
    }
  });
});

describe('the CLI on a PostgreSQL store', () => {
  let db: FreshDatabase;
  beforeAll(async () => (db = await freshPostgresUrl()));
  afterAll(() => db.drop());
  const password = () => new URL(db.url).password;

  it('an unreachable store: exit 75 with the URL, never the password', async () => {
    const url = withUrl(db.url, { port: await closedPort() });
    const res = await box.run(['agent', 'list', '--json', '--store', url]);
    expect(res.code, res.stdout + res.stderr).toBe(75);
    const error = errorOf(res);
    expect(error.code).toBe('missive::storage::store_unreachable');
    expect(error.message).toContain('postgres://postgres:***@127.0.0.1:');
    expect(res.stdout + res.stderr).not.toContain(password());
  });

  it('a wrong password: exit 77', async () => {
    const res = await box.run(['agent', 'list', '--json'], { env: { MISSIVE_STORE_URL: withUrl(db.url, { password: 'wrong-pass-6620' }) } });
    expect(res.code, res.stdout + res.stderr).toBe(77);
    expect(errorOf(res).code).toBe('missive::auth::store_auth_failed');
    expect(res.stdout + res.stderr).not.toContain('wrong-pass-6620');
  });

  it('the password is scrubbed even where the server repeats it (a database named like it)', async () => {
    const res = await box.run(['agent', 'list', '--json', '--store', withUrl(db.url, { database: password() })]);
    expect(res.code).toBe(75);
    expect(errorOf(res).code).toBe('missive::storage::store_database_missing');
    expect(res.stdout + res.stderr).not.toContain(password());
  });

  it('connects over TLS: sslmode=require, and verify-full with sslrootcert', async () => {
    for (const search of ['?sslmode=require', `?sslmode=verify-full&sslrootcert=${encodeURIComponent(postgresCaFile())}`]) {
      const res = await box.run(['agent', 'list', '--json', '--store', withUrl(db.url, { search })]);
      expect(res.code, `${search}: ${res.stdout}${res.stderr}`).toBe(0);
      expect(res.stdout + res.stderr).not.toContain(password());
    }
    const untrusted = await box.run(['agent', 'list', '--json', '--store', withUrl(db.url, { search: '?sslmode=verify-full' })]);
    expect(untrusted.code).toBe(75);
    expect(errorOf(untrusted).code).toBe('missive::storage::store_tls_failed');
  });

  it('doctor checks store.postgres: reachable and the schema, instead of the SQLite file', async () => {
    const url = withUrl(db.url, { password: '' });
    const env = { MISSIVE_STORE_URL: url, PGPASSWORD: password() };
    const before = await box.run(['doctor', '--json'], { env });
    const check = before.json().data.checks.find((c: { name: string }) => c.name === 'store.postgres');
    expect(check, before.stdout).toBeDefined();
    expect(before.json().data.checks.map((c: { name: string }) => c.name)).not.toContain('store.sqlite_migrations');
    expect(check.details).toMatchObject({ schema: 'missive_default', url });
    expect(['ok', 'warn']).toContain(check.status);
    // Once a command has used the store, its schema is current.
    expect((await box.run(['agent', 'list', '--json'], { env })).code).toBe(0);
    const after = (await box.run(['doctor', '--json'], { env })).json().data.checks.find((c: { name: string }) => c.name === 'store.postgres');
    expect(after).toMatchObject({ status: 'ok' });
    const down = await box.run(['doctor', '--json'], { env: { ...env, MISSIVE_STORE_URL: withUrl(url, { port: await closedPort() }) } });
    expect(down.code).toBe(75);
    expect(down.json().data.checks.find((c: { name: string }) => c.name === 'store.postgres')).toMatchObject({
      status: 'fail',
      details: { code: 'missive::storage::store_unreachable' },
    });
    expect(before.stdout + after + down.stdout).not.toContain(password());
  });
});
