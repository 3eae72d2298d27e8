/** `missive config show`: the effective configuration, redacted, each value with where it came from. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.dispose());

type Value = { key: string; value: unknown; source: string; from: string };
const valueOf = (data: { values: Value[] }, key: string) => data.values.find((v) => v.key === key);

const CONFIG = [
  'default_profile = "work"', // 1
  '', // 2
  '[qos]', // 3
  'timeout = "45s"', // 4
  '', // 5
  '[protocol]', // 6
  'service_parameters = { "X-Tenant" = "blue", "X-Api-Key" = "svc-param-secret-1" }', // 7
  '', // 8
  '[auth_refs.prod]', // 9
  'kind = "env"', // 10
  'env = "PROD_TOKEN"', // 11
  '', // 12
  '[agents.echo]', // 13
  'base_url = "http://127.0.0.1:9"', // 14
  'auth_ref = "prod"', // 15
  'metadata = { owner = "ops", api_token = "meta-secret-22" }', // 16
  '', // 17
  '[profiles.work]', // 18
  'description = "work agents"', // 19
  '[profiles.work.qos]', // 20
  'connect_timeout = "3s"', // 21
].join('\n');

describe('config show', () => {
  it('says where every value came from: default, the file with its line, a profile, a flag, an env var', async () => {
    mkdirSync(join(box.home, 'config'), { recursive: true });
    const file = join(box.home, 'config/config.toml');
    writeFileSync(file, CONFIG);
    const res = await box.run(['config', 'show', '--json', '--protocol-version', '0.3'], { env: { PROD_TOKEN: 'prod-token-value-9' } });
    expect(res.code, res.stderr).toBe(0);
    const data = res.json().data;
    expect(res.json().kind).toBe('config_show');
    expect(data).toMatchObject({ config_file: file, config_source: 'home', profile: 'work' });
    expect(valueOf(data, 'config_file')).toMatchObject({ value: file, source: 'env', from: 'MISSIVE_HOME' });
    expect(valueOf(data, 'profile')).toMatchObject({ value: 'work', source: 'file', from: `${file}:1` });
    expect(valueOf(data, 'qos.timeout')).toMatchObject({ value: '45s', source: 'file', from: `${file}:4` });
    expect(valueOf(data, 'qos.connect_timeout')).toMatchObject({ value: '3s', source: 'profile', from: `${file}:21` });
    expect(valueOf(data, 'qos.retry_backoff')).toMatchObject({ value: '250ms', source: 'default', from: 'built-in default' });
    expect(valueOf(data, 'protocol.protocol_version')).toMatchObject({ value: '0.3', source: 'flag', from: '--protocol-version' });
    expect(valueOf(data, 'output.format')).toMatchObject({ value: 'json', source: 'flag', from: '--json' });
    expect(valueOf(data, 'state_dir')).toMatchObject({ source: 'env', from: 'MISSIVE_HOME' });
    expect(valueOf(data, 'agents.echo.base_url')).toMatchObject({ value: 'http://127.0.0.1:9', source: 'file', from: `${file}:14` });
    expect(valueOf(data, 'auth_refs.prod.env')).toMatchObject({ value: 'PROD_TOKEN', from: `${file}:11` });
    expect(valueOf(data, 'protocol.service_parameters.X-Tenant')).toMatchObject({ value: 'blue', from: `${file}:7` });
  });

  it('redacts secrets: secret-like keys in the file and the values of the env vars it names', async () => {
    const file = join(box.home, 'c.toml');
    writeFileSync(file, CONFIG);
    const env = { PROD_TOKEN: 'prod-token-value-9' };
    for (const args of [
      ['config', 'show'],
      ['config', 'show', '--json'],
    ]) {
      const res = await box.run([...args, '--config', file], { env });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).not.toContain('svc-param-secret-1');
      expect(res.stdout).not.toContain('meta-secret-22');
      expect(res.stdout).not.toContain('prod-token-value-9');
      expect(res.stdout).toContain('[REDACTED]');
      expect(res.stdout).toContain('owner');
    }
  });

  it('prints a table of key, value and origin; flags win over the file', async () => {
    const file = join(box.home, 'c.toml');
    writeFileSync(file, CONFIG);
    const res = await box.run(['config', 'show', '--config', file, '--profile', 'default', '--timeout', '2m']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^KEY\s+VALUE\s+FROM$/m);
    expect(res.stdout).toMatch(/^config_file\s+\S+c\.toml\s+--config$/m);
    expect(res.stdout).toMatch(/^profile\s+default\s+--profile$/m);
    expect(res.stdout).toMatch(/^qos\.timeout\s+2m\s+--timeout$/m);
    expect(res.stdout).toMatch(/^qos\.connect_timeout\s+10s\s+built-in default$/m);
  });

  it('with no config file: built-in defaults only', async () => {
    const res = await box.run(['config', 'show', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const data = res.json().data;
    expect(data.config_file).toBeNull();
    expect(valueOf(data, 'qos.timeout')).toMatchObject({ value: '30s', source: 'default' });
    expect(data.values.filter((v: Value) => v.source === 'file')).toEqual([]);
  });

  it('a broken config is exit 78 naming its file and line (doctor reports it as a check)', async () => {
    const file = join(box.home, 'c.toml');
    writeFileSync(file, '[qos]\ntimeout = 30\n');
    const res = await box.run(['config', 'show', '--config', file]);
    expect(res.code).toBe(78);
    expect(res.stderr).toContain(`${file}:2: qos.timeout`);
  });
});
