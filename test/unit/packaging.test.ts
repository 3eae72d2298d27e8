/**
 * The electron-builder config, checked without the Electron download these machines lack: electron-builder's own
 * schema validation (a dry run of its config step), the targets we promise, and every file the config points at.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const root = process.cwd();
const config = JSON.parse(readFileSync(join(root, 'build/electron-builder.json'), 'utf8'));

describe('packaging', () => {
  it('passes electron-builder schema validation', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
    const { DebugLogger } = require('builder-util');
    const { $schema: _, ...cfg } = config;
    await expect(validateConfiguration(cfg, new DebugLogger(false))).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...cfg, linux: { ...cfg.linux, nonsense: true } }, new DebugLogger(false))).rejects.toThrow();
  });

  it('builds AppImage and deb, dmg and nsis, with the native modules unpacked for the Electron rebuild', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**', 'node_modules/keytar/**']));
    expect(config.files).toEqual(expect.arrayContaining(['dist/electron/**', 'dist/renderer/**', 'bin/**']));
  });

  it('points at files that exist: icons, the CLI launcher, the main entry', () => {
    expect(statSync(join(root, 'build/icons/icon.png')).size).toBeGreaterThan(100);
    const launcher = join(root, config.extraResources[0].from);
    expect(readFileSync(launcher, 'utf8')).toContain('ELECTRON_RUN_AS_NODE=1');
    expect(statSync(launcher).mode & 0o111).not.toBe(0);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(config.extraMetadata.main).toBe(pkg.main);
    expect(existsSync(join(root, 'electron/main/index.ts'))).toBe(true);
    expect(pkg.scripts.dist).toContain('electron-builder --config build/electron-builder.json');
  });
});
