#!/usr/bin/env node
// The `missive` command: runs the compiled CLI (built by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/electron/cli/index.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('missive: the CLI is not built yet; run `npm run build` (npm install does it for you).\n');
  process.exit(70);
}
await import(entry.href);
