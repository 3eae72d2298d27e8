/**
 * `gateway install` on a shared PostgreSQL store (team mode): the unit (or plist) it writes reaches the installing
 * shell's store, with the password from a file the unit names (systemd `LoadCredential=`, launchd
 * `MISSIVE_STORE_PASSWORD_FILE`) or from `~/.pgpass`, never in the unit itself. Each rendered file is parsed and its
 * program started as a child process with exactly its environment (plus what a systemd user manager gives: HOME, USER,
 * PATH, and CREDENTIALS_DIRECTORY holding a copy of each LoadCredential source, `%d` expanded to it): the gateway joins
 * the pool (`gateway status` on the shared database lists it) and runs a queued job against a real SDK echo agent. A
 * service that would use another store than the installing shell is refused (exit 78), as are a URL with a password
 * in `--env` and a password variable the shell lacks. `gateway status` and `doctor` say which store the installed
 * service uses. On the run's throw-away PostgreSQL cluster, as a role with a password; the CLI runs built (dist/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/program.js';
import { startEmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { sandbox, type CliResult, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, withAdminClient, withUrl } from '../support/postgres.js';
import { eventually, okData } from '../support/waits.js';

let agent: Awaited<ReturnType<typeof startEmbeddedAgent>>;
beforeAll(async () => (agent = await startEmbeddedAgent({ name: 'Echo', behaviour: 'echo' })));
afterAll(() => agent.close());

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  // Last made, first undone: the gateways before the homes, the database before its owner role.
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

interface Team {
  /** postgres://<role>@127.0.0.1:<port>/<db>: no password. */
  url: string;
  role: string;
  password: string;
  host: string;
  port: string;
  database: string;
}

/** A fresh database owned by a new role that logs in with a password (SCRAM). */
async function teamDatabase(): Promise<Team> {
  const db = await freshPostgresUrl();
  const role = `team_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  await withAdminClient(async (c) => {
    await c.query(`CREATE ROLE ${pg.escapeIdentifier(role)} LOGIN PASSWORD ${pg.escapeLiteral(password)}`);
    await c.query(`ALTER DATABASE ${pg.escapeIdentifier(db.name)} OWNER TO ${pg.escapeIdentifier(role)}`);
  });
  cleanups.push(async () => {
    await db.drop();
    await withAdminClient((c) => c.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(role)}`));
  });
  const url = withUrl(db.url, { user: role, password: '' });
  const parsed = new URL(url);
  return { url, role, password, host: parsed.hostname, port: parsed.port, database: db.name };
}

/** A home whose shell has `env`; `config` lines go to its config.toml. */
function home(env: NodeJS.ProcessEnv, config?: string[]): Sandbox {
  const box = sandbox(env);
  cleanups.push(() => box.dispose());
  if (config) {
    mkdirSync(join(box.home, 'config'), { recursive: true });
    writeFileSync(join(box.home, 'config/config.toml'), ['schema_version = "missive.config.v1"', ...config].join('\n'));
  }
  return box;
}

/** A missive command of the box's shell with the service manager faked (its commands recorded, each answering 0). */
async function withService(box: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult & { calls: string[][] }> {
  let stdout = '';
  let stderr = '';
  const calls: string[][] = [];
  const code = await runCli(args, {
    env: { ...box.env, ...env },
    cwd: box.home,
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: false },
    secrets: box.secrets,
    service: {
      root: join(box.home, 'root'),
      uid: process.getuid?.() ?? 0,
      runner: async (argv) => (calls.push([...argv]), { exit_code: 0, stdout: 'ActiveState=active\nSubState=running\n', stderr: '' }),
    },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout), calls };
}

const unitPath = (box: Sandbox) => join(box.home, '.config/systemd/user/missive-gateway.service');
const plistPath = (box: Sandbox) => join(box.home, 'Library/LaunchAgents/dev.missive.gateway.plist');

interface ServiceFile {
  argv: string[];
  env: Record<string, string>;
  /** systemd LoadCredential=ID:PATH. */
  credentials: Record<string, string>;
}

