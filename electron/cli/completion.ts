/**
 * Shell completion scripts for bash, zsh, fish and PowerShell, generated from the command tree (command-tree.ts):
 * sub-commands and their aliases, each command's options plus the global ones, option values from their choices
 * (or file and directory names when the placeholder names a path), and positional arguments with choices. Every
 * script walks the words typed so far the same way: an operand that names a sub-command descends into it, an option
 * that takes a value skips its value.
 */
import { allCommands, optionNames, type ArgumentSpec, type CommandSpec, type OptionSpec } from './command-tree.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

/** One command as the scripts see it: its key (`missive agent add`) and its own options, the global ones left out. */
interface Node {
  key: string;
  spec: CommandSpec;
  options: OptionSpec[];
}

/** The commands (the root first) and the global options: the program's, valid at any level, but `--version` and `--help`. */
interface Tree {
  nodes: Node[];
  globals: OptionSpec[];
}

function treeOf(root: CommandSpec): Tree {
  const globals = root.options.filter((o) => o.long !== '--version' && o.long !== '--help');
  const globalNames = new Set(optionNames(globals));
  const nodes = allCommands(root).map((spec) => ({
    key: spec.path.join(' '),
    spec,
    options: spec.options.filter((o) => !optionNames([o]).every((n) => globalNames.has(n))),
  }));
  return { nodes, globals };
}

/** What a value or an argument completes to: its choices, file names, directory names, or nothing known. */
type ValueKind = { choices: string[] } | 'file' | 'directory' | 'none';

/** `<file>`, `<path|->`, `<output-file>`, `[path]`: file names; `<dir>`, `<output-dir>`: directory names; by the placeholder's word. */
function valueKind(placeholder: string | undefined, choices: readonly string[] | undefined): ValueKind {
  if (choices?.length) return { choices: [...choices] };
  const word = (placeholder ?? '').toLowerCase().replace(/^[<[]|[>\]](\.\.\.)?$/g, '');
  if (/^([\w-]*-)?(dir|directory)s?$/.test(word)) return 'directory';
  if (/^([\w-]*-)?(path|file)s?(\|-)?$/.test(word)) return 'file';
  return 'none';
}

const argumentKind = (a: ArgumentSpec) => valueKind(a.name, a.choices);
const firstLine = (text: string) => text.split('\n')[0]!.trim();
const subNames = (spec: CommandSpec) => spec.commands.flatMap((c) => [c.name, ...c.aliases]);
const valued = (options: readonly OptionSpec[]) => optionNames(options.filter((o) => o.takesValue));
const withValues = (options: readonly OptionSpec[]) =>
  options.filter((o) => o.takesValue).map((o) => ({ option: o, kind: valueKind(o.value, o.choices) })).filter((v) => v.kind !== 'none');

// ---------------------------------------------------------------------------------------------------- bash and zsh

/** A POSIX single-quoted word (bash and zsh). */
const sq = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The shared bash/zsh case tables: sub-command resolution, value-taking options, value and argument kinds. A
 * command's own options come first, then the global ones (`*:--config`), so an own option shadows a global one.
 */
function shTables({ nodes, globals }: Tree, fn: string): string[] {
  const lines: string[] = [];
  const cases = (options: readonly OptionSpec[], key: string) => optionNames(options).map((w) => (key === '*' ? `*${sq(`:${w}`)}` : sq(`${key}:${w}`))).join('|');
  lines.push(`# The sub-command a word names under a command (aliases resolved), or nothing.`, `${fn}_sub() {`, '  case "$1:$2" in');
  for (const n of nodes) for (const c of n.spec.commands) lines.push(`    ${[c.name, ...c.aliases].map((w) => sq(`${n.key}:${w}`)).join('|')}) echo ${sq(c.name)} ;;`);
  lines.push('  esac', '}', '');
  lines.push(`# Whether an option of a command takes a value (the next word).`, `${fn}_valued() {`, '  case "$1:$2" in');
  for (const [key, options] of [...nodes.map((n) => [n.key, n.options] as const), ['*', globals] as const]) {
    const own = options.filter((o) => o.takesValue);
    if (own.length) lines.push(`    ${cases(own, key)}) return 0 ;;`);
  }
  lines.push('  esac', '  return 1', '}', '');
  lines.push(`# What the value of an option completes to: "choices A B…", "file", "directory" or nothing.`, `${fn}_value() {`, '  case "$1:$2" in');
  for (const [key, options] of [...nodes.map((n) => [n.key, n.options] as const), ['*', globals] as const]) {
    for (const { option, kind } of withValues(options)) lines.push(`    ${cases([option], key)}) echo ${sq(kindWord(kind))} ;;`);
  }
  lines.push('  esac', '}', '');
  lines.push(`# What the Nth operand (from 0) of a command completes to, like ${fn}_value.`, `${fn}_arg() {`, '  case "$1:$2" in');
  for (const n of nodes) {
    n.spec.arguments.forEach((a, i) => {
      const kind = argumentKind(a);
      if (kind === 'none') return;
      // A variadic argument takes every later operand too: index i to 9 by one digit, 10 and more by two.
      const later = a.variadic && i < 10 ? `|${sq(`${n.key}:`)}[${i}-9]|${sq(`${n.key}:`)}[1-9][0-9]*` : '';
      lines.push(`    ${sq(`${n.key}:${i}`)}${later}) echo ${sq(kindWord(kind))} ;;`);
    });
  }
  lines.push('  esac', '}', '');
  return lines;
}

