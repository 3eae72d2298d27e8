/**
 * `missive ui` as a user runs it (`node bin/missive.js ui`, built): it waits for the app to say its window is up and
 * then leaves it running, or exits 69 with the app's own reason; on first launch it runs Electron's own installer
 * with a progress line and says what to do when that fails. The app is the BUILT main process booted under Node with
 * the stand-in `electron` module (MISSIVE_ELECTRON_BINARY names a script standing for the Electron binary).
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { closedPortUrl } from '../support/agents.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_LAUNCHER, BUILT_MAIN, REGISTER, ROOT } from '../support/electron-stub/boot.js';
import { sandbox } from '../support/cli.js';
import { desktopCommand } from '../../electron/cli/electron-setup.js';

let dir: string;
const pids: number[] = [];

beforeAll(() => {
  expect(existsSync(BUILT_MAIN), 'build first: npm run build (npm test does)').toBe(true);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'missive-ui-'));
});
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A script standing for the Electron binary: `<it> <app dir> [switches]` boots that app's main under the stand-in. */
function fakeElectron(body = `exec "${process.execPath}" --import "${REGISTER}" "${APP_LAUNCHER}" "$@"`): string {
  const path = join(dir, 'electron.sh');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function missiveUi(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/missive.js'), 'ui', ...args], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        MISSIVE_HOME: join(dir, 'home'),
        DISPLAY: ':99',
        MISSIVE_ELECTRON_STUB_HOME: dir,
        MISSIVE_ELECTRON_STUB_REPORT: join(dir, 'stub.jsonl'),
        MISSIVE_ELECTRON_STUB_LOCK: join(dir, 'single-instance.lock'),
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const startedPid = (run: Run) => Number(/missive desktop started \(pid (\d+)\)/.exec(run.stdout)?.[1]);
const desktopLog = () => join(dir, 'home/state/profiles/default/logs/desktop.log');

describe('missive ui', () => {
  it('waits for the window, prints started, exits 0 and leaves the app running; a second launch brings it back', async () => {
    const binary = fakeElectron();
    const run = await missiveUi([], { MISSIVE_ELECTRON_BINARY: binary });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const pid = startedPid(run);
    pids.push(pid);
    expect(alive(pid)).toBe(true);
    // The app directory was launched (its package.json main), and the window was shown before "started".
    const stub = readFileSync(join(dir, 'stub.jsonl'), 'utf8');
    expect(stub).toContain('"event":"show"');

    const again = await missiveUi([], { MISSIVE_ELECTRON_BINARY: binary });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('missive desktop is already running: its window was brought to the front');
    expect(alive(pid)).toBe(true);

    // The app writes to its log, never to the terminal missive ui has left.
    expect(readFileSync(desktopLog(), 'utf8')).toContain('--- missive ui, ');
    process.kill(pid, 'SIGTERM');
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });

  it("exits 69 with the app's own reason when the app cannot start", async () => {
    // Electron from a checkout without the better-sqlite3 build for its ABI: the app fails and says why.
    const run = await missiveUi([], { MISSIVE_ELECTRON_BINARY: fakeElectron(), MISSIVE_ELECTRON_STUB_VERSION: '40.10.2' });
    expect(run.code).toBe(69);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('missive: io error: the desktop app could not start: better-sqlite3 has no build for Electron 40.10.2');
    expect(run.stderr).toContain('(missive::io::native_build_missing)');
    expect(run.stderr).toContain('help: Run `npm run native:electron`');
    expect(run.stderr).toContain(desktopLog());
  });

  it('exits 69 with what the app printed when it dies before its window opens', async () => {
    const run = await missiveUi([], { MISSIVE_ELECTRON_BINARY: fakeElectron("echo '[1234:ERROR] Missing X server or $DISPLAY' >&2; exit 1") });
    expect(run.code).toBe(69);
    expect(run.stderr).toContain('the desktop app exited with code 1 before its window opened; it printed: [1234:ERROR] Missing X server or $DISPLAY');
    expect(run.stderr).not.toContain('started');
  });

  it("runs Electron's own installer on first launch with a progress line, and exits 69 saying what to do when it fails", async () => {
    const closed = new URL(await closedPortUrl()).port;
    const electronDir = join(ROOT, 'node_modules/electron');
    const before = readdirSync(electronDir).sort();
    const empty = join(dir, 'no-electron-here');
    mkdirSync(empty);
    const run = await missiveUi([], {
      // No binary (whatever this machine has in node_modules/electron), and a download that cannot succeed.
      ELECTRON_OVERRIDE_DIST_PATH: empty,
      ELECTRON_MIRROR: `http://127.0.0.1:${closed}/`,
      electron_config_cache: join(dir, 'electron-cache'),
    });
    expect(run.code).toBe(69);
    expect(run.stderr).toMatch(/^missive: first launch: downloading Electron \d+\.\d+\.\d+ for linux-\w+ \(about 100 MB, once\)…$/m);
    expect(run.stderr).toContain(`missive: io error: could not download Electron`);
    expect(run.stderr).toContain(`ECONNREFUSED 127.0.0.1:${closed}`);
    expect(run.stderr).toContain('ELECTRON_MIRROR');
    expect(run.stderr).toContain('missive ui --web');
    // The installer's whole output is in the desktop log; node_modules/electron is as it was.
    expect(readFileSync(desktopLog(), 'utf8')).toContain('RequestError');
    expect(readdirSync(electronDir).sort()).toEqual(before);
  });

  it('says to unset ELECTRON_SKIP_BINARY_DOWNLOAD when it keeps the installer from downloading', async () => {
    const empty = join(dir, 'no-electron-here');
    mkdirSync(empty);
    const run = await missiveUi([], { ELECTRON_OVERRIDE_DIST_PATH: empty, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(run.code).toBe(69);
    expect(run.stderr).toContain('ELECTRON_SKIP_BINARY_DOWNLOAD is set');
    expect(run.stderr).toContain('Unset ELECTRON_SKIP_BINARY_DOWNLOAD');
  });

  it('on first launch builds better-sqlite3 for Electron beside the install, and exits 69 naming the fix when it cannot', async () => {
    // An installation of its own (so nothing is built into this checkout): package.json, the build script, a COPY of
    // the electron package, the real better-sqlite3 and @electron/rebuild linked in, an Electron binary present.
    const root = join(dir, 'install');
    mkdirSync(join(root, 'build'), { recursive: true });
    mkdirSync(join(root, 'node_modules/@electron'), { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'missive', version: '0.0.0', main: 'dist/electron/main/index.js' }));
    copyFileSync(join(ROOT, 'build/electron-native.mjs'), join(root, 'build/electron-native.mjs'));
    cpSync(join(ROOT, 'node_modules/electron'), join(root, 'node_modules/electron'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules/better-sqlite3'), join(root, 'node_modules/better-sqlite3'));
    symlinkSync(join(ROOT, 'node_modules/@electron/rebuild'), join(root, 'node_modules/@electron/rebuild'));
    const dist = join(dir, 'electron-dist');
    mkdirSync(dist);
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\n');
    const closed = new URL(await closedPortUrl()).port;
    const temp = join(dir, 'tmp');
    mkdirSync(temp);
    const nodeBuild = readFileSync(join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));

    const progress: string[] = [];
    const log: string[] = [];
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      TMPDIR: temp,
      ELECTRON_OVERRIDE_DIST_PATH: dist,
      MISSIVE_ELECTRON_HEADERS_URL: `http://127.0.0.1:${closed}`,
      npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${closed}`,
    };
    const failure = await desktopCommand({ env, root, appArgs: [], progress: (l) => progress.push(l), log: (t) => log.push(t) }).catch(
      (error: unknown) => error,
    );
    expect(progress).toEqual([expect.stringMatching(/^first launch: building better-sqlite3 for Electron \d+\.\d+\.\d+ \(ABI \d+\), once…$/)]);
    expect(failure).toMatchObject({ code: 'missive::io::native_build_failed', exitCode: 69 });
    expect((failure as Error).message).toContain(`ECONNREFUSED 127.0.0.1:${closed}`);
    expect((failure as { help: string }).help).toContain(`Run \`npm run native:electron\` in ${root}`);
    expect((failure as { help: string }).help).toContain('missive ui --web');
    expect(log.join('')).toContain('missive: building better-sqlite3');
    // Nothing put in place, no staging left, Node's build untouched.
    expect(existsSync(join(root, 'native'))).toBe(false);
    expect(readdirSync(temp)).toEqual([]);
    expect(readFileSync(join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')).equals(nodeBuild)).toBe(true);
  });

  it('inside the packaged app opens the app itself, run as Electron rather than as Node, with no electron package', async () => {
    const packaged = { electron: '40.10.2', execPath: '/opt/missive/missive-desktop' };
    const noStep = () => expect.unreachable('no download or build inside the packaged app');
    const inApp = await desktopCommand({
      env: { ELECTRON_RUN_AS_NODE: '1', MISSIVE_HOME: '/h' },
      root: '/opt/missive/resources/app.asar',
      appArgs: ['--tray'],
      progress: noStep,
      log: noStep,
      runtime: packaged,
    });
    expect(inApp).toEqual({ binary: '/opt/missive/missive-desktop', args: ['--tray'], env: { MISSIVE_HOME: '/h' } });
    // Electron run as Node from a checkout opens the checkout's app directory.
    const checkout = await desktopCommand({ env: { ELECTRON_RUN_AS_NODE: '1' }, root: ROOT, appArgs: [], progress: noStep, log: noStep, runtime: packaged });
    expect(checkout).toEqual({ binary: packaged.execPath, args: [ROOT], env: {} });
  });

  it('without a display says so and points at the web console; web flags need --web', async () => {
    const box = sandbox();
    try {
      if (process.platform === 'linux') {
        const run = await box.run(['ui'], { env: { DISPLAY: '', WAYLAND_DISPLAY: '' } });
        expect(run.code).toBe(69);
        expect(run.stderr).toContain('no display: DISPLAY and WAYLAND_DISPLAY are unset');
        expect(run.stderr).toContain('missive ui --web');
      }
      const stray = await box.run(['ui', '--port', '8080', '--open']);
      expect(stray.code).toBe(64);
      expect(stray.stderr).toContain('--port, --open only go with --web');
    } finally {
      box.dispose();
    }
  });
});