/** systemd's quoting of one word: `"…"` with `\\` and `\"` escapes. */
const unquote = (word: string) => (word.startsWith('"') && word.endsWith('"') ? word.slice(1, -1).replace(/\\(.)/g, '$1') : word);

/** A systemd unit's ExecStart words, Environment= assignments (specifiers `%d`, `%%` expanded) and LoadCredential= lines. */
function parseUnit(text: string, credentialsDir: string): ServiceFile {
  const out: ServiceFile = { argv: [], env: {}, credentials: {} };
  const specifiers = (value: string) => value.replace(/%([d%])/g, (_, c: string) => (c === 'd' ? credentialsDir : '%'));
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!m) continue;
    const [, key, value] = m as unknown as [string, string, string];
    if (key === 'ExecStart') out.argv = [...value.matchAll(/"(?:[^"\\]|\\.)*"|\S+/g)].map((w) => unquote(specifiers(w[0])));
    if (key === 'Environment') {
      const assignment = unquote(specifiers(value));
      out.env[assignment.slice(0, assignment.indexOf('='))] = assignment.slice(assignment.indexOf('=') + 1);
    }
    if (key === 'LoadCredential') out.credentials[value.slice(0, value.indexOf(':'))] = specifiers(value.slice(value.indexOf(':') + 1));
  }
  return out;
}

const xml = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** A launchd plist's ProgramArguments and EnvironmentVariables. */
function parsePlist(text: string): ServiceFile {
  const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)![1]!;
  const dict = /<key>EnvironmentVariables<\/key>\s*<dict>([\s\S]*?)<\/dict>/.exec(text)![1]!;
  return {
    argv: [...args.matchAll(/<string>([^<]*)<\/string>/g)].map((m) => xml(m[1]!)),
    env: Object.fromEntries([...dict.matchAll(/<key>([^<]*)<\/key>\s*<string>([^<]*)<\/string>/g)].map((m) => [xml(m[1]!), xml(m[2]!)])),
    credentials: {},
  };
}

interface Started {
  child: ChildProcess;
  output(): string;
}

/**
 * Starts what the service file runs, as its service manager would: exactly its environment, plus HOME, USER and PATH,
 * and (systemd) CREDENTIALS_DIRECTORY with a 0400 copy of each LoadCredential source. Nothing else is inherited.
 */
