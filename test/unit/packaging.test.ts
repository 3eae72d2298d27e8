/**
 * The electron-builder config, checked without the Electron download these machines lack: electron-builder's own
 * schema validation, the targets we promise, the deb's dependencies and maintainer scripts against electron-builder's
 * own defaults and templates (and the `missive` link they make, run for real under a scratch prefix), the Windows
 * installer include, and the afterPack hook that builds the native modules for Electron beside, never over, Node's.
 * test/integration/packaging-dir.test.ts packages the app for real; test/unit/icons.test.ts covers the icons.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const root = process.cwd();
const config = JSON.parse(readFileSync(join(root, 'build/electron-builder.json'), 'utf8'));
const templates = join(root, 'node_modules/app-builder-lib/templates/linux');
const scratchDirs: string[] = [];
afterEach(() => {
  for (const d of scratchDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'missive-packaging-'));
  scratchDirs.push(d);
  return d;
}

describe('packaging config', () => {
  it('passes electron-builder schema validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
    const { DebugLogger } = require('builder-util');
    const { $schema: _, ...cfg } = config;
    await expect(validateConfiguration(cfg, new DebugLogger(false))).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...cfg, linux: { ...cfg.linux, nonsense: true } }, new DebugLogger(false))).rejects.toThrow();
  });

  it('builds AppImage and deb, dmg and nsis, shipping the preload, renderer, CLI, tray icons and unpacked native modules', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/keytar/**']));
    expect(config.files).toEqual(expect.arrayContaining(['dist/electron/**', 'dist/renderer/**', 'dist/cli/**', 'bin/**', 'build/icons/**']));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(config.extraMetadata.main).toBe(pkg.main);
    expect(pkg.scripts.dist).toContain('electron-builder --config build/electron-builder.json');
  });

  it("never rebuilds the project's node_modules in place: npmRebuild is off and the afterPack hook builds for Electron", () => {
    expect(config.npmRebuild).toBe(false);
    const hook = require(join(root, config.afterPack));
    expect(typeof (hook.default ?? hook)).toBe('function');
  });

  it("deb depends on electron-builder's own default list, plus libsecret-1-0 for the keyring", () => {
    const FpmTarget = require('app-builder-lib/out/targets/FpmTarget.js').default;
    const defaults: string[] = FpmTarget.prototype.getDefaultDepends('deb');
    expect(defaults).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3']));
    expect([...config.deb.depends].sort()).toEqual([...new Set([...defaults, 'libsecret-1-0'])].sort());
    // recommends is left to electron-builder, whose default (libappindicator3-1) shows the tray icon on GNOME
    expect(config.deb.recommends).toBeUndefined();
    expect(FpmTarget.prototype.getDefaultRecommends('deb')).toContain('libappindicator3-1');
  });

  it("gives the deb the maintainer and homepage electron-builder's deb target refuses to build without", async () => {
    const FpmTarget = require('app-builder-lib/out/targets/FpmTarget.js').default;
    const { AppInfo } = require('app-builder-lib/out/appInfo.js');
    const metaInfo = (metadata: Record<string, unknown>) => {
      const info = { metadata, repositoryInfo: Promise.resolve(null) };
      const appInfo = { info, notNullDevMetadata: {}, linuxPackageName: 'missive', computePackageUrl: AppInfo.prototype.computePackageUrl };
      return FpmTarget.prototype.computeFpmMetaInfoOptions.call({ packager: { appInfo, info }, options: config.deb });
    };
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const meta = await metaInfo(pkg);
    expect(meta.maintainer).toBe(`${pkg.author.name} <${pkg.author.email}>`);
    expect(meta.url).toBe(pkg.homepage);
    const { homepage: _, author: __, ...bare } = pkg;
    await expect(metaInfo(bare)).rejects.toThrow(/homepage[\s\S]*author 'email'/);
  });

  it('ships the sh launcher as resources/bin/missive on Linux and macOS, and missive.cmd on Windows', () => {
    const resources = (platform: string) => config[platform].extraResources as Array<{ from: string; to: string }>;
    expect(resources('linux')).toEqual([{ from: 'build/missive-launcher.sh', to: 'bin/missive' }]);
    expect(resources('mac')).toEqual([{ from: 'build/missive-launcher.sh', to: 'bin/missive' }]);
    expect(resources('win')).toEqual([{ from: 'build/missive.cmd', to: 'bin/missive.cmd' }]);
    expect(config.extraResources).toBeUndefined();
    expect(statSync(join(root, 'build/missive-launcher.sh')).mode & 0o111).not.toBe(0);
    expect(() => execFileSync('sh', ['-n', join(root, 'build/missive-launcher.sh')])).not.toThrow();
  });

  it("the Windows launcher runs the app's Electron as Node on app.asar's bin/missive.js, with CRLF lines", () => {
    const cmd = readFileSync(join(root, 'build/missive.cmd'), 'utf8');
    expect(
      cmd
        .split('\n')
        .slice(0, -1)
        .every((line) => line.endsWith('\r')),
    ).toBe(true);
    expect(cmd).toContain('set "ELECTRON_RUN_AS_NODE=1"');
    // resources\bin\missive.cmd -> <install>\<productName>.exe and resources\app.asar\bin\missive.js
    expect(cmd).toContain(`"%~dp0..\\..\\${config.productName}.exe" "%~dp0..\\app.asar\\bin\\missive.js" %*`);
    expect(cmd).toContain('exit /b %ERRORLEVEL%');
  });

  it('the NSIS include puts resources\\bin on the user PATH on install and takes it off on uninstall', () => {
    expect(config.nsis.include).toBe('build/installer.nsh');
    const nsh = readFileSync(join(root, config.nsis.include), 'utf8');
    expect(nsh).toMatch(/!macro customInstall\s+Call missiveAddBinToPath\s+!macroend/);
    expect(nsh).toMatch(/!macro customUnInstall\s+Call un\.missiveRemoveBinFromPath\s+!macroend/);
    expect(nsh).toContain('!define MISSIVE_BIN_DIR "$INSTDIR\\resources\\bin"');
    expect(nsh).toContain('WriteRegExpandStr HKCU "Environment" "Path"');
    expect(nsh).toContain('${NSIS_MAX_STRLEN}');
  });
});

describe('deb maintainer scripts', () => {
  const scripts = [
    ['afterInstall', 'after-install.tpl'],
    ['afterRemove', 'after-remove.tpl'],
  ] as const;

  it.each(scripts)("%s keeps electron-builder's default %s verbatim (sandbox, desktop database, AppArmor)", (key, template) => {
    const ours = readFileSync(join(root, config.deb[key]), 'utf8');
    expect(ours.startsWith(readFileSync(join(templates, template), 'utf8'))).toBe(true);
    expect(() => execFileSync('bash', ['-n', join(root, config.deb[key])])).not.toThrow();
  });

  it.each(scripts)('%s uses only the macros electron-builder fills in (it throws on any other ${name})', (key) => {
    const ours = readFileSync(join(root, config.deb[key]), 'utf8');
    const macros = new Set([...ours.matchAll(/\$\{([a-zA-Z]+)\}/g)].map((m) => m[1]));
    expect([...macros].filter((m) => !['executable', 'sanitizedProductName', 'productFilename'].includes(m!))).toEqual([]);
  });

  /** missive's part of a script, macros filled in as electron-builder does, /usr/bin and /opt moved under `prefix`. */
  function missivePart(key: 'afterInstall' | 'afterRemove', prefix: string): string {
    const text = readFileSync(join(root, config.deb[key]), 'utf8');
    const part = text.slice(text.indexOf('# missive: '));
    expect(part.length).toBeGreaterThan(20);
    return part
      .replaceAll('${sanitizedProductName}', config.productName)
      .replaceAll('${executable}', config.linux.executableName)
      .replaceAll('/usr/bin/', `${prefix}/usr/bin/`)
      .replaceAll("'/opt/", `'${prefix}/opt/`);
  }

  function install(prefix: string) {
    return spawnSync('sh', ['-c', missivePart('afterInstall', prefix)], { encoding: 'utf8' });
  }
  function remove(prefix: string) {
    return spawnSync('sh', ['-c', missivePart('afterRemove', prefix)], { encoding: 'utf8' });
  }
  function layout(): { prefix: string; link: string; launcher: string } {
    const prefix = scratch();
    mkdirSync(join(prefix, 'usr/bin'), { recursive: true });
    const launcher = join(prefix, 'opt', config.productName, 'resources/bin/missive');
    mkdirSync(join(launcher, '..'), { recursive: true });
    writeFileSync(launcher, '#!/bin/sh\n', { mode: 0o755 });
    return { prefix, link: join(prefix, 'usr/bin/missive'), launcher };
  }

  it('after-install links /usr/bin/missive to /opt/missive/resources/bin/missive, replacing an older link', () => {
    const { prefix, link, launcher } = layout();
    expect(install(prefix).status).toBe(0);
    expect(readlinkSync(link)).toBe(launcher);
    rmSync(link);
    symlinkSync('/nowhere/old-missive', link);
    expect(install(prefix).status).toBe(0);
    expect(readlinkSync(link)).toBe(launcher);
  });

  it('after-install leaves a /usr/bin/missive that is a file of something else, and says so', () => {
    const { prefix, link } = layout();
    writeFileSync(link, 'someone else\n');
    const run = install(prefix);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('not replacing it');
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(readFileSync(link, 'utf8')).toBe('someone else\n');
  });

  it("after-remove removes the link only while it points at this app's launcher", () => {
    const { prefix, link } = layout();
    expect(install(prefix).status).toBe(0);
    expect(remove(prefix).status).toBe(0);
    expect(lstatSync(link, { throwIfNoEntry: false })).toBeUndefined();
    symlinkSync('/somewhere/else/missive', link);
    expect(remove(prefix).status).toBe(0);
    expect(readlinkSync(link)).toBe('/somewhere/else/missive');
  });
});

