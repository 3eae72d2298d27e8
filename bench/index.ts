/**
 * `npm run bench -- NAME [ARGS…]`: runs one benchmark from dist/bench/NAME.js (built by `npm run build`).
 * Every benchmark starts its own loopback peers, bounds its loops, and prints ratios against a baseline
 * measured in the same run; figures are recorded in docs/performance.md.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'index.js' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- NAME [ARGS…]\n  NAME: ${available.join(', ')}\n`);
  process.exit(64);
}
process.argv = [process.argv[0]!, join(here, `${name}.js`), ...rest];
await import(pathToFileURL(join(here, `${name}.js`)).href);