function startService(file: ServiceFile, serviceHome: string, credentialsDir?: string): Started {
  const env: NodeJS.ProcessEnv = { HOME: serviceHome, USER: userInfo().username, PATH: process.env.PATH, ...file.env };
  if (credentialsDir && Object.keys(file.credentials).length) {
    for (const [id, source] of Object.entries(file.credentials)) {
      copyFileSync(source, join(credentialsDir, id));
      chmodSync(join(credentialsDir, id), 0o400);
    }
    env.CREDENTIALS_DIRECTORY = credentialsDir;
  }
  const child = spawn(file.argv[0]!, file.argv.slice(1), { env, cwd: serviceHome, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => void (output += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => void (output += t));
  const exited = new Promise((resolve) => child.once('close', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return { child, output: () => output };
}

const credentialsDirectory = () => {
  const dir = mkdtempSync(join(tmpdir(), 'missive-creds-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/**
 * The started service joins the pool (`gateway status` of another home on the team's database lists its pid) and runs
 * a job queued there: the job succeeds, run by that gateway.
 */
async function joinsPoolAndRunsAJob(service: Started, team: Team, label: string): Promise<void> {
  const other = home({ MISSIVE_STORE_URL: withUrl(team.url, { password: team.password }) });
  const member = await eventually(
    `${label}: the service's gateway in the pool`,
    async () => {
      if (service.child.exitCode !== null) throw new Error(`${label}: the service exited ${service.child.exitCode}: ${service.output()}`);
      const status = okData(await other.run(['gateway', 'status', '--json']), 'gateway status');
      return (status.gateways as Array<{ pid: number; holder: string; expired: boolean }> | null)?.find((g) => g.pid === service.child.pid && !g.expired);
    },
    30_000,
    200,
  );
  okData(await other.run(['agent', 'add', 'echo', agent.baseUrl, '--json']), 'agent add');
  const job = okData(await other.run(['job', 'start', 'send', 'echo', `hello from ${label}`, '--json']), 'job start');
  const done = await eventually(
    `${label}: the queued job to end`,
    async () => {
      if (service.child.exitCode !== null) throw new Error(`${label}: the service exited ${service.child.exitCode}: ${service.output()}`);
      const jobs = okData(await other.run(['job', 'list', '--json']), 'job list').jobs as Array<{ job_id: string; state: string; last_run_by: string | null }>;
      const found = jobs.find((j) => j.job_id === job.job_id);
      return found && !['queued', 'running', 'retrying'].includes(found.state) && found;
    },
    30_000,
    200,
  );
  // Run by a gateway of the pool, and the service's is the only one on this fresh database.
  expect(done.state, `${label}: ${JSON.stringify(done)}\n${service.output()}`).toBe('succeeded');
  expect(done.last_run_by, label).toBeTruthy();
  const pool = okData(await other.run(['gateway', 'status', '--json']), 'gateway status').gateways as Array<{ holder: string; expired: boolean }>;
  expect(
    pool.filter((g) => !g.expired).map((g) => g.holder),
    label,
  ).toEqual([member.holder]);
  expect(service.output(), label).not.toContain(team.password);
}

/** Nothing the install wrote or printed holds the password. */
function expectNoPassword(team: Team, ...texts: string[]): void {
  for (const text of texts) expect(text).not.toContain(team.password);
}

describe('gateway install on a shared PostgreSQL store', () => {
  it("systemd: from a MISSIVE_STORE_URL shell with [store] password_env, the unit names the store and loads the password with LoadCredential; started with exactly the unit's environment, it joins the pool and runs a job", async () => {
    const team = await teamDatabase();
    const box = home({ MISSIVE_STORE_URL: team.url, TEAM_PG_PW: team.password }, ['[store]', 'password_env = "TEAM_PG_PW"']);
    const passwordFile = join(box.home, 'state/profiles/default/store-password');
    // --dry-run says where the password would go and writes nothing.
    const dry = await withService(box, ['gateway', 'install', '--platform', 'linux', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`password: from [store] password_env (TEAM_PG_PW), to be written to ${passwordFile} (0600)`);
    expect(existsSync(passwordFile)).toBe(false);
    expectNoPassword(team, dry.stdout, dry.stderr);
    const res = await withService(box, ['--json', 'gateway', 'install', '--platform', 'linux']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const text = readFileSync(unitPath(box), 'utf8');
    const creds = credentialsDirectory();
    const unit = parseUnit(text, creds);
    expect(unit.env).toMatchObject({ MISSIVE_HOME: box.home, MISSIVE_STORE_URL: team.url, MISSIVE_STORE_PASSWORD_FILE: join(creds, 'missive-store-password') });
    expect(unit.env.TEAM_PG_PW).toBeUndefined();
    expect(unit.credentials).toEqual({ 'missive-store-password': passwordFile });
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(passwordFile, 'utf8').trim()).toBe(team.password);
    expect(res.json().data.store).toMatchObject({
      kind: 'postgres',
      display: team.url,
      password_source: { via: 'credential', file: passwordFile, written: true },
    });
    expectNoPassword(team, text, res.stdout, res.stderr);
    await joinsPoolAndRunsAJob(startService(unit, box.home, creds), team, 'systemd + LoadCredential');
  }, 120_000);

  it('launchd: --store-password-file FILE is named by MISSIVE_STORE_PASSWORD_FILE; started with the plist environment, it joins the pool and runs a job', async () => {
    const team = await teamDatabase();
    const box = home({ MISSIVE_STORE_URL: team.url });
    const secret = join(box.home, 'pg-password');
    writeFileSync(secret, `${team.password}\n`, { mode: 0o600 });
    const res = await withService(box, ['--json', 'gateway', 'install', '--platform', 'darwin', '--store-password-file', secret]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const text = readFileSync(plistPath(box), 'utf8');
    const plist = parsePlist(text);
    expect(plist.env).toMatchObject({ MISSIVE_HOME: box.home, MISSIVE_STORE_URL: team.url, MISSIVE_STORE_PASSWORD_FILE: secret });
    expect(existsSync(join(box.home, 'state/profiles/default/store-password'))).toBe(false);
    expectNoPassword(team, text, res.stdout, res.stderr);
    await joinsPoolAndRunsAJob(startService(plist, box.home), team, 'launchd + password file');

    // A password file others can read is refused (exit 78), before anything is written.
    chmodSync(secret, 0o644);
    const loose = await withService(box, ['--json', 'gateway', 'install', '--platform', 'darwin', '--store-password-file', secret]);
    expect(loose.code, loose.stdout + loose.stderr).toBe(78);
    expect(loose.stdout + loose.stderr).toContain(`chmod 600 ${secret}`);
  }, 120_000);

  it('~/.pgpass and the URL from the config file: the unit adds neither a store URL nor a password; started, it joins the pool and runs a job', async () => {
    const team = await teamDatabase();
    const box = home({}, ['[store]', `url = "${team.url}"`]);
    writeFileSync(join(box.home, '.pgpass'), `${team.host}:${team.port}:${team.database}:${team.role}:${team.password}\n`, { mode: 0o600 });
    const res = await withService(box, ['--json', 'gateway', 'install', '--platform', 'linux']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const text = readFileSync(unitPath(box), 'utf8');
    const creds = credentialsDirectory();
    const unit = parseUnit(text, creds);
    expect(Object.keys(unit.env)).toEqual(['MISSIVE_HOME']);
    expect(unit.credentials).toEqual({});
    expect(res.json().data.store).toMatchObject({ kind: 'postgres', display: team.url, from: '[store] url', password_source: { via: 'pgpass' } });
    expectNoPassword(team, text, res.stdout, res.stderr);
    await joinsPoolAndRunsAJob(startService(unit, box.home, creds), team, '.pgpass + [store] url');
  }, 120_000);

  it("a password in the shell's MISSIVE_STORE_URL: the unit gets the URL without it, the password a 0600 file; started, it joins the pool and runs a job", async () => {
    const team = await teamDatabase();
    const box = home({ MISSIVE_STORE_URL: withUrl(team.url, { password: team.password }) });
    const res = await withService(box, ['--json', 'gateway', 'install', '--platform', 'linux']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const text = readFileSync(unitPath(box), 'utf8');
    const creds = credentialsDirectory();
    const unit = parseUnit(text, creds);
    expect(unit.env.MISSIVE_STORE_URL).toBe(team.url);
    expect(res.json().data.store.password_source).toMatchObject({ from: 'the URL of MISSIVE_STORE_URL', via: 'credential', written: true });
    expectNoPassword(team, text, res.stdout, res.stderr);
    await joinsPoolAndRunsAJob(startService(unit, box.home, creds), team, 'URL password moved to a file');
  }, 120_000);
});

describe('gateway install refuses a service that would not reach the shell’s store', () => {
  it('another store than the shell’s (exit 78), a URL with a password in --env (exit 64), a password variable the shell lacks (exit 77): nothing written', async () => {
    const team = await teamDatabase();
    const other = withUrl(team.url, { database: 'elsewhere' });
    const cases: Array<{ env: NodeJS.ProcessEnv; config?: string[]; args: string[]; code: number; error: string; says: string }> = [
      // A SQLite shell installing a PostgreSQL service.
      {
        env: {},
        args: ['--env', `MISSIVE_STORE_URL=${team.url}`],
        code: 78,
        error: 'missive::config::service_store_mismatch',
        says: `the service would use PostgreSQL ${team.url}`,
      },
      // A shell on one database installing a service on another.
      {
        env: { MISSIVE_STORE_URL: team.url, PGPASSWORD: team.password },
        args: ['--env', `MISSIVE_STORE_URL=${other}`],
        code: 78,
        error: 'missive::config::service_store_mismatch',
        says: `not this shell's store, PostgreSQL ${team.url}`,
      },
      {
        env: { MISSIVE_STORE_URL: team.url },
        args: ['--env', `MISSIVE_STORE_URL=${withUrl(team.url, { password: team.password })}`],
        code: 64,
        error: 'missive::validation::secret_env',
        says: 'refusing to write it into a service file',
      },
      // The restart loop: [store] password_env names a variable the installing shell does not have.
      {
        env: { MISSIVE_STORE_URL: team.url },
        config: ['[store]', 'password_env = "TEAM_PG_PW"'],
        args: [],
        code: 77,
        error: 'missive::auth::env_missing',
        says: 'export TEAM_PG_PW=<the PostgreSQL password> and run gateway install again',
      },
    ];
    for (const c of cases) {
      const box = home(c.env, c.config);
      const res = await withService(box, ['--json', 'gateway', 'install', '--platform', 'linux', ...c.args]);
      const label = JSON.stringify(c.args);
      expect(res.code, `${label}: ${res.stdout}${res.stderr}`).toBe(c.code);
      const error = JSON.parse(res.stdout || res.stderr).data;
      expect(error.code, label).toBe(c.error);
      expect(`${error.message} ${error.help}`, label).toContain(c.says);
      expectNoPassword(team, res.stdout, res.stderr);
      expect(existsSync(unitPath(box)), label).toBe(false);
      expect(existsSync(join(box.home, 'state/profiles/default/store-password')), label).toBe(false);
      expect(res.calls, label).toEqual([]);
    }
  }, 60_000);
});

describe('gateway status and doctor name the store the installed service uses', () => {
  it('as this shell’s, then, from a shell on another store, as not this shell’s (a doctor warning)', async () => {
    const team = await teamDatabase();
    const box = home({ MISSIVE_STORE_URL: team.url, PGPASSWORD: team.password });
    expect((await withService(box, ['gateway', 'install', '--platform', 'linux'])).code).toBe(0);
    const passwordFile = join(box.home, 'state/profiles/default/store-password');

    const status = await withService(box, ['--json', 'gateway', 'status', '--platform', 'linux']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json().data.store).toMatchObject({ kind: 'postgres', display: team.url });
    expect(status.json().data.service.store).toEqual({
      kind: 'postgres',
      display: team.url,
      from: 'MISSIVE_STORE_URL',
      schema: 'missive_default',
      password_file: passwordFile,
      same_as_shell: true,
    });
    const human = await withService(box, ['gateway', 'status', '--platform', 'linux']);
    expect(human.stdout).toMatch(
      new RegExp(`service store +PostgreSQL ${team.url.replace(/[.?]/g, '\\$&')} \\(schema missive_default\\), password from ${passwordFile}, as this shell`),
    );
    const doctor = await withService(box, ['--json', 'doctor']);
    expect(doctor.json().data.checks.find((c: { name: string }) => c.name === 'service.store')).toMatchObject({
      status: 'ok',
      message: `missive-gateway.service (user) uses PostgreSQL ${team.url} (schema missive_default), as this shell does`,
    });
    expectNoPassword(team, status.stdout, human.stdout, doctor.stdout, doctor.stderr);

    // The same home from a shell without MISSIVE_STORE_URL: its SQLite file is not the service's store.
    const sqliteShell = { MISSIVE_STORE_URL: '', PGPASSWORD: '' };
    const apart = await withService(box, ['--json', 'gateway', 'status', '--platform', 'linux'], sqliteShell);
    expect(apart.code, apart.stderr).toBe(0);
    expect(apart.json().data.service.store).toMatchObject({ display: team.url, same_as_shell: false });
    const warned = await withService(box, ['--json', 'doctor'], sqliteShell);
    const check = warned.json().data.checks.find((c: { name: string }) => c.name === 'service.store');
    expect(check.status).toBe('warn');
    expect(check.message).toContain(`uses PostgreSQL ${team.url} (schema missive_default), not this shell's the SQLite file`);
  }, 60_000);
});
