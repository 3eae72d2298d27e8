/**
 * electron-builder afterPack hook (build/electron-builder.json: afterPack, with npmRebuild off).
 *
 * The packaged app loads better-sqlite3's default binding (node_modules/better-sqlite3/build/Release, asar-unpacked),
 * so that file must be built for Electron's ABI. electron-builder's own npmRebuild would rebuild the project's
 * node_modules in place, breaking the CLI and the tests that share them (issue 20). Instead this hook runs
 * build/electron-native.mjs (`npm run native:electron`: a staged copy rebuilt by @electron/rebuild, node_modules only
 * read) with --out pointing into the packaged app, then checks the result names Electron's NODE_MODULE_VERSION.
 *
 * keytar is built on N-API, so its one build loads in Node and in Electron alike: it is not rebuilt.
 * Native modules cannot be cross-compiled: package each platform and architecture on that platform and architecture.
 */
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const BINDING = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal']; // builder-util's Arch enum, by value
/** npm's `nodedir` (e.g. nodedir=/usr in an npmrc, passed on by `npm run`) makes node-gyp compile against that Node's
 * headers whatever --target says, silently producing Node's ABI: the build never sees it. */
const NODEDIR_VARIABLES = ['npm_config_nodedir', 'NPM_CONFIG_NODEDIR'];

/** Runs build/electron-native.mjs --force --out `out`; resolves, or rejects with what it printed on stderr. */
function runNativeBuild(projectDir, out) {
  const env = { ...process.env };
  for (const name of NODEDIR_VARIABLES) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(projectDir, 'build/electron-native.mjs'), '--force', '--out', out], {
      cwd: projectDir,
      env,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) return resolve();
      // its own verdict (already shown above with the tool's output): the "missive: …" and "help: …" lines
      const verdict = stderr.split('\n').filter((line) => /^(missive: | {2}help: )/.test(line));
      reject(new Error(verdict.join('\n') || `build/electron-native.mjs exited with ${code}`));
    });
  });
}

/** A non-N-API addon exports node_register_module_v<ABI>: the ABI it was compiled for, or null when none is named. */
function bindingAbi(file) {
  const match = /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'));
  return match ? match[1] : null;
}

/**
 * Puts an Electron-ABI better-sqlite3 binding into the packaged app. `build(projectDir, out)` makes it (the tests
 * pass a stand-in). Returns the packaged binding's path.
 */
async function packElectronNativeModules(context, build = runNativeBuild) {
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  const arch = typeof context.arch === 'number' ? ARCH_NAMES[context.arch] : String(context.arch);
  if (platform !== process.platform || arch !== process.arch) {
    throw new Error(
      `missive: native modules cannot be cross-compiled; build the ${platform}-${arch} package on ${platform}-${arch} (this is ${process.platform}-${process.arch})`,
    );
  }
  const projectDir = context.packager.projectDir;
  const electronDir = dirname(require.resolve('electron/package.json', { paths: [projectDir] }));
  const installed = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
  const electronVersion = context.packager.config.electronVersion ?? installed;
  if (electronVersion !== installed) {
    throw new Error(`missive: packaging for Electron ${electronVersion}, but node_modules holds Electron ${installed}; run npm install`);
  }
  const abi = readFileSync(join(electronDir, 'abi_version'), 'utf8').trim();
  const packaged = join(context.packager.getResourcesDir(context.appOutDir), 'app.asar.unpacked', BINDING);
  if (!existsSync(packaged)) throw new Error(`missive: the package has no ${BINDING} to replace (asarUnpack must hold better-sqlite3)`);
  try {
    await build(projectDir, packaged);
  } catch (error) {
    throw new Error(`missive: could not build better-sqlite3 for Electron ${electronVersion} (${platform}-${arch}): ${error.message}`, {
      cause: error,
    });
  }
  const built = bindingAbi(packaged);
  if (built !== abi) {
    throw new Error(
      `missive: the packaged better-sqlite3 is built for NODE_MODULE_VERSION ${built ?? 'unknown'}, but Electron ${electronVersion} needs ${abi}; ` +
        'check that no npm `nodedir` setting or cached headers point node-gyp at Node instead of Electron',
    );
  }
  return packaged;
}

async function afterPack(context) {
  const packaged = await packElectronNativeModules(context);
  console.log(`  • missive: better-sqlite3 built for Electron  file=${packaged}`);
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.packElectronNativeModules = packElectronNativeModules;
module.exports.runNativeBuild = runNativeBuild;
