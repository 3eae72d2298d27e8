/**
 * The committed icons in build/icons: every size the platforms take, real PNGs that decode, visible pixels at tray
 * sizes, macOS template images in black and alpha only, and no file that build/make-icons.mjs would draw differently.
 * Then electron-builder's own icon step on the packaging config: the Linux icon set it collects, and the mac (icns)
 * and Windows (ico) sources it picks and checks for size, the check `npm run dist` failed on for mac (issue 20).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const root = process.cwd();
const dir = join(root, 'build/icons');
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
const EXPECTED: Record<string, number> = {
  ...Object.fromEntries(LINUX_SIZES.map((n) => [`${n}x${n}.png`, n])),
  'icon.png': 1024,
  'tray.png': 32,
  'tray@2x.png': 64,
  'trayTemplate.png': 16,
  'trayTemplate@2x.png': 32,
};

function decode(name: string): PNG {
  return PNG.sync.read(readFileSync(join(dir, name)));
}

/** Shares of the image that are mostly opaque, and of those, white (the glyph) and not white (the background). */
function shares(png: PNG): { opaque: number; white: number; colour: number } {
  let opaque = 0;
  let white = 0;
  const d = png.data;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3]! < 128) continue;
    opaque++;
    if (d[i]! > 240 && d[i + 1]! > 240 && d[i + 2]! > 240) white++;
  }
  const total = png.width * png.height;
  return { opaque: opaque / total, white: white / total, colour: (opaque - white) / total };
}

describe('icons', () => {
  it('holds exactly the icon files the platforms and the tray use, no stale extras', () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s decodes as an RGBA PNG of %i px square', (name, size) => {
    const png = decode(name);
    expect([png.width, png.height]).toEqual([size, size]);
    expect(png.data.length).toBe(size * size * 4);
  });

  it.each([...LINUX_SIZES.map((n) => `${n}x${n}.png`), 'icon.png', 'tray.png', 'tray@2x.png'])('%s shows a white glyph on a coloured square', (name) => {
    const { opaque, white, colour } = shares(decode(name));
    expect(opaque).toBeGreaterThan(0.6);
    expect(white).toBeGreaterThan(0.05);
    expect(colour).toBeGreaterThan(0.4);
  });

  it('fills most of the tray icon, so it reads at 16-32 px', () => {
    expect(shares(decode('tray.png')).opaque).toBeGreaterThan(0.9);
  });

  it.each(['trayTemplate.png', 'trayTemplate@2x.png'])('%s is a macOS template image: black with alpha only, visible', (name) => {
    const png = decode(name);
    const d = png.data;
    const coloured: number[] = [];
    for (let i = 0; i < d.length; i += 4) if (d[i + 3]! > 0 && (d[i]! | d[i + 1]! | d[i + 2]!) !== 0) coloured.push(i / 4);
    expect(coloured).toEqual([]);
    expect(shares(png).opaque).toBeGreaterThan(0.3);
    // both fully transparent and fully opaque pixels: a shape, not a filled or empty square
    const alphas = new Set<number>();
    for (let i = 3; i < d.length; i += 4) alphas.add(d[i]!);
    expect(alphas.has(0) && alphas.has(255)).toBe(true);
  });

  it('icon.png is large enough for the macOS icns (>= 512) and the Windows ico (>= 256)', () => {
    expect(decode('icon.png').width).toBeGreaterThanOrEqual(512);
  });

  it('matches what build/make-icons.mjs draws (the committed icons are reproducible)', () => {
    expect(() => execFileSync(process.execPath, ['build/make-icons.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});

describe("electron-builder's icon step on build/electron-builder.json", () => {
  const config = JSON.parse(readFileSync(join(root, 'build/electron-builder.json'), 'utf8'));
  const { convertIcon } = require('app-builder-lib/out/util/iconConverter.js');
  const roots = [join(root, config.directories.buildResources), root];
  // The icns/ico encoder is a toolset electron-builder downloads (not reachable here); this stand-in records its input.
  const scratch = mkdtempSync(join(tmpdir(), 'missive-icons-'));
  const toolLog = join(scratch, 'tool.log');
  writeFileSync(
    join(scratch, 'icon-tool.js'),
    `const fs = require('fs'); const arg = (n) => process.argv.find((a) => a.startsWith('--' + n + '='))?.slice(n.length + 3);
     fs.appendFileSync(${JSON.stringify(toolLog)}, arg('input') + ' ' + arg('format') + '\\n');
     fs.writeFileSync(arg('out') + '/icon.' + arg('format'), Buffer.from([0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 22, 0, 0, 0]));`,
  );
  const previous = process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR;
  process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR = scratch;
  afterAll(() => {
    if (previous === undefined) delete process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR;
    else process.env.ELECTRON_BUILDER_ICONS_TOOLSET_DIR = previous;
    rmSync(scratch, { recursive: true, force: true });
  });
  const convert = (sources: string[], format: string) => convertIcon({ sources, fallbackSources: [], roots, format, outDir: join(scratch, `out-${format}`) });

  it('collects the Linux icon set from linux.icon with every size, 16 to 1024', async () => {
    const { icons, isFallback } = await convert([config.linux.icon], 'set');
    expect(isFallback).toBe(false);
    expect(icons.map((i: { size: number }) => i.size)).toEqual(LINUX_SIZES);
  });

  it.each([
    ['mac', 'icns'],
    ['win', 'ico'],
  ])('takes %s.icon (%s) from the 1024 px icon.png, passing its size check', async (platform, format) => {
    const { isFallback } = await convert([config[platform].icon], format);
    expect(isFallback).toBe(false);
    expect(readFileSync(toolLog, 'utf8')).toContain(`${join(dir, 'icon.png')} ${format}`);
  });

  it('refuses a mac icon under 512 px (the size check above is live)', async () => {
    await expect(convert(['build/icons/256x256.png'], 'icns')).rejects.toMatchObject({ code: 'ERR_ICON_TOO_SMALL' });
  });
});
