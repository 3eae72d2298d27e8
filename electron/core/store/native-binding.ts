/**
 * Which build of better-sqlite3's native addon a process loads. Node (the CLI, the tests, the gateway) and a packaged
 * app load node_modules/better-sqlite3 as it is: in a packaged app that file is the Electron build that
 * build/after-pack.cjs put into app.asar.unpacked (electron-builder's own npmRebuild stays off). The desktop
 * app run from a source checkout loads a copy built for Electron's ABI, kept beside the install and never in place of
 * Node's build (which the CLI and the tests share):
 *
 *   <root>/native/electron-<abi>-<platform>-<arch>/better_sqlite3-<better-sqlite3 version>.node
 *
 * `npm run native:electron` (build/electron-native.mjs) makes it, and `missive ui` runs that on first launch. The
 * version is in the name so that upgrading better-sqlite3 makes the old build "missing" instead of loading a native
 * half that does not match its JavaScript half.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MissiveError } from '../../../shared/errors.js';

export const NATIVE_BUILD_COMMAND = 'npm run native:electron';

export interface NativeTarget {
  /** NODE_MODULE_VERSION of the runtime (`process.versions.modules`; Electron's own, not Node's). */
  abi: string;
  platform: string;
  arch: string;
}

/** The version of the better-sqlite3 package this process would load (its JavaScript half). */
export function betterSqliteVersion(): string {
  const manifest = createRequire(import.meta.url).resolve('better-sqlite3/package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Where the Electron build of better-sqlite3 for `target` lives under the installation `root`. */
export function electronSqliteBinding(root: string, target: NativeTarget, version = betterSqliteVersion()): string {
  return join(root, 'native', `electron-${target.abi}-${target.platform}-${target.arch}`, `better_sqlite3-${version}.node`);
}

export interface RuntimeFacts {
  /** `process.versions`: `electron` is set inside Electron (also under ELECTRON_RUN_AS_NODE). */
  versions: { electron?: string; modules: string };
  /** `app.isPackaged`. */
  packaged: boolean;
  /** The installation root (electron/core/install-root.ts). */
  root: string | undefined;
  platform: string;
  arch: string;
}

const unavailable = (reason: string, message: string, help: string) => new MissiveError('io', reason, message, { exitCode: 69, help });

/**
 * The `nativeBinding` for better-sqlite3 in this runtime: undefined under Node and in a packaged app (the default
 * build is the right one there), the Electron build's path in a source checkout's desktop app. A missing Electron
 * build is an error naming the command that makes it.
 */
export function sqliteBindingFor(runtime: RuntimeFacts): string | undefined {
  const electron = runtime.versions.electron;
  if (!electron || runtime.packaged) return undefined;
  if (!runtime.root) {
    throw unavailable(
      'native_build_missing',
      'cannot find the missive installation, so not the better-sqlite3 build for Electron either',
      'Start the desktop app from a missive checkout (`npm start`) or install the packaged app.',
    );
  }
  const path = electronSqliteBinding(runtime.root, { abi: runtime.versions.modules, platform: runtime.platform, arch: runtime.arch });
  if (!existsSync(path)) {
    throw unavailable(
      'native_build_missing',
      `better-sqlite3 has no build for Electron ${electron} (ABI ${runtime.versions.modules}): ${path} is missing`,
      `Run \`${NATIVE_BUILD_COMMAND}\` in ${runtime.root} (it needs the network once, for Electron's headers or a prebuilt binary), then start missive again; \`missive ui\` does it for you on first launch.`,
    );
  }
  return path;
}

/**
 * A native addon built for another runtime fails to load with Node's "NODE_MODULE_VERSION" message: say which build
 * to make instead of showing that alone. Anything else is returned unchanged.
 */
export function explainAbiMismatch(error: unknown, root: string | undefined): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!/NODE_MODULE_VERSION/.test(message)) return error;
  return unavailable(
    'native_abi_mismatch',
    `a native module was built for another runtime: ${message}`,
    `Run \`${NATIVE_BUILD_COMMAND} -- --force\`${root ? ` in ${root}` : ''} to build better-sqlite3 for this Electron; never rebuild node_modules/better-sqlite3 itself (the CLI and the tests use Node's build).`,
  );
}
