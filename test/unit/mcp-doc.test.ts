/**
 * docs/mcp.md lists every tool of `missive mcp serve --allow-admin`: its generated section must equal what
 * electron/core/mcp/tool-doc.ts renders from the server's tools/list now, so a new tool, a renamed field or a changed
 * description fails here until the document is regenerated (`npm run docs:mcp`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STATIC_TOOLS } from '../../electron/core/mcp/tools/index.js';
import { currentToolList, REGENERATE_COMMAND, renderTool, spliceToolList, toolSection, TOOLS_BEGIN, TOOLS_END } from '../../electron/core/mcp/tool-doc.js';

const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');

describe('docs/mcp.md', () => {
  it("has a generated tool reference equal to what the server's tools/list renders now", async () => {
    const committed = toolSection(doc);
    expect(committed, `docs/mcp.md lacks the ${TOOLS_BEGIN} … ${TOOLS_END} markers`).not.toBeNull();
    const fresh = await currentToolList();
    if (committed !== fresh) {
      const at = [...fresh].findIndex((ch, i) => committed![i] !== ch);
      const line = fresh.slice(0, at === -1 ? committed!.length : at).split('\n').length;
      expect.fail(
        `docs/mcp.md is out of date with the MCP tools (first difference at line ${line} of the generated section); regenerate it with: ${REGENERATE_COMMAND}`,
      );
    }
    expect(spliceToolList(doc, fresh)).toBe(doc);
  });

  it('documents every tool, admin ones marked', () => {
    const section = toolSection(doc) ?? '';
    for (const tool of STATIC_TOOLS) {
      expect(section, `no heading for ${tool.name}`).toContain(`### \`${tool.name}\``);
      const start = section.indexOf(`### \`${tool.name}\``);
      const next = section.indexOf('\n### ', start + 1);
      const body = section.slice(start, next === -1 ? undefined : next);
      expect(body.includes('**Admin:**'), `${tool.name} admin mark`).toBe(Boolean(tool.admin));
    }
  });

  it('renders each input field with its type, whether it is required and its description', () => {
    const rendered = renderTool(
      {
        name: 'demo',
        title: 'Demo',
        description: 'Does a demo.',
        inputSchema: {
          type: 'object',
          properties: { agent: { type: 'string', description: 'the alias | name' }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
          required: ['agent'],
        },
        annotations: { readOnlyHint: true },
      },
      true,
    );
    expect(rendered).toContain('### `demo` — Demo');
    expect(rendered).toContain('**Admin:**');
    expect(rendered).toContain('Hints: read-only.');
    expect(rendered).toContain('| `agent` | string | yes | the alias \\| name |');
    expect(rendered).toContain('| `limit` | integer 1–100 | no |  |');
  });
});
