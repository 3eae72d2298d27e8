/**
 * How missive's `--help` reads, for every command (commander copies the help configuration and the command class to
 * each sub-command): a default is printed once (commander's `(default: …)` is left out when the description already
 * says its default, and an empty list is no default worth printing), a required option says `(required)`, and a
 * command that needs a sub-command prints its help on stdout with exit 0 when none is given, as `--help` does.
 */
import { Command, CommanderError, Help, type HelpContext, type Option } from 'commander';
import { installation } from '../core/install-root.js';
import { Printer, type OutputMode } from './output.js';
import type { Io } from './output.js';

/** Commander's own default text is dropped when the description names its default or the default is an empty list. */
const hideDefault = (option: Option) =>
  /\bdefault\b/i.test(option.description ?? '') || (Array.isArray(option.defaultValue) && option.defaultValue.length === 0);

export const HELP_CONFIGURATION: Partial<Help> = {
  optionDescription(this: Help, option: Option): string {
    const shown = hideDefault(option)
      ? Object.assign(Object.create(Object.getPrototypeOf(option) as object) as Option, option, { defaultValue: undefined })
      : option;
    const text = Help.prototype.optionDescription.call(this, shown);
    return option.mandatory ? `${text} (required)` : text;
  },
};

/** The command class of the whole tree: missing sub-command → the command's help on stdout, exit 0. */
export class MissiveCommand extends Command {
  override createCommand(name?: string): Command {
    return new MissiveCommand(name);
  }

  override help(context?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(context?: HelpContext | ((str: string) => string)): never {
    if (typeof context === 'function') return super.help(context);
    return super.help(context?.error ? { ...context, error: false } : context);
  }
}

/** The output mode the words on the command line ask for (before `--`), for what runs before commander parses them. */
export function argvMode(argv: readonly string[]): OutputMode {
  const end = argv.indexOf('--');
  const words = end < 0 ? argv : argv.slice(0, end);
  if (words.includes('-q') || words.includes('--quiet')) return 'quiet';
  if (words.includes('--json')) return 'json';
  if (words.includes('--ndjson')) return 'ndjson';
  return 'human';
}

/**
 * `-V, --version`: the version as text, or with `--json` / `--ndjson` a `version` envelope `{version, node}`.
 * Ends the parse as commander's own `.version()` does (a `commander.version` exit, code 0).
 */
export function addVersionOption(program: Command, argv: readonly string[], io: Io): Command {
  program.option('-V, --version', 'output the version number').on('option:version', () => {
    // Read here, not when this module loads (core/version.ts): finding package.json is a few file reads every command would pay.
    const version = installation()?.version ?? '0.0.0';
    new Printer(argvMode(argv), io).result('version', { version, node: process.versions.node }, () => version);
    throw new CommanderError(0, 'commander.version', version);
  });
  return program;
}

/** A commander error's text as one message and a help line: its `(Did you mean …?)` line joins the help. */
export function usageParts(commanderMessage: string): { message: string; help: string } {
  const [first = '', ...rest] = commanderMessage.replace(/^error:\s*/i, '').split('\n');
  const hints = rest.map((l) => l.trim().replace(/^\((.*)\)$/, '$1')).filter(Boolean);
  return { message: first.trim(), help: [...hints, 'Run the command with --help for usage.'].join(' ') };
}
