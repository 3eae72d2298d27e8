#!/usr/bin/env node
// The `missive` command: runs the bundled CLI (dist/cli, CommonJS, built by `npm install` through the `prepare`
// script), or the plain compiled modules when only `tsc` has run. A bare `--version` is answered from package.json
// without loading the CLI at all (scripts call it to probe for missive).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const bundle = fileURLToPath(new URL('../dist/cli/missive.js', import.meta.url));
  const modules = new URL('../dist/electron/cli/index.js', import.meta.url);
  if (existsSync(bundle)) {
    // require, not import(): the bundle and its chunks load through the CommonJS loader alone.
    createRequire(import.meta.url)(bundle);
  } else if (existsSync(modules)) {
    await import(modules.href);
  } else {
    process.stderr.write('missive: the CLI is not built yet; run `npm run build` (npm install does it for you).\n');
    process.exit(70);
  }
}
