/**
 * Shell completion scripts for bash, zsh, fish and PowerShell, generated from the command tree (command-tree.ts):
 * sub-commands and their aliases, each command's options plus the global ones, option values from their choices
 * (or file and directory names when the placeholder names a path, or agents, groups, contexts and tasks from the
 * store through the hidden `missive __complete`), and positional arguments likewise. Every
 * script walks the words typed so far the same way: an operand that names a sub-command descends into it, an option
 * that takes a value skips its value.
 */
import { optionNames, type CommandSpec, type OptionSpec } from './command-tree.js';
import type { StoreValueKind } from './completion-values.js';
import { argumentKind, firstLine, kindWord, optionKind, subNames, treeOf, valued, withValues, type Tree } from './completion-kinds.js';
import { powershellScript } from './completion-powershell.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

// ---------------------------------------------------------------------------------------------------- bash and zsh

/** A POSIX single-quoted word (bash and zsh). */
const sq = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The shared bash/zsh case tables: sub-command resolution, value-taking options, value and argument kinds. A
 * command's own options come first, then the global ones (`*:--config`), so an own option shadows a global one.
 */
function shTables({ nodes, globals }: Tree, fn: string): string[] {
  const lines: string[] = [];
  const cases = (options: readonly OptionSpec[], key: string) =>
    optionNames(options)
      .map((w) => (key === '*' ? `*${sq(`:${w}`)}` : sq(`${key}:${w}`)))
      .join('|');
  lines.push(`# The sub-command a word names under a command (aliases resolved), or nothing.`, `${fn}_sub() {`, '  case "$1:$2" in');
  for (const n of nodes)
    for (const c of n.spec.commands) lines.push(`    ${[c.name, ...c.aliases].map((w) => sq(`${n.key}:${w}`)).join('|')}) echo ${sq(c.name)} ;;`);
  lines.push('  esac', '}', '');
  lines.push(`# Whether an option of a command takes a value (the next word).`, `${fn}_valued() {`, '  case "$1:$2" in');
  for (const [key, options] of [...nodes.map((n) => [n.key, n.options] as const), ['*', globals] as const]) {
    const own = options.filter((o) => o.takesValue);
    if (own.length) lines.push(`    ${cases(own, key)}) return 0 ;;`);
  }
  lines.push('  esac', '  return 1', '}', '');
  lines.push(`# What the value of an option completes to: "choices A B…", "file", "directory" or nothing.`, `${fn}_value() {`, '  case "$1:$2" in');
  for (const [key, options] of [...nodes.map((n) => [n.key, n.options] as const), ['*', globals] as const]) {
    for (const { option, kind } of withValues(options, key.split(' '))) lines.push(`    ${cases([option], key)}) echo ${sq(kindWord(kind))} ;;`);
  }
  lines.push('  esac', '}', '');
  lines.push(`# What the Nth operand (from 0) of a command completes to, like ${fn}_value.`, `${fn}_arg() {`, '  case "$1:$2" in');
  for (const n of nodes) {
    n.spec.arguments.forEach((a, i) => {
      const kind = argumentKind(a, n.spec.path);
      if (kind === 'none') return;
      // A variadic argument takes every later operand too: index i to 9 by one digit, 10 and more by two.
      const later = a.variadic && i < 10 ? `|${sq(`${n.key}:`)}[${i}-9]|${sq(`${n.key}:`)}[1-9][0-9]*` : '';
      lines.push(`    ${sq(`${n.key}:${i}`)}${later}) echo ${sq(kindWord(kind))} ;;`);
    });
  }
  lines.push('  esac', '}', '');
  return lines;
}

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
    '    values\\ *) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${1#values }" -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)" -- "$2")) ;;',
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
    '    choices\\ *) local -a values; values=(${=${1#choices }}); compadd -a values ;;',
    '    values\\ *) local -a values; values=(${(f)"$("${words[1]}" __complete "${1#values }" -- "${(@)words[2,CURRENT-1]}" 2>/dev/null)"}); compadd -a values ;;',
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
  for (const n of nodes)
    for (const c of n.spec.commands)
      lines.push(`        case ${[c.name, ...c.aliases].map((w) => fq(`${n.key}:${w}`)).join(' ')}`, `            echo ${fq(c.name)}`);
  lines.push('    end', 'end', '');
  lines.push(
    '# The options of a command that take a value (the next word): its own, then the global ones.',
    'function __missive_valued',
    '    switch "$argv[1]"',
  );
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
    '# Names from the store (agents, groups, contexts, tasks) for the profile the words before the cursor name.',
    'function __missive_values',
    '    set -l words (commandline -opc)',
    '    $words[1] __complete $argv[1] -- $words[2..-1] 2>/dev/null',
    'end',
    '',
    'complete -c missive -f',
  );
  /** The `-a` of a kind: its choices, or the store's values through `__missive_values`. */
  const fishValues = (kind: { choices: string[] } | { values: StoreValueKind }) =>
    fq('values' in kind ? `(__missive_values ${kind.values})` : kind.choices.join(' '));
  const optionLine = (o: OptionSpec, condition?: string) => {
    const parts = ['complete -c missive'];
    if (condition) parts.push(`-n ${fq(`__missive_at "${condition}"`)}`);
    if (o.long) parts.push(`-l ${fq(o.long.replace(/^--/, ''))}`);
    if (o.short) parts.push(`-s ${fq(o.short.replace(/^-/, ''))}`);
    if (o.takesValue) {
      const kind = optionKind(o, condition?.split(' ') ?? []);
      parts.push(typeof kind === 'object' ? `-x -a ${fishValues(kind)}` : kind === 'file' || kind === 'directory' ? '-r -F' : '-x');
    }
    parts.push(`-d ${fq(firstLine(o.description))}`);
    return parts.join(' ');
  };
  lines.push('', '# Global options (valid at any level).');
  for (const o of globals) lines.push(optionLine(o));
  for (const n of nodes) {
    const ownOptions = n.options;
    const args = n.spec.arguments.map((a) => argumentKind(a, n.spec.path)).filter((k) => k !== 'none');
    if (!n.spec.commands.length && !ownOptions.length && !args.length) continue;
    lines.push('', `# ${n.key}`);
    const at = fq(`__missive_at "${n.key}"`);
    for (const c of n.spec.commands)
      for (const w of [c.name, ...c.aliases]) lines.push(`complete -c missive -n ${at} -a ${fq(w)} -d ${fq(firstLine(c.description))}`);
    for (const o of ownOptions) lines.push(optionLine(o, n.key));
    for (const kind of args) lines.push(typeof kind === 'object' ? `complete -c missive -n ${at} -a ${fishValues(kind)}` : `complete -c missive -n ${at} -F`);
  }
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
