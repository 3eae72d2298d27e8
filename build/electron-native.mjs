#!/usr/bin/env node
/**
 * `npm run native:electron [-- --force] [--dist-url URL] [--out FILE] [--print-target]`
 *   --dist-url (or MISSIVE_ELECTRON_HEADERS_URL): a mirror of Electron's headers (default https://www.electronjs.org/headers);
 *   better-sqlite3's prebuilt binaries follow prebuild-install's own npm_config_better_sqlite3_binary_host.
 *
 * Builds better-sqlite3's native addon for the Electron in node_modules/electron (its ABI), for the desktop app run
 * from this checkout, and puts it beside the install:
 *   native/electron-<abi>-<platform>-<arch>/better_sqlite3-<better-sqlite3 version>.node
 * (electron/core/store/native-binding.ts reads it from there). node_modules/better-sqlite3 is never touched: the CLI
 * and the tests keep Node's build. A COPY of the package is staged in a temp directory and rebuilt there with
 * @electron/rebuild (a prebuilt binary for Electron when one can be downloaded, else node-gyp against Electron's
 * headers); only the resulting .node file is copied into place, atomically. `missive ui` runs this on first launch.
 *
 * Exit codes: 0 built (or already there), 64 bad arguments, 69 the build failed (nothing was put in place).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
const require = createRequire(join(root, 'package.json'));

const fail = (code, message, help) => {
  process.stderr.write(`missive: ${message}\n${help ? `  help: ${help}\n` : ''}`);
  process.exit(code);
};

let args;
try {
  args = parseArgs({
    options: {
      force: { type: 'boolean', default: false },
      'dist-url': { type: 'string' },
      out: { type: 'string' },
      'print-target': { type: 'boolean', default: false },
    },
  }).values;
} catch (error) {
  fail(64, error.message, 'Usage: npm run native:electron [-- --force] [--dist-url URL] [--out FILE] [--print-target]');
}

const manifestOf = (name) => {
  try {
    const path = require.resolve(`${name}/package.json`);
    return { dir: dirname(path), ...JSON.parse(readFileSync(path, 'utf8')) };
  } catch {
    return undefined;
  }
};

const electron = manifestOf('electron');
if (!electron) fail(69, 'the electron package is not installed', `Run \`npm install\` (without --omit=dev) in ${root}.`);
const abi = readFileSync(join(electron.dir, 'abi_version'), 'utf8').trim();
const sqlite = manifestOf('better-sqlite3');
if (!sqlite) fail(69, 'better-sqlite3 is not installed', `Run \`npm install\` in ${root}.`);

// Keep in step with electronSqliteBinding() in electron/core/store/native-binding.ts (a unit test checks it).
const out = args.out ?? join(root, 'native', `electron-${abi}-${process.platform}-${process.arch}`, `better_sqlite3-${sqlite.version}.node`);
const target = { out, electron: electron.version, abi, better_sqlite3: sqlite.version, platform: process.platform, arch: process.arch };
if (args['print-target']) {
  process.stdout.write(`${JSON.stringify(target)}\n`);
  process.exit(0);
}
if (existsSync(out) && !args.force) {
  process.stdout.write(`missive: better-sqlite3 for Electron ${electron.version} (ABI ${abi}) is already built: ${out} (--force rebuilds it)\n`);
  process.exit(0);
}

let rebuild;
try {
  ({ rebuild } = await import('@electron/rebuild'));
} catch (error) {
  fail(69, `@electron/rebuild is not installed: ${error.message}`, `Run \`npm install\` (without --omit=dev) in ${root}.`);
}

process.stdout.write(
  `missive: building better-sqlite3 ${sqlite.version} for Electron ${electron.version} (ABI ${abi}, ${process.platform}-${process.arch}) in a staging copy…\n`,
);
// @electron/rebuild prints the tool's output on console.error when a step fails; its error only says which step.
const printed = [];
const consoleError = console.error;
console.error = (...parts) => {
  printed.push(parts.join(' '));
  consoleError(...parts);
};
const headerURL = args['dist-url'] ?? process.env.MISSIVE_ELECTRON_HEADERS_URL;
// npm passes its `nodedir` setting on (`npm run` sets npm_config_nodedir): node-gyp would then compile against that
// Node's headers whatever the target, and silently make a build for Node's ABI. Electron's headers are what we want.
for (const name of Object.keys(process.env)) if (/^npm_config_nodedir$/i.test(name)) delete process.env[name];
const stage = mkdtempSync(join(tmpdir(), 'missive-native-'));
let failure;
try {
  const staged = join(stage, 'node_modules', 'better-sqlite3');
  const skip = join(sqlite.dir, 'build');
  // The sources only: Node's build (build/) stays where it is, and is not copied either.
  cpSync(sqlite.dir, staged, { recursive: true, filter: (src) => src !== skip && !src.startsWith(`${skip}${sep}`) });
  writeFileSync(
    join(stage, 'package.json'),
    JSON.stringify({ name: 'missive-native-stage', private: true, dependencies: { 'better-sqlite3': sqlite.version } }),
  );
  // prebuild-install (better-sqlite3's own downloader) must be found from the staged copy, as in node_modules.
  const prebuild = createRequire(join(sqlite.dir, 'package.json')).resolve('prebuild-install/package.json');
  symlinkSync(dirname(prebuild), join(stage, 'node_modules', 'prebuild-install'), 'junction');

  await rebuild({
    buildPath: stage,
    electronVersion: electron.version,
    forceABI: Number(abi),
    arch: process.arch,
    onlyModules: ['better-sqlite3'],
    force: true,
    mode: 'sequential',
    disablePreGypCopy: true,
    ...(headerURL ? { headerURL } : {}),
  });
  const built = join(staged, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built)) throw new Error(`the rebuild finished without ${relative(stage, built)}`);
  // A non-N-API addon exports node_register_module_v<ABI>: refuse a build for another runtime than this Electron.
  const builtAbi = /node_register_module_v(\d+)/.exec(readFileSync(built).toString('latin1'))?.[1];
  if (builtAbi !== abi) {
    throw Object.assign(
      new Error(`the build is for NODE_MODULE_VERSION ${builtAbi ?? 'unknown'}, not Electron's ${abi} (headers of another runtime were used)`),
      {
        help: `node-gyp compiled against other headers than Electron ${electron.version}'s: check that --dist-url (or MISSIVE_ELECTRON_HEADERS_URL) serves Electron's headers and that ~/.electron-gyp holds no stale ones, then run \`npm run native:electron -- --force\`. Nothing was put in place.`,
      },
    );
  }
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.partial-${process.pid}`;
  copyFileSync(built, partial);
  renameSync(partial, out);
  process.stdout.write(`missive: built ${out}\n`);
} catch (error) {
  failure = error;
} finally {
  console.error = consoleError;
  rmSync(stage, { recursive: true, force: true });
}
if (failure) {
  const lines = printed
    .join('\n')
    .split('\n')
    .map((l) => l.trim());
  const cause = lines.find((l) => /^(\w*Error\b|gyp ERR! (stack )?Error)/.test(l));
  const reason = [String(failure?.message ?? failure).split('\n')[0], cause].filter(Boolean).join(': ');
  fail(
    69,
    `cannot build better-sqlite3 for Electron ${electron.version} (ABI ${abi}): ${reason}`,
    failure?.help ??
      "It needs the network once: a prebuilt binary (GitHub releases) or Electron's headers (electronjs.org) are downloaded; check the network or the proxy (HTTPS_PROXY), then run `npm run native:electron` again. With no prebuilt binary for this platform a C++ toolchain is needed too (python3, make, a C++ compiler). node_modules/better-sqlite3 was not changed; meanwhile `missive ui --web` needs no Electron.",
  );
}
