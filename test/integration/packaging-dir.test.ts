/**
 * A real electron-builder run (`--dir --linux`) of build/electron-builder.json into a scratch folder, then the packaged
 * file list and the `missive` launcher on it. Electron cannot be downloaded here, so electronDist is a stand-in
 * binary that, like Electron with ELECTRON_RUN_AS_NODE=1, runs its first argument as a Node script; the afterPack hook
 * (which fetches Electron's prebuilt binaries or headers) is switched off and tested in test/unit/packaging.test.ts.
 * Everything else is electron-builder's own: file matching, asar packing and unpacking, extraResources.
 * Needs the built app in dist/ (`npm run build`, which CI runs before the tests).
 */
import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const asar = require('@electron/asar') as { listPackage(file: string): string[]; extractAll(file: string, dest: string): void };
const root = process.cwd();
const config = JSON.parse(readFileSync(join(root, 'build/electron-builder.json'), 'utf8'));
const BUILT = ['dist/electron/main/index.js', 'dist/electron/preload/index.cjs', 'dist/renderer/index.html', 'dist/cli/missive.js'];

let scratch = '';
let appDir = ''; // <out>/linux-unpacked: what the deb installs as /opt/missive and the AppImage mounts
let files: string[] = []; // app.asar's listing, '/dist/...'

/** A stand-in Electron: with ELECTRON_RUN_AS_NODE=1 it runs its arguments with Node, as Electron does. */
function standInElectron(file: string, label = 'electron'): void {
  writeFileSync(
    file,
    `#!/bin/sh\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] || { echo "stand-in ${label}: no GUI here" >&2; exit 3; }\nexec ${JSON.stringify(process.execPath)} "$@"\n`,
    { mode: 0o755 },
  );
}

