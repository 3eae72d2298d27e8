/** The `missive` command line: commander for parsing, the core services for everything else. */
import { CommanderError, Option, type Command } from 'commander';
import { toMissiveError, usageError, type MissiveError } from '../../shared/errors.js';
import type { Core } from '../core/handle.js';
import { closeSharedDispatcher } from '../core/a2a/shared-dispatcher.js';
import { closeClientTlsDispatchers } from '../core/agents/client-tls-pool.js';
import { Printer, resolveMode, type OutputMode } from './output.js';
import { modulesFor } from './command-modules.js';
import { collect } from './options.js';
import { coreOptions, knownSecrets } from './core-options.js';
import type { Action, CliDeps, CommandContext, GlobalFlags } from './command-context.js';
import { terminalBlock } from './terminal-text.js';
import { addVersionOption, HELP_CONFIGURATION, MissiveCommand, usageParts } from './help.js';

function addGlobalOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'print one pretty JSON envelope')
    .option('--ndjson', 'print one compact JSON envelope per line')
    .option('-q, --quiet', 'print nothing on success')
    .option('--no-color', 'disable colour')
    .option('--config <path>', 'config file (else MISSIVE_CONFIG, repo-local, XDG, defaults)')
    .option('--profile <name>', 'profile to use (default: default_profile)')
    .option('--timeout <duration>', 'overall time budget, e.g. 30s, 500ms, 2m')
    .option('--protocol-version <version>', 'A2A-Version to send (default 1.0)')
    .option('--a2a-extension <uri>', 'A2A extension to request (repeatable)', collect, [])
    .option('--service-param <name=value>', 'extra A2A service parameter header (repeatable)', collect, [])
    .option('--bearer-token-env <env>', 'send Authorization: Bearer $ENV')
    .option('--header <name:value>', 'extra request header, never persisted (repeatable)', collect, [])
    .option('--allow-cross-origin-auth', "call card interfaces on another origin than the agent's, without its credentials")
    .option('--require-signed-card', 'refuse agents whose Agent Card is unsigned or fails signature verification (exit 76)')
    .option('--store <url>', 'PostgreSQL store, postgres://user@host:port/db (else MISSIVE_STORE_URL, [store] url; unset: SQLite)')
    .addOption(new Option('-v, --verbose', 'more diagnostics on stderr (repeatable)').argParser((_v, prev: number) => prev + 1).default(0));
}

/** The program with the commands `argv` needs (see command-modules.ts). */
export async function buildProgram(deps: CliDeps, onResult: (code: number) => void, argv: readonly string[]): Promise<Command> {
  const root = new MissiveCommand('missive').configureHelp(HELP_CONFIGURATION);
  const program = addVersionOption(addGlobalOptions(root), argv, deps.io)
    .description('Operator console for A2A (Agent2Agent) agents, v1.0, v0.3 and v0.2: registry, cards, messages, tasks and collectives.')
    .exitOverride()
    .configureOutput({ writeOut: deps.io.stdout, writeErr: deps.io.stderr, outputError: () => undefined });

  /** Wraps a command body: builds the core from global flags, prints errors with their exit code. */
  const withCore =
    <A extends unknown[]>(body: (ctx: CommandContext, ...args: A) => Promise<void | number> | void | number) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const flags = cmd.optsWithGlobals() as GlobalFlags;
      let out = new Printer(safeMode(flags), deps.io);
      let core: Core | undefined;
      try {
        const { createCore } = await import('../core/context.js');
        core = createCore(coreOptions(flags, deps, (message) => out.warning(message)));
        const resolvedCore = core;
        out = new Printer(resolveMode(flags, core.config.output.format as OutputMode | undefined), deps.io, () => knownSecrets(resolvedCore, flags));
        const code = await body({ core, out, flags, deps }, ...(args.slice(0, -1) as A));
        onResult(typeof code === 'number' ? code : 0);
      } catch (error) {
        const err = toMissiveError(error);
        out.error(err);
        if (flags.verbose > 0 && err.cause) deps.io.stderr(`  cause: ${terminalBlock(String((err.cause as Error)?.stack ?? err.cause))}\n`);
        onResult(err.exitCode);
      } finally {
        core?.close();
      }
    };

  /** The same without a core: the printer from the flags alone, no secrets but the flags' own to scrub. */
  const withoutCore =
    <A extends unknown[]>(body: (ctx: Omit<CommandContext, 'core'>, ...args: A) => Promise<void | number> | void | number) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const flags = cmd.optsWithGlobals() as GlobalFlags;
      let out = new Printer(safeMode(flags), deps.io);
      try {
        out = new Printer(resolveMode(flags), deps.io);
        const code = await body({ out, flags, deps }, ...(args.slice(0, -1) as A));
        onResult(typeof code === 'number' ? code : 0);
      } catch (error) {
        const err = toMissiveError(error);
        out.error(err);
        onResult(err.exitCode);
      }
    };
  const action: Action = Object.assign(withCore, { withoutCore });

  const valueFlags = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)));
  for (const register of await Promise.all(modulesFor(argv, valueFlags).map((m) => m.load()))) register(program, action);
  return program;
}

function safeMode(flags: GlobalFlags): OutputMode {
  try {
    return resolveMode(flags);
  } catch {
    return flags.ndjson ? 'ndjson' : 'json';
  }
}

/** Runs one invocation and returns its exit code. Never calls process.exit. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  let code = 0;
  const program = await buildProgram(deps, (c) => (code = c), argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      const flags = { json: argv.includes('--json'), ndjson: argv.includes('--ndjson'), quiet: argv.includes('--quiet') || argv.includes('-q') };
      const { message, help } = usageParts(error.message);
      new Printer(safeMode(flags as GlobalFlags), deps.io).error(usageError('invalid_arguments', message, help) as MissiveError);
      return 64;
    }
    throw error;
  } finally {
    await closeSharedDispatcher();
    await closeClientTlsDispatchers();
  }
  return code;
}
