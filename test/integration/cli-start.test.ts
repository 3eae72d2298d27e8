/**
 * The CLI loads only the module of the command it runs (command-modules.ts) and ships as a rolldown bundle
 * (dist/cli): whatever is loaded, every command must still be reachable, with the same help and errors.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMAND_MODULES, commandNameOf } from '../../electron/cli/command-modules.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

let box: Sandbox | undefined;
afterEach(() => box?.dispose());

describe('CLI start-up', () => {
  it('finds the command after global options that take a value', () => {
    const valueFlags = new Set(['--config', '--profile', '--timeout']);
    expect(commandNameOf(['--timeout', '5s', '--profile', 'x', 'agent', 'list'], valueFlags)).toBe('agent');
    expect(commandNameOf(['--timeout=5s', '--json', 'events', 'list'], valueFlags)).toBe('events');
    expect(commandNameOf(['--json'], valueFlags)).toBeUndefined();
  });

  it('runs a command named after global options, and lists every command in --help', async () => {
    box = sandbox();
    const list = await box.run(['--timeout', '5s', '--profile', 'default', 'agent', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.json().ok).toBe(true);
    const help = await box.run(['--help']);
    expect(help.code).toBe(0);
    for (const name of COMMAND_MODULES.flatMap((m) => m.names)) expect(help.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
    const sub = await box.run(['group', '--help']);
    expect(sub.stdout).toMatch(/create/);
  });

  it('suggests the right command for a typo (exit 64)', async () => {
    box = sandbox();
    const typo = await box.run(['agnet', 'list']);
    expect(typo.code).toBe(64);
    expect(typo.stderr).toMatch(/unknown command 'agnet'/);
    expect(typo.stderr).toMatch(/agent/);
  });

  it('refuses a duration no timer can wait (exit 64)', async () => {
    box = sandbox();
    const res = await box.run(['--timeout', '99999999999999999999s', 'agent', 'list']);
    expect(res.code).toBe(64);
    expect(res.stderr).toMatch(/too long: at most 596h/);
  });

  it('ships the bundle that bin/missive.js runs, with the package version', async () => {
    expect(existsSync(join(root, 'dist/cli/missive.js'))).toBe(true);
    box = sandbox();
    const env = { PATH: process.env.PATH, HOME: box.home, MISSIVE_HOME: box.home };
    const version = (await run(process.execPath, [join(root, 'bin/missive.js'), '--version'], { env })).stdout.trim();
    expect(version).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const bundled = await run(process.execPath, [join(root, 'dist/cli/missive.js'), 'agent', 'list', '--json'], { env });
    expect(JSON.parse(bundled.stdout).ok).toBe(true);
    const bundledVersion = await run(process.execPath, [join(root, 'dist/cli/missive.js'), '--version'], { env });
    expect(bundledVersion.stdout.trim()).toBe(version);
  });

  it('runs `agent list` through bin/missive.js without the ES module loader, zod, the TOML parser, node:crypto or child_process', async () => {
    box = sandbox();
    // What the process loaded, written at exit by a preloaded script: Node's own modules and the files required.
    const preload = join(box.home, 'loaded.cjs');
    const report = join(box.home, 'loaded.json');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache) })));\n`,
    );
    const env = { PATH: process.env.PATH, HOME: box.home, MISSIVE_HOME: box.home };
    await box.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000']);
    const list = await run(process.execPath, ['--require', preload, join(root, 'bin/missive.js'), 'agent', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).data.agents.map((a: { alias: string }) => a.alias)).toEqual(['echo']);
    const loaded = JSON.parse(readFileSync(report, 'utf8')) as { builtins: string[]; files: string[] };
    for (const builtin of ['internal/modules/esm/module_job', 'crypto', 'child_process']) expect(loaded.builtins).not.toContain(`NativeModule ${builtin}`);
    // On Linux a piped stdout is written without Node's stream stack (electron/cli/stdout.ts).
    if (process.platform === 'linux') expect(loaded.builtins).not.toContain('NativeModule net');
    const chunks = loaded.files.filter((f) => f.includes('/dist/cli/')).map((f) => f.replace(/.*\/dist\/cli\//, ''));
    expect(chunks).toContain('missive.js');
    expect(chunks.filter((f) => /^chunks\/(zod|smol-toml)-/.test(f))).toEqual([]);
  });

  it('compiles the bundle from a private code cache after its first run, with the same output (bin/compile-cache.js)', async () => {
    box = sandbox();
    const env = { PATH: process.env.PATH, HOME: box.home, MISSIVE_HOME: box.home };
    expect((await box.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000'])).code).toBe(0);
    const list = () => run(process.execPath, [join(root, 'bin/missive.js'), 'agent', 'list', '--json'], { env }).then((r) => r.stdout);
    const first = await list();
    const caches = join(box.home, 'cache/code-cache');
    const [cache, ...others] = readdirSync(caches);
    expect(others).toEqual([]);
    expect(statSync(join(caches, cache!)).mode & 0o777).toBe(0o700);
    const files = readdirSync(join(caches, cache!));
    expect(files).toContain(
      `missive.js.${statSync(join(root, 'dist/cli/missive.js')).size}.${Math.trunc(statSync(join(root, 'dist/cli/missive.js')).mtimeMs)}.v8`,
    );
    const written = Object.fromEntries(files.map((f) => [f, statSync(join(caches, cache!, f))]));
    for (const stat of Object.values(written)) expect(stat.mode & 0o777).toBe(0o600);
    // The second run compiles from the cache: V8 accepted every file (a rejected one would be written again).
    expect(await list()).toBe(first);
    for (const [f, stat] of Object.entries(written)) expect(statSync(join(caches, cache!, f)).mtimeMs).toBe(stat.mtimeMs);
    // Off, nothing is cached.
    const off = sandbox();
    try {
      const res = await run(process.execPath, [join(root, 'bin/missive.js'), 'agent', 'list', '--json'], {
        env: { PATH: process.env.PATH, HOME: off.home, MISSIVE_HOME: off.home, MISSIVE_NO_COMPILE_CACHE: '1' },
      });
      expect(JSON.parse(res.stdout).ok).toBe(true);
      expect(existsSync(join(off.home, 'cache/code-cache'))).toBe(false);
    } finally {
      off.dispose();
    }
  });

  it('sends with WebAssembly compiled by the baseline compiler only (no optimizing compile for undici to wait on at exit)', async () => {
    box = sandbox();
    const fleet = await startAgents({ echo: { behaviour: 'echo' } });
    try {
      await register(box, fleet.agents);
      const env = { PATH: process.env.PATH, HOME: box.home, MISSIVE_HOME: box.home };
      // V8 prints a line per WebAssembly function it compiles, and the compiler: llhttp, undici's HTTP parser.
      const sent = await run(process.execPath, ['--trace-wasm-compilation-times', join(root, 'bin/missive.js'), 'send', 'echo', 'ping', '--json'], { env });
      const compiled = sent.stdout.split('\n').filter((line) => line.startsWith('Compiled function'));
      expect(compiled.length).toBeGreaterThan(0);
      expect(compiled.filter((line) => / using Liftoff,/.test(line))).toEqual(compiled);
      const answer = sent.stdout.split('\n').find((line) => line.startsWith('{'));
      expect(answer).toBeDefined();
    } finally {
      await fleet.close();
    }
  });

  it('verifies migration checksums in the bundle as the modules do: opens their database, refuses an edited ledger (exit 75)', async () => {
    box = sandbox();
    const env = { PATH: process.env.PATH, HOME: box.home, MISSIVE_HOME: box.home };
    // Written by the plain modules (checksums hashed at open), read by the bundle (checksums computed when it was built).
    expect((await box.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000'])).code).toBe(0);
    const list = await run(process.execPath, [join(root, 'bin/missive.js'), 'agent', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).ok).toBe(true);
    const db = new Database(join(box.home, 'state/profiles/default/missive.sqlite3'));
    db.prepare(`UPDATE schema_migrations SET checksum = 'edited' WHERE version = 3`).run();
    db.close();
    const refused = await run(process.execPath, [join(root, 'bin/missive.js'), 'agent', 'list', '--json'], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(75);
    expect(JSON.parse(refused.stderr).data).toMatchObject({ code: 'missive::storage::migration_checksum' });
  });
});