const kindWord = (kind: ValueKind) => (typeof kind === 'string' ? kind : `choices ${kind.choices.join(' ')}`);

/**
 * The walk over the words before the cursor, shared by bash and zsh: sets `cmdpath` (the command reached),
 * `operand` (operands after it), `skip` (1 when the current word is an option's value) and `valopt` (that option).
 * `$1…` are the words before the current one, the program name first.
 */
function shWalk(fn: string): string[] {
  return [
    `# Walks the words before the cursor: sets cmdpath, operand, skip (the current word is a value of valopt) and valopt.`,
    `${fn}_walk() {`,
    '  cmdpath=missive operand=0 skip=0 valopt= dashdash=0',
    '  shift',
    '  local w next',
    '  for w in "$@"; do',
    '    if [ "$skip" = 1 ]; then',
    '      [ "$w" = "=" ] || skip=0',
    '      continue',
    '    fi',
    '    if [ "$dashdash" = 1 ]; then operand=$((operand + 1)); continue; fi',
    '    case "$w" in',
    '      --) dashdash=1 ;;',
    '      --*=*) ;;',
    `      -?*) if ${fn}_valued "$cmdpath" "$w"; then skip=1 valopt="$w"; fi ;;`,
    '      *)',
    `        next="$(${fn}_sub "$cmdpath" "$w")"`,
    '        if [ -n "$next" ] && [ "$operand" = 0 ]; then cmdpath="$cmdpath $next"; else operand=$((operand + 1)); fi',
    '        ;;',
    '    esac',
    '  done',
    '}',
    '',
  ];
}

function bashScript(root: CommandSpec): string {
  const tree = treeOf(root);
  const fn = '_missive';
  const lines = [
    '# bash completion for missive, generated by `missive completion bash` from its command tree; do not edit.',
    '# Load it with: source <(missive completion bash)   (or save it as ~/.local/share/bash-completion/completions/missive)',
    '',
    `# The sub-commands (with aliases) of a command, or its options with the global ones.`,
    `${fn}_words() {`,
    '  case "$1:$2" in',
  ];
  for (const n of tree.nodes) {
    const subs = subNames(n.spec);
    if (subs.length) lines.push(`    ${sq(`cmds:${n.key}`)}) echo ${sq(subs.join(' '))} ;;`);
    if (n.options.length) lines.push(`    ${sq(`opts:${n.key}`)}) echo ${sq(optionNames(n.options).join(' '))} ;;`);
  }
  lines.push('  esac', `  [ "$1" = opts ] && echo ${sq(optionNames(tree.globals).join(' '))}`, '  return 0', '}', '');
  lines.push(...shTables(tree, fn), ...shWalk(fn));
  lines.push(
    `# Fills COMPREPLY with what a value kind ("choices …", "file", "directory") offers for the current word.`,
    `${fn}_offer() {`,
    '  case "$1" in',
    '    choices\\ *) COMPREPLY=($(compgen -W "${1#choices }" -- "$2")) ;;',
    '    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$2")) ;;',
    '    directory) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$2")) ;;',
    '    *) COMPREPLY=() ;;',
    '  esac',
    '}',
    '',
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" cmdpath operand skip valopt dashdash',
    `  ${fn}_walk "\${COMP_WORDS[@]:0:COMP_CWORD}"`,
    '  [ "$cur" = "=" ] && cur=',
    '  if [ "$skip" = 1 ]; then',
    `    ${fn}_offer "$(${fn}_value "$cmdpath" "$valopt")" "$cur"`,
    '    return 0',
    '  fi',
    '  if [ "$dashdash" = 0 ] && [[ "$cur" == -* ]]; then',
    `    COMPREPLY=($(compgen -W "$(${fn}_words opts "$cmdpath")" -- "$cur"))`,
    '    return 0',
    '  fi',
    `  local subs="$(${fn}_words cmds "$cmdpath")"`,
    '  if [ -n "$subs" ] && [ "$operand" = 0 ]; then',
    '    COMPREPLY=($(compgen -W "$subs" -- "$cur"))',
    '    return 0',
    '  fi',
    `  ${fn}_offer "$(${fn}_arg "$cmdpath" "$operand")" "$cur"`,
    '}',
    '',
    `complete -F ${fn} missive`,
  );
  return `${lines.join('\n')}\n`;
}

