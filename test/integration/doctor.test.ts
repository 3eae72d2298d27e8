/** `doctor` reports what it sees and changes nothing; its exit code is that of the first failing check. */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { SCHEMA_VERSION } from '../../electron/core/store/db.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.dispose());

const check = (data: { checks: Array<{ name: string }> }, name: string) => data.checks.find((c) => c.name === name) as any;
const bin = new URL('../../bin/missive.js', import.meta.url).pathname;

describe('doctor', () => {
  it('does not create the database or any state on a fresh machine', async () => {
    const res = await box.run(['doctor', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(check(data, 'config.discovery_validation').details.source).toBe('defaults');
    expect(check(data, 'store.sqlite_migrations').status).toBe('warn');
    expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(false);
  });

  it('fails with the transport code of an unreachable agent and masks auth ref names', async () => {
    mkdirSync(join(box.home, 'config'), { recursive: true });
    writeFileSync(
      join(box.home, 'config/config.toml'),
      '[auth_refs.prodtoken]\nkind = "env"\nenv = "PROD_TOKEN"\n[agents.down]\nbase_url = "http://127.0.0.1:9"\nauth_ref = "prodtoken"\n',
    );
    const res = await box.run(['doctor', '--json'], { env: { PROD_TOKEN: 'doctor-secret-123' } });
    expect(res.code).toBe(69);
    const endpoint = check(res.json().data, 'a2a.endpoint.down');
    expect(endpoint).toMatchObject({ status: 'fail', exit_code: 69 });
    expect(endpoint.details.auth_ref).toBe('pr***');
    expect(res.stdout).not.toContain('doctor-secret-123');
  });

  it('says where the CLI code cache is, and why it is not used when others can write a directory above it', async () => {
    const root = join(box.home, 'cache/code-cache');
    expect(check((await box.run(['doctor', '--json'])).json().data, 'cli.code_cache')).toMatchObject({
      status: 'ok',
      message: `${root}: none yet (the next command writes it)`,
    });
    // A real `missive` process writes it.
    await promisify(execFile)(process.execPath, [bin, 'agent', 'list', '--json'], { env: { PATH: process.env.PATH, ...box.env } });
    const written = check((await box.run(['doctor', '--json'])).json().data, 'cli.code_cache');
    expect(written).toMatchObject({ status: 'ok', details: { root, caches: 1 } });
    expect(written.details.bytes).toBeGreaterThan(0);
    // A group-writable directory above it (a umask of 002): the CLI skips the cache, and doctor says which and why.
    chmodSync(join(box.home, 'cache'), 0o775);
    const loose = await box.run(['doctor']);
    expect(loose.code).toBe(0);
    expect(loose.stdout).toContain(`cli.code_cache: not used: ${join(box.home, 'cache')} can be written by its group (mode 775)`);
    const json = check((await box.run(['doctor', '--json'])).json().data, 'cli.code_cache');
    expect(json).toMatchObject({ status: 'warn', details: { path: join(box.home, 'cache'), help: expect.stringMatching(/chmod go-w/) } });
    expect(check((await box.run(['doctor', '--json'], { env: { MISSIVE_NO_COMPILE_CACHE: '1' } })).json().data, 'cli.code_cache')).toMatchObject({
      status: 'skip',
      message: 'off: MISSIVE_NO_COMPILE_CACHE is set',
    });
  });

  it('reports the schema version of an existing store', async () => {
    await box.run(['agent', 'list']);
    const data = (await box.run(['doctor', '--json'])).json().data;
    expect(check(data, 'store.sqlite_migrations')).toMatchObject({ status: 'ok', details: { schema_version: SCHEMA_VERSION } });
  });

  it('reports an unknown profile as a failing config check, exit 78', async () => {
    const res = await box.run(['doctor', '--profile', 'ghost']);
    expect(res.code).toBe(78);
    expect(res.stdout).toMatch(/FAIL\s+config\.discovery_validation: .*profile "ghost" is not defined/);
  });

  it('reports a config file that does not parse as a failing check with file and line, and still runs the others', async () => {
    mkdirSync(join(box.home, 'config'), { recursive: true });
    const file = join(box.home, 'config/config.toml');
    writeFileSync(file, '[qos]\ntimeout = "30s"\n\n[agents.echo\nbase_url = "http://127.0.0.1:9"\n');
    const res = await box.run(['doctor', '--json']);
    expect(res.code).toBe(78);
    const data = res.json().data;
    expect(data.ok).toBe(false);
    expect(check(data, 'config.discovery_validation')).toMatchObject({
      status: 'fail',
      exit_code: 78,
      details: { path: file, line: 4, code: 'missive::config::invalid_toml' },
    });
    expect(check(data, 'config.discovery_validation').message).toMatch(/config\.toml:4:\d+: not valid TOML/);
    expect(check(data, 'binary.version').status).toBe('ok');
    expect(check(data, 'state.paths').status).toBe('ok');
    expect(check(data, 'store.sqlite_migrations').status).toBe('warn');
    expect(check(data, 'auth.keyring')).toBeDefined();
    expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(false);

    const human = await box.run(['doctor']);
    expect(human.code).toBe(78);
    expect(human.stdout).toMatch(new RegExp(`FAIL\\s+config\\.discovery_validation: .*${file.replace(/[.]/g, '\\.')}:4`));
    expect(human.stdout).toMatch(/ok\s+binary\.version/);
  });

  it('reports a config the schema refuses with the key and its file:line', async () => {
    const file = join(box.home, 'broken.toml');
    writeFileSync(file, '[agents.echo]\nbase_url = "http://127.0.0.1:9"\ntags = "demo"\n');
    const res = await box.run(['doctor', '--json'], { env: { MISSIVE_CONFIG: file } });
    expect(res.code).toBe(78);
    const config = check(res.json().data, 'config.discovery_validation');
    expect(config).toMatchObject({ status: 'fail', details: { source: 'env', path: file, line: 3, code: 'missive::config::invalid_config' } });
    expect(config.message).toContain(`${file}:3: agents.echo.tags`);
  });

  it('reports a --config file that does not exist as a failing check', async () => {
    const res = await box.run(['doctor', '--json', '--config', 'nowhere.toml']);
    expect(res.code).toBe(78);
    expect(check(res.json().data, 'config.discovery_validation')).toMatchObject({ status: 'fail', details: { code: 'missive::config::config_not_found' } });
  });
});
