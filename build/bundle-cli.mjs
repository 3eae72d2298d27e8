/**
 * Bundles the compiled CLI (dist/electron/cli/index.js) into dist/cli/missive.js with rolldown: one module for what
 * every command needs, and a chunk per lazily loaded command or library (`import()` stays lazy). Resolving and
 * compiling one file instead of hundreds of small ESM modules is most of what `missive --version` and
 * `missive agent list` cost (docs/performance.md). The bundle is CommonJS (dist/cli/package.json says so): Node
 * loads CommonJS files synchronously, without the ES module loader's per-module resolve, read, link and evaluate
 * steps, which made up a third of a whole `missive send`. Native modules and the ones loaded only by demo and gRPC
 * stay in node_modules.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'rolldown';

const outDir = new URL('../dist/cli/', import.meta.url);
rmSync(outDir, { recursive: true, force: true });
await build({
  input: { missive: new URL('../dist/electron/cli/index.js', import.meta.url).pathname },
  platform: 'node',
  external: ['better-sqlite3', 'keytar', 'electron', 'express', '@grpc/grpc-js'],
  logLevel: 'warn',
  output: { dir: outDir.pathname, format: 'cjs', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', sourcemap: true },
});
// No name, so install-root.ts walks on to missive's own package.json.
writeFileSync(new URL('package.json', outDir), `${JSON.stringify({ type: 'commonjs' })}\n`);
