/**
 * better-sqlite3 for two runtimes: the CLI and the tests load Node's build in node_modules, the desktop app from a
 * checkout loads a build for Electron's ABI kept beside the install, and building that one never touches Node's.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { closedPortUrl } from '../support/agents.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import { betterSqliteVersion, electronSqliteBinding, explainAbiMismatch, sqliteBindingFor } from '../../electron/core/store/native-binding.js';
import { isMissiveError } from '../../shared/errors.js';

const root = process.cwd();
const require = createRequire(import.meta.url);
const nodeBuild = join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
const electronAbi = readFileSync(join(root, 'node_modules/electron/abi_version'), 'utf8').trim();

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'missive-native-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const runtime = (over: Partial<Parameters<typeof sqliteBindingFor>[0]> = {}) => ({
  versions: { electron: '40.10.2', modules: electronAbi },
  packaged: false,
  root: dir,
  platform: 'linux',
  arch: 'x64',
  ...over,
});

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'build/electron-native.mjs'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const fingerprint = (path: string) => ({
  sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
  mtimeMs: statSync(path).mtimeMs,
  size: statSync(path).size,
});

describe('which better-sqlite3 build a process loads', () => {
  it('Node and the packaged app load the default build; the desktop app from a checkout loads the Electron build beside the install', () => {
    expect(sqliteBindingFor(runtime({ versions: { modules: process.versions.modules } }))).toBeUndefined();
    expect(sqliteBindingFor(runtime({ packaged: true }))).toBeUndefined();

    const expected = join(dir, 'native', `electron-${electronAbi}-linux-x64`, `better_sqlite3-${betterSqliteVersion()}.node`);
    let missing: unknown;
    try {
      sqliteBindingFor(runtime());
    } catch (error) {
      missing = error;
    }
    expect(isMissiveError(missing) && missing.code).toBe('missive::io::native_build_missing');
    expect((missing as Error).message).toContain(expected);
    expect(isMissiveError(missing) && missing.help).toContain('npm run native:electron');

    mkdirSync(join(dir, 'native', `electron-${electronAbi}-linux-x64`), { recursive: true });
    copyFileSync(nodeBuild, expected);
    expect(sqliteBindingFor(runtime())).toBe(expected);
  });

  it('puts the build where the desktop app looks for it (npm run native:electron -- --print-target)', async () => {
    const printed = await run(['--print-target'], {});
    expect(printed.code).toBe(0);
    const target = JSON.parse(printed.stdout);
    expect(target.abi).toBe(electronAbi);
    expect(target.out).toBe(electronSqliteBinding(root, { abi: electronAbi, platform: process.platform, arch: process.arch }));
  });

  it('passes the nativeBinding option through createCore to better-sqlite3, which loads that very file', async () => {
    const copy = join(dir, 'copy', 'better_sqlite3.node');
    mkdirSync(join(dir, 'copy'));
    copyFileSync(nodeBuild, copy);
    const core = createCore({ env: { MISSIVE_HOME: join(dir, 'home') }, cwd: dir, nativeBinding: copy });
    try {
      await core.storage();
      expect(Object.keys(require.cache)).toContain(copy);
    } finally {
      core.close();
    }

    const broken = createCore({ env: { MISSIVE_HOME: join(dir, 'home2') }, cwd: dir, nativeBinding: join(dir, 'absent.node') });
    await expect(broken.storage()).rejects.toThrow(/cannot open database .*absent\.node/);
  });

  it("names the fix when a native module was built for another runtime's ABI", () => {
    const error = new Error(
      "The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 143.",
    );
    const explained = explainAbiMismatch(error, '/opt/missive');
    expect(isMissiveError(explained) && explained.code).toBe('missive::io::native_abi_mismatch');
    expect(isMissiveError(explained) && explained.help).toContain('npm run native:electron -- --force');
    const other = new Error('disk full');
    expect(explainAbiMismatch(other, '/opt/missive')).toBe(other);
  });
});

describe('npm run native:electron when nothing can be downloaded', () => {
  it("exits 69 naming the fix, puts nothing in place, cleans its staging copy and leaves Node's build byte-identical", async () => {
    const before = fingerprint(nodeBuild);
    const closed = new URL(await closedPortUrl()).port;
    const out = join(dir, 'out', 'better_sqlite3.node');
    const temp = join(dir, 'tmp');
    mkdirSync(temp);
    const result = await run(['--force', '--dist-url', `http://127.0.0.1:${closed}`, '--out', out], {
      HOME: dir,
      TMPDIR: temp,
      // better-sqlite3's prebuilt binaries and Electron's headers: both from a loopback port nothing listens on.
      npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${closed}`,
    });
    expect(result.code).toBe(69);
    expect(result.stderr).toContain(`missive: cannot build better-sqlite3 for Electron`);
    expect(result.stderr).toContain(`ECONNREFUSED 127.0.0.1:${closed}`);
    expect(result.stderr).toContain('help: It needs the network once');
    expect(result.stderr).toContain('node_modules/better-sqlite3 was not changed');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(temp)).toEqual([]);
    expect(fingerprint(nodeBuild)).toEqual(before);
  });
});
