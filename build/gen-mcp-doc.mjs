/**
 * Rewrites the generated tool reference of docs/mcp.md (between `<!-- tools:begin -->` and `<!-- tools:end -->`) from
 * the MCP server's own tools/list (`missive mcp serve --allow-admin`, no skill tools), through the compiled
 * electron/core/mcp/tool-doc.ts (run `npx tsc -p tsconfig.build.json` first; `npm run docs:mcp` does both).
 * `--check`: change nothing, exit 1 when the committed text is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const docUrl = new URL('../docs/mcp.md', import.meta.url);
const { currentToolList, spliceToolList, REGENERATE_COMMAND } = await import(new URL('../dist/electron/core/mcp/tool-doc.js', import.meta.url).href);
const current = readFileSync(docUrl, 'utf8');
const next = spliceToolList(current, await currentToolList());
if (process.argv.includes('--check')) {
  if (next !== current) {
    process.stderr.write(`docs/mcp.md is out of date with the MCP server's tools; run: ${REGENERATE_COMMAND}\n`);
    process.exit(1);
  }
} else if (next !== current) {
  writeFileSync(docUrl, next);
  process.stdout.write('docs/mcp.md: tool reference regenerated\n');
}
