/**
 * Bundles the compiled CLI (dist/electron/cli/index.js) into dist/cli/missive.js with rolldown: one module for what
 * every command needs, and a chunk per lazily loaded command or library (`import()` stays lazy). Resolving and
 * compiling one file instead of hundreds of small ESM modules is most of what `missive --version` and
 * `missive agent list` cost (docs/performance.md). Native modules and the ones loaded only by demo and gRPC stay
 * in node_modules.
 */
import { rmSync } from 'node:fs';
import { build } from 'rolldown';

const outDir = new URL('../dist/cli/', import.meta.url);
rmSync(outDir, { recursive: true, force: true });
await build({
  input: { missive: new URL('../dist/electron/cli/index.js', import.meta.url).pathname },
  platform: 'node',
  external: ['better-sqlite3', 'keytar', 'electron', 'express', '@grpc/grpc-js'],
  logLevel: 'warn',
  output: { dir: outDir.pathname, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', sourcemap: true },
});
