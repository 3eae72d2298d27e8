#!/usr/bin/env node
/**
 * Draws missive's icons and writes them as PNGs into build/icons (they are committed; this script reproduces them).
 *
 *   node build/make-icons.mjs           write every icon
 *   node build/make-icons.mjs --check   exit 1, naming the files, when a committed icon differs from what this draws
 *
 * The design: a rounded square in indigo (a top-to-bottom gradient) holding a white envelope whose flap is cut in the
 * background colour. Every pixel averages a grid of samples (8x8 up to 64 px, fewer above), so edges are antialiased
 * at every size; the flap's stroke never gets thinner than about a pixel, so it still reads at 16 px.
 *
 *   <N>x<N>.png            N = 16 … 1024, electron-builder's Linux icon set (the deb and AppImage take build/icons)
 *   icon.png               1024 px, for macOS (icns needs ≥ 512) and Windows (ico needs ≥ 256)
 *   tray.png, tray@2x.png  32 and 64 px: the coloured tray icon (Linux, Windows), filling its square
 *   trayTemplate.png, trayTemplate@2x.png
 *                          16 and 32 px: the macOS template image, black with alpha only (the menu bar tints it)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pngjs from 'pngjs';

const { PNG } = pngjs;
const outDir = join(dirname(fileURLToPath(import.meta.url)), 'icons');

const TOP = [99, 102, 241]; // indigo-500
const BOTTOM = [55, 48, 163]; // indigo-800
const WHITE = [255, 255, 255];
const BLACK = [0, 0, 0];

/** Signed distance from (x, y) to a box centred at (cx, cy) with half sizes (hx, hy) and corner radius r: < 0 inside. */
function roundBox(x, y, cx, cy, hx, hy, r) {
  const qx = Math.abs(x - cx) - hx + r;
  const qy = Math.abs(y - cy) - hy + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

/** Distance from (x, y) to the segment (ax, ay)–(bx, by). */
function segment(x, y, ax, ay, bx, by) {
  const px = x - ax;
  const py = y - ay;
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.min(Math.max((px * dx + py * dy) / (dx * dx + dy * dy), 0), 1);
  return Math.hypot(px - t * dx, py - t * dy);
}

/**
 * The envelope in unit coordinates: its body box and the V of its flap (a stroke from both top corners to the middle).
 * `scale` grows it around the centre (the tray icons have no background square, so the glyph fills the image).
 */
function envelope(scale, size) {
  const hx = 0.29 * scale;
  const hy = 0.2 * scale;
  const top = 0.5 - hy;
  const tip = 0.5 + 0.04 * scale;
  const stroke = Math.max(0.035 * scale, 0.55 / size);
  return {
    inBody: (x, y) => roundBox(x, y, 0.5, 0.5, hx, hy, 0.04 * scale) < 0,
    inFlap: (x, y) => Math.min(segment(x, y, 0.5 - hx, top, 0.5, tip), segment(x, y, 0.5 + hx, top, 0.5, tip)) < stroke,
  };
}

/**
 * A sampler returns the colour [r, g, b] at a point of the unit square, or null where the icon is transparent.
 * `margin` is the transparent border around the background square (macOS and Linux icon grids leave one).
 */
function appIconSampler(margin, size) {
  const half = 0.5 - margin;
  const radius = 0.225 * (1 - 2 * margin);
  const glyph = envelope(1 - 2 * margin, size);
  return (x, y) => {
    if (roundBox(x, y, 0.5, 0.5, half, half, radius) >= 0) return null;
    if (glyph.inBody(x, y) && !glyph.inFlap(x, y)) return WHITE;
    const t = Math.min(Math.max((y - margin) / (1 - 2 * margin), 0), 1);
    return TOP.map((c, i) => c + (BOTTOM[i] - c) * t);
  };
}

/** The macOS template image: the envelope alone, black, with its flap cut out (transparent). */
function templateSampler(size) {
  const glyph = envelope(1.6, size);
  return (x, y) => (glyph.inBody(x, y) && !glyph.inFlap(x, y) ? BLACK : null);
}

/** Renders a sampler at size × size: each pixel averages samples² premultiplied samples, then un-premultiplies. */
function render(sampler, size) {
  const SAMPLES = size <= 64 ? 8 : size <= 256 ? 4 : 3;
  const png = new PNG({ width: size, height: size });
  const n = SAMPLES * SAMPLES;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const colour = sampler((px + (sx + 0.5) / SAMPLES) / size, (py + (sy + 0.5) / SAMPLES) / size);
          if (!colour) continue;
          r += colour[0];
          g += colour[1];
          b += colour[2];
          a += 1;
        }
      }
      const i = (py * size + px) * 4;
      png.data[i] = a ? Math.round(r / a) : 0;
      png.data[i + 1] = a ? Math.round(g / a) : 0;
      png.data[i + 2] = a ? Math.round(b / a) : 0;
      png.data[i + 3] = Math.round((a / n) * 255);
    }
  }
  return png;
}

const app = (size) => appIconSampler(0.0625, size);
const tray = (size) => appIconSampler(0, size);

/** Every icon file: its name, which drawing and its size. */
const ICONS = [
  ...[16, 24, 32, 48, 64, 128, 256, 512, 1024].map((n) => ({ name: `${n}x${n}.png`, draw: app, size: n })),
  { name: 'icon.png', draw: app, size: 1024 },
  { name: 'tray.png', draw: tray, size: 32 },
  { name: 'tray@2x.png', draw: tray, size: 64 },
  { name: 'trayTemplate.png', draw: templateSampler, size: 16 },
  { name: 'trayTemplate@2x.png', draw: templateSampler, size: 32 },
];

function main() {
  const check = process.argv.includes('--check');
  const stale = [];
  mkdirSync(outDir, { recursive: true });
  const drawn = new Map();
  for (const { name, draw, size } of ICONS) {
    const key = `${draw.name}:${size}`;
    if (!drawn.has(key)) drawn.set(key, render(draw(size), size));
    const png = drawn.get(key);
    const file = join(outDir, name);
    if (check) {
      let committed = null;
      try {
        committed = PNG.sync.read(readFileSync(file));
      } catch {
        // missing or undecodable: stale
      }
      if (!committed || committed.width !== size || committed.height !== size || !committed.data.equals(png.data)) stale.push(name);
    } else {
      writeFileSync(file, PNG.sync.write(png, { colorType: 6 }));
    }
  }
  if (stale.length) {
    process.stderr.write(`icons out of date: ${stale.join(', ')}; run: node build/make-icons.mjs\n`);
    process.exit(1);
  }
  if (!check) process.stdout.write(`wrote ${ICONS.length} icons to ${outDir}\n`);
}

main();