/** `name:description` for zsh's `_describe` (a colon in the name is escaped). */
const described = (name: string, description: string) => sq(`${name.replace(/:/g, '\\:')}:${firstLine(description)}`);

function zshScript(root: CommandSpec): string {
  const tree = treeOf(root);
  const fn = '_missive';
  const lines = [
    '#compdef missive',
    '# zsh completion for missive, generated by `missive completion zsh` from its command tree; do not edit.',
    '# Load it with: source <(missive completion zsh)   (or save it as _missive in a directory of $fpath)',
    '',
    `# Sets reply to the sub-commands of a command, as name:description.`,
    `${fn}_commands() {`,
    '  case "$1" in',
  ];
  for (const n of tree.nodes) {
    if (!n.spec.commands.length) continue;
    const entries = n.spec.commands.flatMap((c) => [c.name, ...c.aliases].map((w) => described(w, c.description)));
    lines.push(`    ${sq(n.key)}) reply=(${entries.join(' ')}) ;;`);
  }
  lines.push('    *) reply=() ;;', '  esac', '}', '');
  const entriesOf = (options: readonly OptionSpec[]) => options.flatMap((o) => optionNames([o]).map((name) => described(name, o.description)));
  lines.push(`# Sets reply to the options of a command (its own, then the global ones), as name:description.`, `${fn}_options() {`, '  case "$1" in');
  for (const n of tree.nodes) if (n.options.length) lines.push(`    ${sq(n.key)}) reply=(${entriesOf(n.options).join(' ')}) ;;`);
  lines.push('    *) reply=() ;;', '  esac', `  reply+=(${entriesOf(tree.globals).join(' ')})`, '}', '');
  lines.push(...shTables(tree, fn), ...shWalk(fn));
  lines.push(
    `# Offers what a value kind ("choices …", "file", "directory") completes to.`,
    `${fn}_offer() {`,
    '  case "$1" in',
    "    choices\\ *) local -a values; values=(${=${1#choices }}); compadd -a values ;;",
    '    file) _files ;;',
    '    directory) _files -/ ;;',
    '  esac',
    '}',
    '',
    `${fn}() {`,
    '  local cmdpath operand skip valopt dashdash cur="${words[CURRENT]}"',
    '  local -a reply',
    `  ${fn}_walk "\${(@)words[1,CURRENT-1]}"`,
    '  if [ "$skip" = 1 ]; then',
    `    ${fn}_offer "$(${fn}_value "$cmdpath" "$valopt")"`,
    '    return',
    '  fi',
    '  if [ "$dashdash" = 0 ] && [[ "$cur" == -* ]]; then',
    `    ${fn}_options "$cmdpath"`,
    "    _describe -t options 'option' reply",
    '    return',
    '  fi',
    `  ${fn}_commands "$cmdpath"`,
    '  if (( ${#reply} )) && [ "$operand" = 0 ]; then',
    "    _describe -t commands 'command' reply",
    '    return',
    '  fi',
    `  ${fn}_offer "$(${fn}_arg "$cmdpath" "$operand")"`,
    '}',
    '',
    'if [ "${funcstack[1]}" = "_missive" ]; then',
    `  ${fn} "$@"`,
    'else',
    `  compdef ${fn} missive`,
    'fi',
  );
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------------------------------------------------ fish

/** A fish single-quoted word. */
const fq = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`;

function fishScript(root: CommandSpec): string {
  const { nodes, globals } = treeOf(root);
  const lines = [
    '# fish completion for missive, generated by `missive completion fish` from its command tree; do not edit.',
    '# Load it with: missive completion fish | source   (or save it as ~/.config/fish/completions/missive.fish)',
    '',
    '# The sub-command a word names under a command (aliases resolved), or nothing.',
    'function __missive_sub',
    '    switch "$argv[1]:$argv[2]"',
  ];
  for (const n of nodes) for (const c of n.spec.commands) lines.push(`        case ${[c.name, ...c.aliases].map((w) => fq(`${n.key}:${w}`)).join(' ')}`, `            echo ${fq(c.name)}`);
  lines.push('    end', 'end', '');
  lines.push('# The options of a command that take a value (the next word): its own, then the global ones.', 'function __missive_valued', '    switch "$argv[1]"');
  for (const n of nodes) {
    const names = valued(n.options);
    if (names.length) lines.push(`        case ${fq(n.key)}`, `            printf '%s\\n' ${names.map(fq).join(' ')}`);
  }
  lines.push('    end', `    printf '%s\\n' ${valued(globals).map(fq).join(' ')}`, 'end', '');
  lines.push(
    '# The command the words before the cursor reach.',
    'function __missive_path',
    '    set -l cmdpath missive',
    '    set -l skip 0',
    '    set -l operand 0',
    '    for w in (commandline -opc)[2..-1]',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $w',
    "            case '--*=*'",
    "            case '-*'",
    '                if contains -- $w (__missive_valued $cmdpath)',
    '                    set skip 1',
    '                end',
    "            case '*'",
    '                set -l next (__missive_sub $cmdpath $w)',
    '                if test -n "$next" -a $operand = 0',
    '                    set cmdpath "$cmdpath $next"',
    '                else',
    '                    set operand (math $operand + 1)',
    '                end',
    '        end',
    '    end',
    '    echo $cmdpath',
    'end',
    '',
    '# True when the words before the cursor reach exactly this command.',
    'function __missive_at',
    '    test (__missive_path) = "$argv[1]"',
    'end',
    '',
    'complete -c missive -f',
  );
  const optionLine = (o: OptionSpec, condition?: string) => {
    const parts = ['complete -c missive'];
    if (condition) parts.push(`-n ${fq(`__missive_at "${condition}"`)}`);
    if (o.long) parts.push(`-l ${fq(o.long.replace(/^--/, ''))}`);
    if (o.short) parts.push(`-s ${fq(o.short.replace(/^-/, ''))}`);
    if (o.takesValue) {
      const kind = valueKind(o.value, o.choices);
      parts.push(typeof kind === 'object' ? `-x -a ${fq(kind.choices.join(' '))}` : kind === 'file' || kind === 'directory' ? '-r -F' : '-x');
    }
    parts.push(`-d ${fq(firstLine(o.description))}`);
    return parts.join(' ');
  };
  lines.push('', '# Global options (valid at any level).');
  for (const o of globals) lines.push(optionLine(o));
  for (const n of nodes) {
    const ownOptions = n.options;
    const args = n.spec.arguments.map(argumentKind).filter((k) => k !== 'none');
    if (!n.spec.commands.length && !ownOptions.length && !args.length) continue;
    lines.push('', `# ${n.key}`);
    const at = fq(`__missive_at "${n.key}"`);
    for (const c of n.spec.commands) for (const w of [c.name, ...c.aliases]) lines.push(`complete -c missive -n ${at} -a ${fq(w)} -d ${fq(firstLine(c.description))}`);
    for (const o of ownOptions) lines.push(optionLine(o, n.key));
    for (const kind of args) lines.push(typeof kind === 'object' ? `complete -c missive -n ${at} -a ${fq(kind.choices.join(' '))}` : `complete -c missive -n ${at} -F`);
  }
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------------------------------------------ PowerShell

