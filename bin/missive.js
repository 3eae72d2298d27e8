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
    // The bundle and its chunks load through the CommonJS loader alone.
    require(bundle);
  } else if (existsSync(modules)) {
    // (A failure to load is reported as an unhandled rejection, exit 1, as an awaited import was.)
    void import(pathToFileURL(modules).href);
  } else {
    process.stderr.write('missive: the CLI is not built yet; run `npm run build` (npm install does it for you).\n');
    process.exit(70);
  }
}
