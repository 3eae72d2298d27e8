/**
 * Renders the tool reference of docs/mcp.md from the server's own tools/list (`missive mcp serve --allow-admin`,
 * without skill tools): each tool's name, title, description, hints and input fields (name, type, required,
 * description), admin tools marked. `build/gen-mcp-doc.mjs` writes it between TOOLS_BEGIN and TOOLS_END, and
 * test/unit/mcp-doc.test.ts fails when the committed text differs from what the tools render now.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createCore } from '../context.js';
import { createMemorySecretStore } from '../auth/secret-store.js';
import { createMissiveMcp } from './server.js';
import { STATIC_TOOLS } from './tools/index.js';

export const TOOLS_BEGIN = '<!-- tools:begin -->';
export const TOOLS_END = '<!-- tools:end -->';
/** The command that rewrites the generated section. */
export const REGENERATE_COMMAND = 'npm run docs:mcp';

type JsonSchema = Record<string, unknown>;

/** A property's JSON Schema type on one line: `string`, `"a" | "b"`, `string[]`, `integer 1–100`, `object`, … */
function typeOf(schema: JsonSchema | undefined): string {
  if (!schema || Object.keys(schema).length === 0) return 'any';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return [...new Set(union.map((s) => typeOf(s)))].join(' | ');
  const type = schema.type;
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') return ((item) => (item.includes(' | ') ? `(${item})[]` : `${item}[]`))(typeOf(schema.items as JsonSchema | undefined));
  if (type === 'integer' || type === 'number') {
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
    const range = min !== undefined && max !== undefined && max < Number.MAX_SAFE_INTEGER ? ` ${min}–${max}` : min !== undefined ? ` ≥ ${min}` : '';
    return `${type}${range}`;
  }
  // An object told apart by a constant `type` (a tagged union's member) shows its tag.
  const tag = (schema.properties as Record<string, JsonSchema> | undefined)?.type?.const;
  if (type === 'object' && typeof tag === 'string') return `{type: ${JSON.stringify(tag)}}`;
  return typeof type === 'string' ? type : 'any';
}

/** Text made safe for one Markdown table cell. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

function fieldTable(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return 'No input: `{}`.';
  const rows = names.map((name) => {
    const p = properties[name]!;
    const description = typeof p.description === 'string' ? p.description : '';
    return `| \`${name}\` | ${cell(typeOf(p))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(description)} |`;
  });
  return ['| Field | Type | Required | Description |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The hints a client may act on, in words: read-only, destructive, idempotent, open world, MCP task support. */
function hints(tool: Tool): string[] {
  const a = tool.annotations ?? {};
  return [
    a.readOnlyHint ? 'read-only' : null,
    a.destructiveHint ? 'destructive' : null,
    a.idempotentHint ? 'idempotent' : null,
    a.openWorldHint ? 'reaches agents over the network' : null,
    tool.execution?.taskSupport && tool.execution.taskSupport !== 'forbidden' ? `may run as an MCP task (${tool.execution.taskSupport})` : null,
  ].filter((h): h is string => h !== null);
}

/** One tool's section. */
export function renderTool(tool: Tool, admin: boolean): string {
  const said = hints(tool);
  return [
    `### \`${tool.name}\`${tool.title ? ` — ${tool.title}` : ''}`,
    '',
    ...(admin ? ['**Admin:** listed and callable only with `missive mcp serve --allow-admin`.', ''] : []),
    tool.description ?? '',
    '',
    ...(said.length ? [`Hints: ${said.join(', ')}.`, ''] : []),
    fieldTable(tool.inputSchema as JsonSchema),
  ].join('\n');
}

/** The anchor GitHub gives a tool's heading (lower case, punctuation dropped, spaces as hyphens). */
const anchor = (tool: Tool): string =>
  `${tool.name}${tool.title ? ` — ${tool.title}` : ''}`
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');

/** The generated section: a count, an index, then every tool in tools/list order. */
export function renderToolList(tools: readonly Tool[], adminNames: ReadonlySet<string>): string {
  const index = tools.map((t) => `- [\`${t.name}\`](#${anchor(t)})${adminNames.has(t.name) ? ' (admin)' : ''}`);
  return [
    `<!-- Generated from \`tools/list\` of \`missive mcp serve --allow-admin\` by build/gen-mcp-doc.mjs; do not edit by hand: run ${REGENERATE_COMMAND}. -->`,
    '',
    `${tools.length} tools (${adminNames.size} of them admin):`,
    '',
    ...index,
    '',
    tools.map((t) => renderTool(t, adminNames.has(t.name))).join('\n\n'),
  ].join('\n');
}

/** What tools/list answers now with `--allow-admin` and without skill tools, from a throw-away core (an empty store). */
export async function currentToolList(): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'missive-mcp-doc-'));
  const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH };
  const core = createCore({ env, cwd: home, secrets: createMemorySecretStore() });
  const mcp = createMissiveMcp({ core, cwd: home, allowAdmin: true, skillTools: false });
  try {
    const tools = await mcp.listTools();
    return renderToolList(tools, new Set(STATIC_TOOLS.filter((t) => t.admin).map((t) => t.name)));
  } finally {
    await mcp.close();
    core.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** The generated section of a document, or null when its markers are missing. */
export function toolSection(document: string): string | null {
  const begin = document.indexOf(TOOLS_BEGIN);
  const end = document.indexOf(TOOLS_END);
  if (begin === -1 || end === -1 || end < begin) return null;
  return document
    .slice(begin + TOOLS_BEGIN.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** The document with its generated section replaced by `section`; throws when the markers are missing. */
export function spliceToolList(document: string, section: string): string {
  const begin = document.indexOf(TOOLS_BEGIN);
  const end = document.indexOf(TOOLS_END);
  if (begin === -1 || end === -1 || end < begin) throw new Error(`the document lacks the ${TOOLS_BEGIN} … ${TOOLS_END} markers`);
  return `${document.slice(0, begin + TOOLS_BEGIN.length)}\n${section}\n${document.slice(end)}`;
}