describe('afterPack: better-sqlite3 for Electron in the package, node_modules untouched', () => {
  const hook = require(join(root, 'build/after-pack.cjs'));
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version as string;
  const abi = readFileSync(join(root, 'node_modules/electron/abi_version'), 'utf8').trim();
  const binding = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';

  function context(electronPlatformName: string = process.platform, arch = process.arch) {
    const appOutDir = scratch();
    const packaged = join(appOutDir, 'resources/app.asar.unpacked', binding);
    mkdirSync(join(packaged, '..'), { recursive: true });
    writeFileSync(packaged, 'node build');
    const archValue = ['ia32', 'x64', 'armv7l', 'arm64'].indexOf(arch); // builder-util's Arch enum
    return {
      appOutDir,
      electronPlatformName,
      arch: archValue,
      packager: { projectDir: root, config: { electronVersion }, getResourcesDir: (dir: string) => join(dir, 'resources') },
      packaged,
    };
  }
  /** A stand-in for build/electron-native.mjs: writes a binding naming `moduleVersion` where it is told. */
  const writes =
    (moduleVersion: string, calls: string[][] = []) =>
    async (projectDir: string, out: string) => {
      calls.push([projectDir, out]);
      writeFileSync(out, `\0node_register_module_v${moduleVersion}\0`);
    };

  it("replaces the packaged binding with one built for Electron's NODE_MODULE_VERSION", async () => {
    const ctx = context();
    const calls: string[][] = [];
    await expect(hook.packElectronNativeModules(ctx, writes(abi, calls))).resolves.toBe(ctx.packaged);
    expect(calls).toEqual([[root, ctx.packaged]]);
    expect(readFileSync(ctx.packaged, 'latin1')).toContain(`node_register_module_v${abi}`);
  });

  it("refuses a build that names another ABI (Node's), as npm's nodedir setting would make", async () => {
    const nodeAbi = process.versions.modules;
    await expect(hook.packElectronNativeModules(context(), writes(nodeAbi))).rejects.toThrow(
      `built for NODE_MODULE_VERSION ${nodeAbi}, but Electron ${electronVersion} needs ${abi}`,
    );
  });

  it("says which build failed, with the build's own message", async () => {
    const failing = async () => {
      throw new Error('missive: cannot build better-sqlite3: getaddrinfo ENOTFOUND');
    };
    await expect(hook.packElectronNativeModules(context(), failing)).rejects.toThrow(
      `could not build better-sqlite3 for Electron ${electronVersion} (${process.platform}-${process.arch}): missive: cannot build better-sqlite3: getaddrinfo ENOTFOUND`,
    );
  });

  it('refuses to cross-build another platform or architecture, whose native modules it cannot compile', async () => {
    const calls: string[][] = [];
    const other = process.platform === 'win32' ? 'linux' : 'win32';
    await expect(hook.packElectronNativeModules(context(other), writes(abi, calls))).rejects.toThrow(`build the ${other}-${process.arch} package on`);
    const otherArch = process.arch === 'arm64' ? 'x64' : 'arm64';
    await expect(hook.packElectronNativeModules(context(process.platform, otherArch), writes(abi, calls))).rejects.toThrow('cannot be cross-compiled');
    expect(calls).toEqual([]);
  });

  it("the build it runs (build/electron-native.mjs) takes --force --out FILE and targets node_modules' Electron", () => {
    const out = join(scratch(), 'better_sqlite3.node');
    const target = JSON.parse(
      execFileSync(process.execPath, [join(root, 'build/electron-native.mjs'), '--print-target', '--force', '--out', out], { encoding: 'utf8' }),
    );
    expect(target).toMatchObject({ out, electron: electronVersion, abi, platform: process.platform, arch: process.arch });
  });

  it("runs build/electron-native.mjs --force --out FILE without npm's nodedir, and keeps its verdict on failure", async () => {
    const project = scratch();
    mkdirSync(join(project, 'build'));
    const standIn = join(project, 'build/electron-native.mjs');
    writeFileSync(
      standIn,
      `import { writeFileSync } from 'node:fs';
       const out = process.argv[process.argv.indexOf('--out') + 1];
       writeFileSync(out, JSON.stringify({ args: process.argv.slice(2), nodedir: process.env.npm_config_nodedir ?? null }));
       if (process.env.MISSIVE_TEST_FAIL) { process.stderr.write('gyp noise\\nmissive: cannot build it\\n  help: use the network\\n'); process.exit(69); }`,
    );
    const out = join(project, 'out.node');
    const saved = { nodedir: process.env.npm_config_nodedir, fail: process.env.MISSIVE_TEST_FAIL };
    process.env.npm_config_nodedir = '/usr';
    try {
      await hook.runNativeBuild(project, out);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ args: ['--force', '--out', out], nodedir: null });
      process.env.MISSIVE_TEST_FAIL = '1';
      await expect(hook.runNativeBuild(project, out)).rejects.toThrow(/^missive: cannot build it\n {2}help: use the network$/);
    } finally {
      for (const [name, value] of [
        ['npm_config_nodedir', saved.nodedir],
        ['MISSIVE_TEST_FAIL', saved.fail],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
