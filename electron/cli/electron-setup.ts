/**
 * What `missive ui` needs before it can open the desktop app, and how it gets it on first launch:
 * - inside the packaged app (the `missive` launcher runs the CLI with ELECTRON_RUN_AS_NODE=1), the app's own
 *   executable, nothing else;
 * - MISSIVE_ELECTRON_BINARY: an Electron binary of your own (its native modules are yours to build);
 * - otherwise the `electron` dev dependency: its binary, downloaded by Electron's own installer (install.js) on first
 *   launch, since `npm install` does not run it (allowScripts denies electron's postinstall so installs work offline),
 *   and better-sqlite3 built for Electron's ABI beside the install (build/electron-native.mjs), never in place.
 * Each missing piece that cannot be had is an error (exit 69) that says what to do.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MissiveError } from '../../shared/errors.js';
import { electronSqliteBinding, NATIVE_BUILD_COMMAND } from '../core/store/native-binding.js';

export const unavailable = (reason: string, message: string, help: string) => new MissiveError('io', reason, message, { exitCode: 69, help });

const WEB_HINT = 'Meanwhile `missive ui --web` serves the same GUI to your browser, with no Electron at all.';

/** The command that opens the app: an executable, its arguments, and its environment. */
export interface LaunchCommand {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface SetupDeps {
  env: NodeJS.ProcessEnv;
  /** The installation root (package.json's directory; app.asar when packaged). */
  root: string;
  /** Arguments for the app (`--tray`, `--profile=…`). */
  appArgs: string[];
  /** One line on stderr for each slow first-launch step. */
  progress: (line: string) => void;
  /** Where the installers' own output goes (the desktop log). */
  log: (text: string) => void;
  /** This process: `electron` is set when the CLI runs inside Electron (the packaged `missive` launcher). */
  runtime?: { electron?: string; execPath: string };
}

interface ElectronPackage {
  dir: string;
  version: string;
  /** NODE_MODULE_VERSION of that Electron (the package ships it as abi_version). */
  abi: string;
}

function electronPackage(root: string): ElectronPackage | undefined {
  let manifest: string;
  try {
    manifest = createRequire(join(root, 'package.json')).resolve('electron/package.json');
  } catch {
    return undefined;
  }
  const dir = dirname(manifest);
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  const abiFile = join(dir, 'abi_version');
  return { dir, version, abi: existsSync(abiFile) ? readFileSync(abiFile, 'utf8').trim() : '' };
}

const PLATFORM_PATHS: Record<string, string> = { darwin: 'Electron.app/Contents/MacOS/Electron', win32: 'electron.exe' };

/** The binary the package's own index.js would name (path.txt, or ELECTRON_OVERRIDE_DIST_PATH), if it is there. */
function installedBinary(pkg: ElectronPackage, env: NodeJS.ProcessEnv): string | undefined {
  const pathFile = join(pkg.dir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : (PLATFORM_PATHS[process.platform] ?? 'electron');
  const binary = join(env.ELECTRON_OVERRIDE_DIST_PATH || join(pkg.dir, 'dist'), relative);
  return existsSync(binary) ? binary : undefined;
}

/** Runs `node <script> …args` and resolves with its exit code and the tail of what it printed (all of it goes to the log). */
function runNode(script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<{ code: number; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      log(text);
      tail = (tail + text).slice(-4000);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolve({ code: -1, tail: error.message }));
    child.on('close', (code) => resolve({ code: code ?? -1, tail }));
  });
}

/** The first line that says what went wrong (an error's message, not its stack frames). */
const reasonIn = (tail: string) =>
  tail
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '))
    .find((l) => /error|failed|cannot|ENOTFOUND|ECONNREFUSED|ETIMEDOUT/i.test(l)) ??
  tail.trim().split('\n').at(-1) ??
  'no output';