beforeAll(async () => {
  const missing = BUILT.filter((f) => !existsSync(join(root, f)));
  if (missing.length) throw new Error(`the app is not built (${missing.join(', ')} missing): run \`npm run build\` first`);
  scratch = mkdtempSync(join(tmpdir(), 'missive-packaging-dir-'));
  const electronDist = join(scratch, 'electron-dist');
  mkdirSync(join(electronDist, 'resources'), { recursive: true });
  standInElectron(join(electronDist, 'electron'));
  writeFileSync(join(electronDist, 'LICENSE'), 'stand-in\n');
  const output = join(scratch, 'out');
  const configFile = join(scratch, 'electron-builder.json');
  writeFileSync(configFile, JSON.stringify({ ...config, electronDist, afterPack: null, directories: { ...config.directories, output } }));
  const arch = process.arch === 'arm64' ? '--arm64' : '--x64';
  const cli = join(root, 'node_modules/electron-builder/cli.js');
  try {
    await promisify(execFile)(process.execPath, [cli, '--config', configFile, '--dir', '--linux', arch, '--publish', 'never'], {
      cwd: root,
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`electron-builder failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
  const unpacked = readdirSync(output).find((d) => /^linux(-\w+)?-unpacked$/.test(d));
  if (!unpacked) throw new Error(`no linux-unpacked folder in ${readdirSync(output).join(', ')}`);
  appDir = join(output, unpacked);
  files = asar.listPackage(join(appDir, 'resources/app.asar')).map((f) => f.replaceAll('\\', '/'));
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packaged app (electron-builder --dir --linux)', () => {
  it('app.asar holds the main process, the preload, the renderer and the bundled CLI', () => {
    expect(files).toEqual(expect.arrayContaining(['/package.json', ...BUILT.map((f) => `/${f}`), '/bin/missive.js']));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(config.extraMetadata.main).toBe(pkg.main);
  });

  it("app.asar holds every script and stylesheet the renderer's index.html loads", () => {
    const html = readFileSync(join(root, 'dist/renderer/index.html'), 'utf8');
    const refs = [...html.matchAll(/(?:src|href)="\.?\/?([^"#?]+\.(?:js|css))"/g)].map((m) => `/dist/renderer/${m[1]}`);
    expect(refs.length).toBeGreaterThan(0);
    expect(files).toEqual(expect.arrayContaining(refs));
  });

  it('app.asar holds the tray and window icons the main process loads from build/icons', () => {
    expect(files).toEqual(
      expect.arrayContaining(['tray.png', 'tray@2x.png', 'trayTemplate.png', 'trayTemplate@2x.png', '512x512.png'].map((f) => `/build/icons/${f}`)),
    );
  });

  it('holds no sources, tests or development packages', () => {
    const unwanted = files.filter((f) =>
      /^\/(electron|renderer|shared|test|bench|docs|release)\/|^\/node_modules\/(electron|electron-builder|vitest|playwright-core|typescript|vite)\//.test(f),
    );
    expect(unwanted).toEqual([]);
  });

  it("app.asar.unpacked holds better-sqlite3's binding (and keytar's, when installed) without build leftovers", () => {
    const unpacked = join(appDir, 'resources/app.asar.unpacked');
    const nodeFiles = (readdirSync(unpacked, { recursive: true }) as string[]).filter((f) => f.endsWith('.node')).map((f) => f.replaceAll('\\', '/'));
    expect(nodeFiles).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    const keytarInstalled = existsSync(join(root, 'node_modules/keytar/package.json'));
    if (process.env.MISSIVE_REQUIRE_KEYRING === '1') expect(keytarInstalled).toBe(true);
    expect(nodeFiles.some((f) => f.startsWith('node_modules/keytar/') && f.endsWith('keytar.node'))).toBe(keytarInstalled);
    const expected = /^node_modules\/(better-sqlite3\/build\/Release\/better_sqlite3|keytar\/build\/Release\/keytar)\.node$/;
    expect(nodeFiles.filter((f) => !expected.test(f))).toEqual([]); // no test_extension.node, no prebuilds for other systems
    expect(existsSync(join(unpacked, 'node_modules/better-sqlite3/deps'))).toBe(false);
    // asar entries for the unpacked files, so Electron reads them through the app.asar path
    expect(files).toContain('/node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  });

  it('ships the launcher as an executable resources/bin/missive beside the missive-desktop binary, and no Windows launcher', () => {
    const launcher = join(appDir, 'resources/bin/missive');
    expect(readFileSync(launcher, 'utf8')).toBe(readFileSync(join(root, 'build/missive-launcher.sh'), 'utf8'));
    expect(statSync(launcher).mode & 0o111).not.toBe(0);
    expect(statSync(join(appDir, config.linux.executableName)).mode & 0o111).not.toBe(0);
    expect(readdirSync(join(appDir, 'resources/bin'))).toEqual(['missive']);
  });
});

describe('the `missive` launcher on the packaged layout', () => {
  /**
   * The packaged tree as Electron sees it: app.asar extracted into a folder of the same name (its unpacked files
   * merged in, as Electron's asar reader does), the stand-in as missive-desktop. A Linux install: /opt/missive.
   */
  let opt = '';
  let home = '';
  beforeAll(() => {
    opt = join(scratch, 'opt/missive');
    cpSync(appDir, opt, { recursive: true });
    rmSync(join(opt, 'resources/app.asar'));
    asar.extractAll(join(appDir, 'resources/app.asar'), join(opt, 'resources/app.asar'));
    standInElectron(join(opt, config.linux.executableName));
    home = join(scratch, 'home');
    mkdirSync(join(home, '.local/bin'), { recursive: true });
  });
  const run = (command: string, args: string[]) =>
    spawnSync(command, args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, MISSIVE_HOME: join(home, 'missive') }, timeout: 60_000 });

  it('runs the packaged CLI through the deb link /usr/bin/missive (absolute symlink), opening its SQLite store', () => {
    const usrBin = join(scratch, 'usr/bin');
    mkdirSync(usrBin, { recursive: true });
    symlinkSync(join(opt, 'resources/bin/missive'), join(usrBin, 'missive'));
    const result = run(join(usrBin, 'missive'), ['history', 'list', '--json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, kind: 'history_list' });
    expect(existsSync(join(home, 'missive/state/profiles/default/missive.sqlite3'))).toBe(true);
  });

  it('follows a chain of relative symlinks (~/.local/bin/missive, as for an extracted AppImage) and passes the exit code on', () => {
    const link = join(home, '.local/bin/missive');
    const middle = join(scratch, 'middle-link');
    symlinkSync(relative(scratch, join(opt, 'resources/bin/missive')), middle);
    symlinkSync(relative(join(home, '.local/bin'), middle), link);
    const ok = run(link, ['--version']);
    expect(ok.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const usage = run(link, ['no-such-command']);
    expect(usage.status).toBe(64);
    expect(usage.stderr).toContain("unknown command 'no-such-command'");
  });

  it("on macOS's layout runs Contents/MacOS/missive with Contents/Resources/app.asar/bin/missive.js", () => {
    const contents = join(scratch, 'missive.app/Contents');
    mkdirSync(join(contents, 'Resources/bin'), { recursive: true });
    mkdirSync(join(contents, 'MacOS'), { recursive: true });
    copyFileSync(join(root, 'build/missive-launcher.sh'), join(contents, 'Resources/bin/missive'));
    chmodSync(join(contents, 'Resources/bin/missive'), 0o755);
    writeFileSync(join(contents, 'MacOS/missive'), '#!/bin/sh\necho "as-node=$ELECTRON_RUN_AS_NODE"\nfor a in "$@"; do echo "arg=$a"; done\n', { mode: 0o755 });
    const result = run(join(contents, 'Resources/bin/missive'), ['send', 'my agent', 'hi']);
    expect(result.status).toBe(0);
    const resources = join(contents, 'Resources');
    expect(result.stdout.split('\n')).toEqual(['as-node=1', `arg=${resources}/app.asar/bin/missive.js`, 'arg=send', 'arg=my agent', 'arg=hi', '']);
  });

  it('exits 69 naming the fix when no app is beside it (a copied launcher)', () => {
    const lonely = join(scratch, 'lonely/resources/bin');
    mkdirSync(lonely, { recursive: true });
    copyFileSync(join(root, 'build/missive-launcher.sh'), join(lonely, 'missive'));
    chmodSync(join(lonely, 'missive'), 0o755);
    const result = run(join(lonely, 'missive'), ['--version']);
    expect(result.status).toBe(69);
    expect(result.stderr).toContain('reinstall missive, or link this launcher');
  });
});
