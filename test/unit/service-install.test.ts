/** `missive gateway install|uninstall|status`: rendered unit and plist parsed back, secrets refused, dry run, fake runner. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/program.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';

function box(extraEnv: NodeJS.ProcessEnv = {}) {
  const home = mkdtempSync(join(tmpdir(), 'missive-svc-'));
  const calls: string[][] = [];
  const run = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      env: { PATH: process.env.PATH, HOME: home, MISSIVE_HOME: home, ...extraEnv },
      cwd: home,
      io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: false },
      secrets: createMemorySecretStore(),
      service: {
        root: join(home, 'root'),
        uid: 501,
        runner: async (argv) => (calls.push([...argv]), { exit_code: 0, stdout: 'ActiveState=active\nSubState=running\n', stderr: '' }),
      },
    });
    return { code, stdout, stderr };
  };
  return { home, calls, run };
}

/** A tiny INI parser: section → key → values (systemd keys repeat). */
function parseIni(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      out[section] = {};
      continue;
    }
    const eq = line.indexOf('=');
    (out[section]![line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  return out;
}

describe('gateway install', () => {
  it('renders a systemd user unit that runs gateway run with an absolute MISSIVE_HOME', async () => {
    const b = box();
    const r = await b.run(['--json', 'gateway', 'install', '--platform', 'linux', '--env', 'LOG_LEVEL=debug']);
    expect(r.code, r.stderr).toBe(0);
    const path = join(b.home, '.config/systemd/user/missive-gateway.service');
    const unit = parseIni(readFileSync(path, 'utf8'));
    const exec = unit.Service!.ExecStart![0]!;
    expect(exec).toContain(`"${process.execPath}"`);
    expect(exec).toMatch(/bin\/missive\.js" "gateway" "run" "--profile" "default"$/);
    expect(unit.Service!.Environment).toEqual([`"MISSIVE_HOME=${b.home}"`, '"LOG_LEVEL=debug"']);
    expect(unit.Service!.Restart).toEqual(['on-failure']);
    expect(unit.Install!.WantedBy).toEqual(['default.target']);
    expect(b.calls).toEqual([
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', '--now', 'missive-gateway.service'],
    ]);
    expect(
      readFileSync(path, 'utf8')
        .replaceAll(b.home, '<HOME>')
        .replaceAll(process.execPath, '<NODE>')
        .replace(/"[^"]*bin\/missive\.js"/, '"<BIN>"'),
    ).toMatchSnapshot();
  });

  it('renders a launchd plist with ProgramArguments, EnvironmentVariables and KeepAlive', async () => {
    const b = box();
    const r = await b.run(['--json', 'gateway', 'install', '--platform', 'darwin', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const plist: string = JSON.parse(r.stdout).data.contents;
    const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(plist)![1]!;
    expect([...args.matchAll(/<string>(.*?)<\/string>/g)].map((m) => m[1]).slice(2)).toEqual(['gateway', 'run', '--profile', 'default']);
    expect(plist).toMatch(new RegExp(`<key>EnvironmentVariables</key>\\s*<dict>\\s*<key>MISSIVE_HOME</key>\\s*<string>${b.home}</string>`));
    expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/);
    expect(b.calls).toEqual([]);
  });

  it('--dry-run prints the file and the commands and writes nothing', async () => {
    const b = box();
    const r = await b.run(['gateway', 'install', '--platform', 'linux', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('would run: systemctl --user enable --now missive-gateway.service');
    expect(r.stdout).toContain('Restart=on-failure');
    expect(existsSync(join(b.home, '.config/systemd/user/missive-gateway.service'))).toBe(false);
    expect(b.calls).toEqual([]);
  });

  it('refuses secret-looking env names and values with exit 64', async () => {
    const b = box();
    for (const env of ['GITHUB_TOKEN=abc', 'API_KEY=x', 'HEADER=Bearer abcdef', 'URL=https://u:p@example.com/']) {
      const r = await b.run(['--json', 'gateway', 'install', '--platform', 'linux', '--dry-run', '--env', env]);
      expect(r.code).toBe(64);
      expect(r.stdout + r.stderr).toContain('auth ref');
    }
  });

  it('refuses a URL with a password as the config loader does (URL parser: no user, ?password=, unencoded #), writing nothing', async () => {
    const b = box();
    for (const env of [
      'MISSIVE_STORE_URL=postgres://:hunter2-pass@db.example/missive',
      'MISSIVE_STORE_URL=postgresql://db.example/missive?sslmode=require&password=hunter2-pass',
      'DATABASE_URL=mysql://:hunter2%40pass@db.example/app',
      'MISSIVE_STORE_URL=postgres://team:1234#hunter2-pass@db.example/missive',
    ]) {
      const r = await b.run(['--json', 'gateway', 'install', '--platform', 'linux', '--env', env]);
      expect(r.code, `${env}: ${r.stdout}${r.stderr}`).toBe(64);
      expect(JSON.parse(r.stdout || r.stderr).data.code).toBe('missive::validation::secret_env');
      expect(r.stdout + r.stderr).not.toContain('hunter2');
      expect(existsSync(join(b.home, '.config/systemd/user/missive-gateway.service'))).toBe(false);
    }
    // A store URL without a password (it comes from [store] password_env, a keyring ref or PGPASSWORD) and prose that
    // names an auth scheme are plain settings (the store the installing shell uses too: another one is refused, see
    // test/integration/gateway-install-team.test.ts).
    const team = box({ MISSIVE_STORE_URL: 'postgres://team@db.example:5432/missive?sslmode=require' });
    const r = await team.run([
      '--json',
      'gateway',
      'install',
      '--platform',
      'linux',
      '--dry-run',
      '--env',
      'MISSIVE_STORE_URL=postgres://team@db.example:5432/missive?sslmode=require',
      '--env',
      'NOTE=missive sends Bearer tokens only',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('MISSIVE_STORE_URL=postgres://team@db.example:5432/missive?sslmode=require');
  });

  it('refuses a relative MISSIVE_HOME', async () => {
    const b = box({ MISSIVE_HOME: 'rel/home' });
    const r = await b.run(['--json', 'gateway', 'install', '--platform', 'linux', '--dry-run']);
    expect(r.code).toBe(64);
  });

  it('--system writes under /etc/systemd/system; status and uninstall use the runner', async () => {
    const b = box();
    expect((await b.run(['gateway', 'install', '--platform', 'linux', '--system'])).code).toBe(0);
    const path = join(b.home, 'root/etc/systemd/system/missive-gateway.service');
    expect(readFileSync(path, 'utf8')).toContain('WantedBy=multi-user.target');
    const s = await b.run(['--json', 'gateway', 'status', '--platform', 'linux']);
    expect(JSON.parse(s.stdout).data.service).toMatchObject({ installed: true, scope: 'system', path, state: { ActiveState: 'active' } });
    expect((await b.run(['gateway', 'uninstall', '--platform', 'linux', '--system'])).code).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(b.calls.slice(-2)).toEqual([
      ['systemctl', 'disable', '--now', 'missive-gateway.service'],
      ['systemctl', 'daemon-reload'],
    ]);
  });
});
