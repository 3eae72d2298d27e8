/**
 * The command tree as plain data, read from commander as `--help` shows it (commander's `Help`: visible commands,
 * including the implicit `help` command, and visible options, including `-h, --help`; every declared argument). The
 * shell completions (completion.ts) and the manual page (manpage.ts) are generated from this, so they list what
 * `--help` lists and nothing else.
 */
import type { Argument, Command, Help, Option } from 'commander';

export interface OptionSpec {
  /** As written in `--help`: `-q, --quiet`, `--config <path>`. */
  flags: string;
  long?: string;
  short?: string;
  /** The value placeholder, `<path>` or `[n]`; absent for a boolean flag. */
  value?: string;
  /** True when the option consumes the next word as its value (`--config PATH`). */
  takesValue: boolean;
  choices?: string[];
  description: string;
  /** The description as `--help` prints it, with its choices and default: `… (choices: "a", "b", default: "a")`. */
  helpText: string;
}

export interface ArgumentSpec {
  name: string;
  required: boolean;
  variadic: boolean;
  choices?: string[];
  description: string;
  /** As `--help` prints it, with choices and default. */
  helpText: string;
}

export interface CommandSpec {
  name: string;
  aliases: string[];
  /** The words that reach the command: `['missive', 'agent', 'add']`. */
  path: string[];
  description: string;
  /** The usage line after the path, as `--help` prints it: `[options] <alias> <url>`. */
  usage: string;
  arguments: ArgumentSpec[];
  /** The command's own options (the program's are the global options). */
  options: OptionSpec[];
  commands: CommandSpec[];
}

function optionSpec(option: Option, help: Help): OptionSpec {
  const value = /(<[^>]*>|\[[^\]]*\])(\.\.\.)?/.exec(option.flags)?.[0];
  return {
    flags: option.flags,
    long: option.long ?? undefined,
    short: option.short ?? undefined,
    value,
    takesValue: option.required || option.optional,
    choices: option.argChoices?.slice(),
    description: option.description ?? '',
    helpText: help.optionDescription(option),
  };
}

function argumentSpec(argument: Argument, help: Help): ArgumentSpec {
  return {
    name: argument.name(),
    required: argument.required,
    variadic: argument.variadic,
    choices: argument.argChoices?.slice(),
    description: argument.description ?? '',
    helpText: help.argumentDescription(argument),
  };
}

/** The tree under `cmd` (the program for the whole CLI), in `--help` order. */
export function commandTree(cmd: Command, parentPath: readonly string[] = []): CommandSpec {
  const help = cmd.createHelp();
  const path = [...parentPath, cmd.name()];
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    path,
    description: cmd.description() || cmd.summary() || '',
    usage: cmd.usage(),
    arguments: cmd.registeredArguments.map((a) => argumentSpec(a, help)),
    options: help.visibleOptions(cmd).map((o) => optionSpec(o, help)),
    commands: help.visibleCommands(cmd).map((sub) => withHelpTargets(commandTree(sub, path), cmd)),
  };
}

/** `help [command]` (commander's implicit help command) takes its sibling commands as the argument's choices. */
function withHelpTargets(spec: CommandSpec, parent: Command): CommandSpec {
  if (spec.name !== 'help' || spec.commands.length > 0 || spec.arguments.length !== 1) return spec;
  const targets = parent.commands.filter((c) => c.name() !== 'help').map((c) => c.name());
  return { ...spec, arguments: [{ ...spec.arguments[0]!, choices: targets }] };
}

/** Every command of the tree, depth first, the root first. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.commands.flatMap(allCommands)];
}

/** The option names (`--json`, `-q`) of a list of options. */
export const optionNames = (options: readonly OptionSpec[]): string[] => options.flatMap((o) => [o.long, o.short].filter((n): n is string => !!n));