async function installElectron(pkg: ElectronPackage, deps: SetupDeps): Promise<string> {
  if (deps.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    throw unavailable(
      'electron_missing',
      `the Electron ${pkg.version} binary is not installed, and ELECTRON_SKIP_BINARY_DOWNLOAD is set, so its installer downloads nothing`,
      `Unset ELECTRON_SKIP_BINARY_DOWNLOAD and run \`missive ui\` again. ${WEB_HINT}`,
    );
  }
  deps.progress(`first launch: downloading Electron ${pkg.version} for ${process.platform}-${process.arch} (about 100 MB, once)…`);
  const { code, tail } = await runNode(join(pkg.dir, 'install.js'), [], pkg.dir, deps.env, deps.log);
  const binary = installedBinary(pkg, deps.env);
  if (code === 0 && binary) return binary;
  throw unavailable(
    'electron_download_failed',
    `could not download Electron ${pkg.version}: ${reasonIn(tail)}`,
    `Check the network or the proxy (HTTPS_PROXY), or point ELECTRON_MIRROR at a mirror of Electron's releases, then run \`missive ui\` again. ${WEB_HINT}`,
  );
}

/** better-sqlite3 for this Electron's ABI, beside the install: built once by build/electron-native.mjs. */
async function ensureElectronSqlite(pkg: ElectronPackage, deps: SetupDeps): Promise<void> {
  const target = electronSqliteBinding(deps.root, { abi: pkg.abi, platform: process.platform, arch: process.arch });
  if (existsSync(target)) return;
  const script = join(deps.root, 'build', 'electron-native.mjs');
  deps.progress(`first launch: building better-sqlite3 for Electron ${pkg.version} (ABI ${pkg.abi}), once…`);
  const { code, tail } = existsSync(script) ? await runNode(script, [], deps.root, deps.env, deps.log) : { code: -1, tail: `${script} is missing` };
  if (code === 0 && existsSync(target)) return;
  // The script's own last word ("missive: cannot build … : reason"), else the first error line it printed.
  const summary = tail
    .split('\n')
    .filter((l) => l.startsWith('missive: cannot '))
    .at(-1);
  throw unavailable(
    'native_build_failed',
    summary ? summary.replace(/^missive: /, '') : `cannot build better-sqlite3 for Electron ${pkg.version}: ${reasonIn(tail)}`,
    `Run \`${NATIVE_BUILD_COMMAND}\` in ${deps.root} to see the whole build (it needs the network once, for a prebuilt binary or Electron's headers, and a C++ toolchain if no prebuilt matches). ${WEB_HINT}`,
  );
}

/** Finds (and on first launch installs) what opens the desktop app. */
export async function desktopCommand(deps: SetupDeps): Promise<LaunchCommand> {
  const env = { ...deps.env };
  // The packaged `missive` launcher sets it for the CLI; the app must run as Electron, not as Node.
  delete env.ELECTRON_RUN_AS_NODE;
  const runtime = deps.runtime ?? { electron: process.versions.electron, execPath: process.execPath };
  if (runtime.electron) {
    // The packaged app opens itself (no `electron` package there); Electron run as Node from a checkout opens the checkout.
    const packaged = /app\.asar$/.test(deps.root);
    return { binary: runtime.execPath, args: [...(packaged ? [] : [deps.root]), ...deps.appArgs], env };
  }
  const own = deps.env.MISSIVE_ELECTRON_BINARY;
  if (own) {
    if (!existsSync(own))
      throw unavailable(
        'electron_missing',
        `MISSIVE_ELECTRON_BINARY names ${own}, which does not exist`,
        `Point it at an Electron binary, or unset it to use the one missive installs. ${WEB_HINT}`,
      );
    return { binary: own, args: [deps.root, ...deps.appArgs], env };
  }
  const pkg = electronPackage(deps.root);
  if (!pkg) {
    throw unavailable(
      'electron_missing',
      'the electron package is not installed here (it is a development dependency of a missive checkout)',
      `Run \`npm install\` (without --omit=dev) in ${deps.root}, or install the packaged app. ${WEB_HINT}`,
    );
  }
  const binary = installedBinary(pkg, deps.env) ?? (await installElectron(pkg, deps));
  await ensureElectronSqlite(pkg, deps);
  return { binary, args: [deps.root, ...deps.appArgs], env };
}