/** A PowerShell single-quoted string. */
const pq = (text: string) => `'${text.replace(/'/g, "''")}'`;
const psArray = (items: readonly string[]) => `@(${items.join(', ')})`;
/** A list whose items may be arrays: one statement per item, each `,x` emitting x itself (never flattened). */
const psList = (items: readonly string[]) => `@(${items.map((i) => `,${i}`).join('; ')})`;

/** The PowerShell hashtable of one command (or of the global options, with no sub-commands or arguments). */
function psEntry(key: string, options: readonly OptionSpec[], spec?: CommandSpec): string[] {
  const commands = (spec?.commands ?? []).flatMap((c) => [c.name, ...c.aliases].map((w) => psArray([pq(w), pq(c.name), pq(firstLine(c.description) || c.name)])));
  const entries = options.flatMap((o) => optionNames([o]).map((name) => psArray([pq(name), pq(firstLine(o.description) || name)])));
  const values = withValues(options).flatMap(({ option, kind }) =>
    optionNames([option]).map((name) => `${pq(name)} = ${typeof kind === 'object' ? psArray(kind.choices.map(pq)) : pq(kind)}`),
  );
  const args = (spec?.arguments ?? []).map((a) => {
    const kind = argumentKind(a);
    return typeof kind === 'object' ? psArray(kind.choices.map(pq)) : pq(kind);
  });
  return [
    `  ${pq(key)} = @{`,
    `    Commands = ${psList(commands)}`,
    `    Options = ${psList(entries)}`,
    `    Valued = ${psArray(valued(options).map(pq))}`,
    `    Values = @{ ${values.join('; ')} }`,
    `    Args = ${psList(args)}`,
    `    Variadic = $${spec?.arguments.at(-1)?.variadic ? 'true' : 'false'}`,
    '  }',
  ];
}

