/**
 * Rewrites the generated channel reference of docs/automation.md (between `<!-- generated:channels:begin -->` and
 * `<!-- generated:channels:end -->`) from the IPC contract, through the compiled electron/core/adapters/contract-doc.ts
 * (run `npx tsc -p tsconfig.build.json` first). `--check`: change nothing, exit 1 when the committed text is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const docUrl = new URL('../docs/automation.md', import.meta.url);
const { spliceGenerated, REGENERATE_COMMAND } = await import(new URL('../dist/electron/core/adapters/contract-doc.js', import.meta.url).href);
const current = readFileSync(docUrl, 'utf8');
const next = spliceGenerated(current);
if (process.argv.includes('--check')) {
  if (next !== current) {
    process.stderr.write(`docs/automation.md is out of date with shared/ipc/contract.ts; run: ${REGENERATE_COMMAND}\n`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(docUrl, next);
  process.stdout.write('docs/automation.md: channel reference regenerated\n');
}
