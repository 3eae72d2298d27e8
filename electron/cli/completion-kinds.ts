/**
 * What the completion scripts are generated from (completion.ts, completion-powershell.ts): the command tree as the
 * scripts see it and what each value or argument completes to.
 */
import { allCommands, optionNames, type ArgumentSpec, type CommandSpec, type OptionSpec } from './command-tree.js';
import { argumentStoreValues, optionStoreValues, type StoreValueKind } from './completion-values.js';

/** One command as the scripts see it: its key (`missive agent add`) and its own options, the global ones left out. */
export interface Node {
  key: string;
  spec: CommandSpec;
  options: OptionSpec[];
}

/** The commands (the root first) and the global options: the program's, valid at any level, but `--version` and `--help`. */
export interface Tree {
  nodes: Node[];
  globals: OptionSpec[];
}

export function treeOf(root: CommandSpec): Tree {
  const globals = root.options.filter((o) => o.long !== '--version' && o.long !== '--help');
  const globalNames = new Set(optionNames(globals));
  const nodes = allCommands(root).map((spec) => ({
    key: spec.path.join(' '),
    spec,
    options: spec.options.filter((o) => !optionNames([o]).every((n) => globalNames.has(n))),
  }));
  return { nodes, globals };
}

/**
 * What a value or an argument completes to: its choices, names from the store (`missive __complete <kind>`, see
 * completion-values.ts), file names, directory names, or nothing known.
 */
export type ValueKind = { choices: string[] } | { values: StoreValueKind } | 'file' | 'directory' | 'none';

/** `<file>`, `<path|->`, `<output-file>`, `[path]`: file names; `<dir>`, `<output-dir>`: directory names; by the placeholder's word. */
export function valueKind(placeholder: string | undefined, choices: readonly string[] | undefined): ValueKind {
  if (choices?.length) return { choices: [...choices] };
  const word = (placeholder ?? '').toLowerCase().replace(/^[<[]|[>\]](\.\.\.)?$/g, '');
  if (/^([\w-]*-)?(dir|directory)s?$/.test(word)) return 'directory';
  if (/^([\w-]*-)?(path|file)s?(\|-)?$/.test(word)) return 'file';
  return 'none';
}

export const argumentKind = (a: ArgumentSpec, path: readonly string[]): ValueKind => {
  const values = a.choices?.length ? undefined : argumentStoreValues(path, a.name);
  return values ? { values } : valueKind(a.name, a.choices);
};
export const optionKind = (o: OptionSpec, path: readonly string[]): ValueKind => {
  const values = o.choices?.length ? undefined : optionStoreValues(path, o.long);
  return values ? { values } : valueKind(o.value, o.choices);
};
export const firstLine = (text: string) => text.split('\n')[0]!.trim();
export const subNames = (spec: CommandSpec) => spec.commands.flatMap((c) => [c.name, ...c.aliases]);
export const valued = (options: readonly OptionSpec[]) => optionNames(options.filter((o) => o.takesValue));
export const withValues = (options: readonly OptionSpec[], path: readonly string[]) =>
  options
    .filter((o) => o.takesValue)
    .map((o) => ({ option: o, kind: optionKind(o, path) }))
    .filter((v) => v.kind !== 'none');

/** A value kind as one word list: `file`, `directory`, `choices A B…` or `values KIND`. */
export const kindWord = (kind: ValueKind) =>
  typeof kind === 'string' ? kind : 'values' in kind ? `values ${kind.values}` : `choices ${kind.choices.join(' ')}`;
