/**
 * Each SQL statement is written once (issue 33): what both engines run alike lives in store/statements/ (turned into
 * each engine's placeholders by store/sql.ts), and an engine's own folder holds only the statements that really differ.
 * This counts the statement texts that still appear in both engines' folders (whitespace and placeholders normalised:
 * `?`, `@name` and `$n` all read `?`) and fails past 5.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const store = fileURLToPath(new URL('../../electron/core/store/', import.meta.url));
/** SQLite's repositories and engine folder; PostgreSQL's (migrations aside: schema, not statements). */
const SQLITE = ['repos', 'sqlite'];
const POSTGRES = ['postgres'];
const MAX_SHARED = 5;

const STATEMENT = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

function files(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : files(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** A statement text as both engines would compare it: one space, `?` for every placeholder, `${}` for every splice. */
export const normalised = (text: string): string =>
  text
    .replace(/\$\d+/g, '?')
    .replace(/@[A-Za-z_]\w*/g, '?')
    .replace(/\s+/g, ' ')
    .trim();

/** Every string or template literal of `file` that reads as an SQL statement, normalised, with where it is. */
function statements(file: string): Array<{ text: string; at: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ text: string; at: string }> = [];
  const at = (node: ts.Node) => `${relative(store, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = node.head.text + node.templateSpans.map((span) => '${}' + span.literal.text).join('');
    if (text !== undefined && STATEMENT.test(text)) found.push({ text: normalised(text), at: at(node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const collect = (folders: string[]) => folders.flatMap((folder) => files(join(store, folder))).flatMap(statements);

describe('statement texts', () => {
  it(`leaves at most ${MAX_SHARED} statement texts written in both engines' folders`, () => {
    const sqlite = collect(SQLITE);
    const postgres = collect(POSTGRES);
    const sqliteTexts = new Map(sqlite.map((s) => [s.text, s.at]));
    const shared = [...new Set(postgres.map((s) => s.text))].filter((text) => sqliteTexts.has(text));
    const report = shared.map((text) => `${sqliteTexts.get(text)} and ${postgres.find((s) => s.text === text)!.at}: ${text.slice(0, 100)}`);
    console.log(`statement texts: SQLite ${sqlite.length}, PostgreSQL ${postgres.length}, in both ${shared.length}`);
    expect(report.length <= MAX_SHARED ? [] : report).toEqual([]);
  });
});
