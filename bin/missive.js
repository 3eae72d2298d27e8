#!/usr/bin/env node
// The `missive` command: runs the bundled CLI (dist/cli, CommonJS, built by `npm install` through the `prepare`
// script), or the plain compiled modules when only `tsc` has run. A bare `--version` is answered from package.json
// without loading the CLI at all (scripts call it to probe for missive).
// This file is CommonJS (bin/package.json says so): an ES module entry started Node's ES module loader (an async read,
// the facade of every builtin it imports) for these few lines, about a tenth of a whole `missive agent list`.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version}\n`);
} else {
  const bundle = join(__dirname, '../dist/cli/missive.js');
  const modules = join(__dirname, '../dist/electron/cli/index.js');
  if (existsSync(bundle)) {
    startBundle(bundle);
  } else if (existsSync(modules)) {
    // (A failure to load is reported as an unhandled rejection, exit 1, as an awaited import was.)
    void import(pathToFileURL(modules).href);
  } else {
    process.stderr.write('missive: the CLI is not built yet; run `npm run build` (npm install does it for you).\n');
    process.exit(70);
  }
}

/**
 * Runs the bundle (its files load through the CommonJS loader alone), compiled from the code cache unless
 * MISSIVE_NO_COMPILE_CACHE is set (bin/compile-cache.js). First, WebAssembly is compiled by V8's baseline compiler
 * only: undici parses HTTP with llhttp's WebAssembly, and once it ran a few responses V8 compiled its parser again,
 * optimized, on another thread, about 100 ms that every `missive send` then waited for at exit, for a speed-up the
 * few responses of a command never use (docs/performance.md, issue 38). Set before anything is compiled, so the
 * code cache is keyed by these flags too.
 */
function startBundle(bundle) {
  const { setFlagsFromString } = require('node:v8');
  const { dirname } = require('node:path');
  const wasmFlags = '--no-wasm-tier-up --no-wasm-dynamic-tiering';
  setFlagsFromString(wasmFlags);
  if (!process.env.MISSIVE_NO_COMPILE_CACHE) {
    const { codeCacheRoot, installCompileCache } = require('./compile-cache.js');
    installCompileCache({
      bundleDir: dirname(bundle),
      entry: bundle,
      cacheRoot: codeCacheRoot(process.env, process.cwd()),
      flags: wasmFlags,
      uid: process.getuid?.(),
    });
  }
  require(bundle);
}