function powershellScript(root: CommandSpec): string {
  const { nodes, globals } = treeOf(root);
  const lines = [
    '# PowerShell completion for missive, generated by `missive completion powershell` from its command tree; do not edit.',
    '# Load it with: missive completion powershell | Out-String | Invoke-Expression   (e.g. in $PROFILE)',
    '',
    '# Per command: Commands (word, command name, description), Options (name, description), Valued (options taking a',
    '# value), Values (option -> choices, or "file" / "directory"), Args (the operands in order, likewise); "*" holds',
    '# the global options, valid at any level.',
    '$global:MissiveCompletionTree = @{',
  ];
  lines.push(...psEntry('*', globals));
  for (const n of nodes) lines.push(...psEntry(n.key, n.options, n.spec));
  lines.push(
    '}',
    '',
    'Register-ArgumentCompleter -Native -CommandName missive -ScriptBlock {',
    '  param($wordToComplete, $commandAst, $cursorPosition)',
    '  $words = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -le $cursorPosition } | ForEach-Object { $_.ToString() })',
    "  if ($wordToComplete -ne '' -and $words.Count -gt 0) { $words = @($words | Select-Object -First ($words.Count - 1)) }",
    "  $tree = $global:MissiveCompletionTree; $globals = $tree['*']",
    "  $path = 'missive'; $operand = 0; $skip = $false; $valopt = $null; $dashdash = $false",
    '  foreach ($w in @($words | Select-Object -Skip 1)) {',
    '    if ($skip) { $skip = $false; continue }',
    '    if ($dashdash) { $operand++; continue }',
    "    if ($w -eq '--') { $dashdash = $true; continue }",
    "    if ($w.StartsWith('-')) {",
    "      if (-not $w.Contains('=') -and ($tree[$path].Valued -contains $w -or $globals.Valued -contains $w)) { $skip = $true; $valopt = $w }",
    '      continue',
    '    }',
    '    $sub = $tree[$path].Commands | Where-Object { $_[0] -eq $w } | Select-Object -First 1',
    '    if ($sub -and $operand -eq 0) { $path = "$path $($sub[1])" } else { $operand++ }',
    '  }',
    '  $node = $tree[$path]',
    '  $candidates = @()',
    '  $kind = $null',
    '  if ($skip) { $kind = $node.Values[$valopt]; if ($null -eq $kind) { $kind = $globals.Values[$valopt] } }',
    "  elseif (-not $dashdash -and $wordToComplete.StartsWith('-')) { $candidates = @(@($node.Options) + @($globals.Options) | ForEach-Object { ,@($_[0], $_[1], 'ParameterName') }) }",
    "  elseif ($node.Commands.Count -gt 0 -and $operand -eq 0) { $candidates = @($node.Commands | ForEach-Object { ,@($_[0], $_[2], 'Command') }) }",
    '  elseif ($operand -lt $node.Args.Count) { $kind = $node.Args[$operand] }',
    '  elseif ($node.Variadic -and $node.Args.Count -gt 0) { $kind = $node.Args[$node.Args.Count - 1] }',
    '  if ($kind -is [array]) { $candidates = @($kind | ForEach-Object { ,@($_, $_, \'ParameterValue\') }) }',
    "  elseif ($kind -eq 'file' -or $kind -eq 'directory') { return }",
    '  $candidates | Where-Object { $_[0] -like "$wordToComplete*" } | ForEach-Object {',
    '    [System.Management.Automation.CompletionResult]::new($_[0], $_[0], $_[2], $_[1])',
    '  }',
    '}',
  );
  return `${lines.join('\n')}\n`;
}

/** The completion script of `shell` for the tree rooted at `root` (the whole program). */
export function completionScript(shell: Shell, root: CommandSpec): string {
  switch (shell) {
    case 'bash':
      return bashScript(root);
    case 'zsh':
      return zshScript(root);
    case 'fish':
      return fishScript(root);
    case 'powershell':
      return powershellScript(root);
  }
}
