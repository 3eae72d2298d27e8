/**
 * The manual page missive(1) in roff (man macros), generated from the command tree (command-tree.ts): NAME,
 * SYNOPSIS, DESCRIPTION, the global OPTIONS, one `.SS` per command with its usage, description, arguments and
 * options, then EXIT STATUS (the codes of shared/errors.ts), ENVIRONMENT, FILES and SEE ALSO. Every text taken from
 * the tree is escaped for roff: backslashes, hyphens in option names, and a leading `.` or `'` that would read as a
 * request.
 */
import { CATEGORY_EXIT_CODES, OUTCOME_EXIT_CODES, type ErrorCategory } from '../../shared/errors.js';
import { allCommands, type CommandSpec, type OptionSpec } from './command-tree.js';

/**
 * Text for a roff line: a backslash as `\e` (roff's printable backslash), non-ASCII characters as `\[uXXXX]` (so
 * the page needs no input encoding), and a zero-width `\&` before a leading `.` or `'` (which would start a request).
 */
export function roffText(text: string): string {
  const escaped = text.replace(/\\/g, '\\e').replace(/[^\p{ASCII}]/gu, (ch) => `\\[u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
  return escaped.replace(/^([.'])/gm, '\\&$1');
}

/** Option names and usage words: like roffText, with `-` as `\-` so man renders a real minus sign (copy-pasteable). */
const roffFlag = (text: string) => roffText(text).replace(/-/g, '\\-');

/** When each category's exit code is used (the codes themselves come from shared/errors.ts). */
const CATEGORY_MEANING: Record<ErrorCategory, string> = {
  validation: 'bad arguments or flags, an unknown alias, a bad URL, a zero duration',
  data: 'invalid input data, e.g. over qos.max_request_bytes',
  transport: 'unreachable agent, refused connection, timeout, an HTTP error status, no mutual binding',
  internal: 'a bug in missive',
  orchestration: 'collective member failures',
  io: 'local file I/O, a failing service manager command',
  storage: 'the database cannot open, a migration checksum mismatch, a schema from a newer missive',
  protocol: 'a peer that breaks the A2A protocol, a failing conformance cell, an unsupported version',
  auth: 'auth material missing, credentials pinned to another origin, HTTP 401 or 403 from the agent',
  config: 'invalid config, a missing config file, an unknown profile',
};

const OUTCOME_MEANING: Record<keyof typeof OUTCOME_EXIT_CODES, string> = {
  task_failed: 'the task failed',
  cancelled: 'the task was cancelled',
  timeout: 'the wait ran out of time',
  input_required: 'the task needs input',
  rejected: 'the agent rejected the task',
  auth_required: 'the task needs authentication',
};

const ENVIRONMENT: ReadonlyArray<[string, string]> = [
  ['MISSIVE_HOME', 'one directory for config (config/config.toml), data, state and cache; overrides the XDG directories'],
  ['MISSIVE_CONFIG', 'the config file to use (after --config)'],
  ['MISSIVE_REPO_CONFIG', 'set to 1 to look for missive.toml or .missive.toml in the working directory and its parents'],
  ['XDG_CONFIG_HOME, XDG_CONFIG_DIRS', 'where the config file is looked for when MISSIVE_HOME is unset'],
  ['XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME', 'where profile data, state (the database, logs) and caches live when MISSIVE_HOME is unset'],
];

const FILES: ReadonlyArray<[string, string]> = [
  ['$XDG_CONFIG_HOME/missive/config.toml', 'the config file (or $MISSIVE_HOME/config/config.toml)'],
  ['$XDG_STATE_HOME/missive/profiles/PROFILE/missive.sqlite3', 'the profile database: registry, tasks, the event journal (or under $MISSIVE_HOME/state)'],
  ['$XDG_STATE_HOME/missive/profiles/PROFILE/logs/', 'log files of the profile, read by missive logs'],
  ['$XDG_STATE_HOME/missive/profiles/PROFILE/locks/', 'the gateway lock'],
];

/** `.TP` paragraphs: a bold tag line, then its text. */
const tagged = (tag: string, text: string) => ['.TP', `.B ${tag}`, roffText(text || ' ')];

function optionLines(options: readonly OptionSpec[]): string[] {
  return options.flatMap((o) => {
    const [flags, value] = o.value ? [o.flags.slice(0, o.flags.lastIndexOf(o.value)).trimEnd(), o.value] : [o.flags, undefined];
    return ['.TP', value ? `.BI "${roffFlag(flags)} " "${roffText(value)}"` : `.B ${roffFlag(flags)}`, roffText(o.helpText)];
  });
}

function commandSection(spec: CommandSpec): string[] {
  const words = spec.path.slice(1).join(' ');
  const aliases = spec.aliases.length ? ` (alias: ${spec.aliases.join(', ')})` : '';
  const lines = [
    '.SS "' + roffFlag(words) + '"',
    `.B ${roffFlag(spec.path.join(' '))}`,
    roffFlag(spec.usage),
    '.br',
    roffText(`${spec.description}${aliases}`),
  ];
  if (spec.commands.length) lines.push('.PP', `Commands: ${roffFlag(spec.commands.map((c) => c.name).join(', '))}.`);
  for (const a of spec.arguments) if (a.helpText) lines.push(...tagged(roffText(a.name), a.helpText));
  lines.push(...optionLines(spec.options));
  return lines;
}

/** The page for the program whose tree is `root`; `version` goes in the footer. */
export function manpage(root: CommandSpec, version: string): string {
  // Every command but the implicit `help` of each command group (the top-level `help` stays).
  const commands = allCommands(root)
    .slice(1)
    .filter((c) => !(c.name === 'help' && c.path.length > 2 && c.commands.length === 0));
  const lines = [
    `.\\" missive(1), generated by \`missive manpage\` from the command tree; do not edit.`,
    `.TH MISSIVE 1 "" "missive ${roffText(version)}" "User Commands"`,
    '.SH NAME',
    'missive \\- operator console for A2A (Agent2Agent) agents',
    '.SH SYNOPSIS',
    `.B missive`,
    roffFlag('[options] <command> [command options] [arguments]'),
    '.SH DESCRIPTION',
    roffText(root.description),
    '.PP',
    roffText(
      'Global options are valid before or after the command. Results go to stdout (human text, or with --json one JSON envelope, with --ndjson one envelope per line); errors and warnings go to stderr. Secrets never appear in output.',
    ),
    '.SH OPTIONS',
    ...optionLines(root.options),
    '.SH COMMANDS',
    ...commands.flatMap(commandSection),
    '.SH "EXIT STATUS"',
    ...tagged('0', 'success'),
  ];
  const byCode = new Map<number, string[]>();
  for (const [category, code] of Object.entries(CATEGORY_EXIT_CODES) as [ErrorCategory, number][]) {
    byCode.set(code, [...(byCode.get(code) ?? []), `${category}: ${CATEGORY_MEANING[category]}`]);
  }
  for (const [code, meanings] of [...byCode].sort((a, b) => a[0] - b[0])) lines.push(...tagged(String(code), meanings.join('; ')));
  for (const [outcome, code] of Object.entries(OUTCOME_EXIT_CODES) as [keyof typeof OUTCOME_EXIT_CODES, number][]) {
    lines.push(...tagged(String(code), `${outcome.replace(/_/g, '-')}: ${OUTCOME_MEANING[outcome]} (task and collective commands)`));
  }
  lines.push('.SH ENVIRONMENT');
  for (const [name, text] of ENVIRONMENT) lines.push(...tagged(roffText(name), text));
  lines.push('.SH FILES');
  for (const [path, text] of FILES) lines.push(...tagged(roffText(path), text));
  lines.push('.SH "SEE ALSO"', roffText('docs/cli.md (the CLI reference), docs/automation.md, missive --help, missive <command> --help'));
  return `${lines.join('\n')}\n`;
}
