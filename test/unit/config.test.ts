import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MissiveError } from '../../shared/errors.js';
import { loadConfig, parseConfigText } from '../../electron/core/config/load.js';
import { statePaths } from '../../electron/core/config/paths.js';
import { parseDuration } from '../../electron/core/config/duration.js';

const docsConfig = join(dirname(fileURLToPath(import.meta.url)), '../../docs/config.md');

/** The ```toml block under "## Example" in docs/config.md, verbatim. */
function docsExample(): string {
  const text = readFileSync(docsConfig, 'utf8');
  const section = text.slice(text.indexOf('\n## Example\n'));
  const match = /```toml\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('no toml example under "## Example" in docs/config.md');
  return match[1]!;
}

const tmp = () => mkdtempSync(join(tmpdir(), 'missive-config-'));

function expectConfigError(fn: () => unknown, pattern: RegExp) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MissiveError);
    expect((error as MissiveError).exitCode).toBe(78);
    expect((error as MissiveError).message).toMatch(pattern);
    return;
  }
  throw new Error('expected a config error');
}

describe('config', () => {
  it('rejects unknown keys with the key named', () => {
    expectConfigError(() => parseConfigText('[qos]\nmax_request_byts = 10\n', 'cfg.toml'), /qos: unknown key "max_request_byts"/);
  });

  it('rejects URLs with embedded credentials', () => {
    expectConfigError(
      () => parseConfigText('[agents.echo]\nbase_url = "http://user:pw@localhost:1"\n', 'c'),
      /agents\.echo\.base_url: must not embed credentials/,
    );
  });

  it('rejects redefining A2A-Version and A2A-Extensions as service parameters', () => {
    expectConfigError(() => parseConfigText('[protocol.service_parameters]\n"A2A-Version" = "2.0"\n', 'c'), /A2A-Version is set by missive/);
    expectConfigError(() => parseConfigText('[protocol.service_parameters]\n"a2a-extensions" = "x"\n', 'c'), /a2a-extensions is set by missive/);
  });

  it('reports TOML syntax errors with line numbers', () => {
    expectConfigError(() => parseConfigText('[qos\n', 'bad.toml'), /bad\.toml:1:\d+: not valid TOML: /);
  });

  it('follows the discovery order: --config, MISSIVE_CONFIG, repo-local (opt-in), XDG, defaults', () => {
    const dir = tmp();
    const flag = join(dir, 'flag.toml');
    const envFile = join(dir, 'env.toml');
    writeFileSync(flag, '[qos]\nmax_request_bytes = 1\n');
    writeFileSync(envFile, '[qos]\nmax_request_bytes = 2\n');
    mkdirSync(join(dir, 'repo', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'repo', 'missive.toml'), '[qos]\nmax_request_bytes = 3\n');
    mkdirSync(join(dir, 'xdg', 'missive'), { recursive: true });
    writeFileSync(join(dir, 'xdg', 'missive', 'config.toml'), '[qos]\nmax_request_bytes = 4\n');
    const cwd = join(dir, 'repo', 'sub');
    const env = { XDG_CONFIG_HOME: join(dir, 'xdg'), XDG_CONFIG_DIRS: join(dir, 'none') };
    expect(loadConfig({ configFlag: flag, env: { ...env, MISSIVE_CONFIG: envFile }, cwd }).qos.maxRequestBytes).toBe(1);
    expect(loadConfig({ env: { ...env, MISSIVE_CONFIG: envFile }, cwd }).qos.maxRequestBytes).toBe(2);
    expect(loadConfig({ env: { ...env, MISSIVE_REPO_CONFIG: '1' }, cwd }).qos.maxRequestBytes).toBe(3);
    const xdg = loadConfig({ env, cwd });
    expect(xdg.qos.maxRequestBytes).toBe(4);
    expect(xdg.source.kind).toBe('xdg');
    const defaults = loadConfig({ env: { XDG_CONFIG_HOME: join(dir, 'nothing'), XDG_CONFIG_DIRS: join(dir, 'none') }, cwd });
    expect(defaults.source.kind).toBe('defaults');
    expect(defaults.qos.maxRequestBytes).toBe(1_048_576);
  });

  it('a missing --config file is a config error', () => {
    expectConfigError(() => loadConfig({ configFlag: 'nope.toml', env: {}, cwd: tmp() }), /does not exist/);
  });

  it('applies profile overrides and refuses unknown profiles', () => {
    const file = join(tmp(), 'c.toml');
    writeFileSync(
      file,
      [
        'default_profile = "work"',
        '[protocol]',
        'protocol_version = "1.0"',
        'extensions = ["urn:a"]',
        '[profiles.work.qos]',
        'max_request_bytes = 99',
        '[profiles.work.protocol]',
        'extensions = ["urn:b"]',
      ].join('\n'),
    );
    const cfg = loadConfig({ configFlag: file, env: {}, cwd: tmp() });
    expect(cfg.profile).toBe('work');
    expect(cfg.qos.maxRequestBytes).toBe(99);
    expect(cfg.protocol.extensions).toEqual(['urn:b']);
    expectConfigError(() => loadConfig({ configFlag: file, profileFlag: 'ghost', env: {}, cwd: tmp() }), /profile "ghost" is not defined/);
  });

  it('auth refs hold locations, never raw tokens', () => {
    expectConfigError(() => parseConfigText('[auth_refs.main]\nkind = "env"\ntoken = "abc"\n', 'c'), /unknown key "token"/);
    expect(parseConfigText('[auth_refs.main]\nkind = "env"\nenv = "MAIN_TOKEN"\n', 'c').auth_refs?.main?.env).toBe('MAIN_TOKEN');
  });

  it('places per-profile state under MISSIVE_HOME or XDG', () => {
    expect(statePaths('work', { MISSIVE_HOME: '/m' }, '/').database).toBe('/m/state/profiles/work/missive.sqlite3');
    expect(statePaths('default', { XDG_STATE_HOME: '/s', XDG_DATA_HOME: '/d', XDG_CACHE_HOME: '/c' }, '/').state).toBe('/s/missive/profiles/default');
  });

  it('parses durations and rejects zero', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2m')).toBe(120_000);
    expect(() => parseDuration('0s')).toThrow(/greater than zero/);
    expect(() => parseDuration('10')).toThrow(/not a duration/);
  });

  it('loads the example of docs/config.md as written, with every profile it defines', () => {
    const dir = tmp();
    const file = join(dir, 'config.toml');
    writeFileSync(file, docsExample());
    const cfg = loadConfig({ configFlag: file, env: {}, cwd: dir });
    expect(cfg.agents.search?.interface_urls).toEqual({ 'json-rpc': 'http://127.0.0.1:41250/a2a/jsonrpc' });
    expect(cfg.agents.bank?.client_tls?.passphrase_ref).toBe('bank-key');
    expect(cfg.profiles).toEqual(['default', 'work']);
    expect(loadConfig({ configFlag: file, profileFlag: 'work', env: {}, cwd: dir }).qos.timeoutMs).toBe(120_000);
    // The README's first steps (`missive agent add echo`) work beside it: it seeds no agent of that alias.
    expect(Object.keys(cfg.agents)).not.toContain('echo');
    // Every key it sets is read by something.
    expect(cfg.ignoredKeys).toEqual([]);
    expect(cfg.webhook).toMatchObject({ port: 7348, path: '/a2a/push', authTokenEnv: 'MISSIVE_PUSH_TOKEN' });
    expect(cfg.gateway.jobConcurrency).toBe(16);
  });

  it('still loads [gateway] keys of earlier versions that nothing reads, and lists them to be warned about', () => {
    const dir = tmp();
    const file = join(dir, 'config.toml');
    writeFileSync(file, '[gateway]\nenabled = true\nbind_address = "127.0.0.1:7347"\njob_concurrency = 3\n');
    const cfg = loadConfig({ configFlag: file, env: {}, cwd: dir });
    expect(cfg.ignoredKeys).toEqual(['[gateway] enabled', '[gateway] bind_address']);
    expect(cfg.gateway.jobConcurrency).toBe(3);
  });

  it('takes a partial interface_urls (one binding, or two of three)', () => {
    const one = parseConfigText('[agents.a]\nbase_url = "http://127.0.0.1:1"\ninterface_urls = { grpc = "127.0.0.1:50051" }\n', 'c');
    expect(one.agents?.a?.interface_urls).toEqual({ grpc: '127.0.0.1:50051' });
    const two = parseConfigText(
      '[agents.a]\nbase_url = "http://127.0.0.1:1"\n[agents.a.interface_urls]\n"http+json" = "http://127.0.0.1:1/v1"\n"json-rpc" = "http://127.0.0.1:1/rpc"\n',
      'c',
    );
    expect(Object.keys(two.agents?.a?.interface_urls ?? {})).toEqual(['http+json', 'json-rpc']);
    expectConfigError(
      () => parseConfigText('[agents.a]\nbase_url = "http://127.0.0.1:1"\ninterface_urls = { soap = "http://x" }\n', 'c'),
      /agents\.a\.interface_urls/,
    );
  });

  it('names the file and line of a value the schema refuses', () => {
    const text = ['[qos]', 'timeout = "30s"', '', '[agents.echo]', 'base_url = "http://127.0.0.1:1"', 'tags = "demo"', '', '[webhook]', 'port = 99999'].join(
      '\n',
    );
    expectConfigError(() => parseConfigText(text, 'cfg.toml'), /cfg\.toml:6: agents\.echo\.tags: .*; cfg\.toml:9: webhook\.port: /);
    expectConfigError(() => parseConfigText('[qos]\nmax_request_byts = 10\n', 'cfg.toml'), /cfg\.toml:2: qos: unknown key "max_request_byts"/);
    expectConfigError(() => parseConfigText('x = 1\n[qos\n', 'bad.toml'), /bad\.toml:2:\d+: not valid TOML: /);
  });
});
