/**
 * The types every command file is written against: the parsed global flags, what a command body receives
 * (`CommandContext`), the `action` wrapper program.ts hands to each module, and a module's `Register` function.
 * Types only, so command files, command-modules.ts and program.ts all depend on this file and never on each other.
 */
import type { Command } from 'commander';
import type { Core } from '../core/handle.js';
import type { SecretStore } from '../core/auth/secret-store.js';
import type { CommandRunner } from '../core/service/runner.js';
import type { Io, Printer } from './output.js';

/** What one invocation runs with: the process's environment, directory and standard streams. */
export interface CliDeps {
  env: NodeJS.ProcessEnv;
  cwd: string;
  io: Io;
  secrets?: SecretStore;
  stdin?: () => Promise<string>;
  /** One line the user types (a confirmation such as `load`'s); without it, the first line of `stdin` is read. */
  readLine?: () => Promise<string>;
  /** `gateway install|start|stop|status|uninstall`: the systemctl/launchctl runner and a directory standing for `/` (tests). */
  service?: { runner?: CommandRunner; root?: string; uid?: number };
}

/** The global options, as commander parses them (`cmd.optsWithGlobals()`). */
export interface GlobalFlags {
  json?: boolean;
  ndjson?: boolean;
  quiet?: boolean;
  color?: boolean;
  config?: string;
  profile?: string;
  timeout?: string;
  protocolVersion?: string;
  a2aExtension: string[];
  serviceParam: string[];
  bearerTokenEnv?: string;
  header: string[];
  allowCrossOriginAuth?: boolean;
  requireSignedCard?: boolean;
  /** `--store URL`: the PostgreSQL store (its password is scrubbed from every output). */
  store?: string;
  verbose: number;
}

/** What a command body gets: the core built from the global flags, the printer, the flags and the process deps. */
export interface CommandContext {
  core: Core;
  out: Printer;
  flags: GlobalFlags;
  deps: CliDeps;
}

type Body<C, A extends unknown[]> = (ctx: C, ...args: A) => Promise<void | number> | void | number;

/** Wraps a command body into a commander action: core built, errors printed, exit code reported (see program.ts). */
export interface Action {
  <A extends unknown[]>(body: Body<CommandContext, A>): (...args: unknown[]) => Promise<void>;
  /**
   * The same for a command that reads no config and no state (completion, manpage): no core is built, so a broken
   * config file or an unwritable state directory does not stop it (a shell that sources its completion at start).
   */
  withoutCore<A extends unknown[]>(body: Body<Omit<CommandContext, 'core'>, A>): (...args: unknown[]) => Promise<void>;
}

/** A command module's entry: adds its commands to the program. */
export type Register = (program: Command, action: Action) => void;
