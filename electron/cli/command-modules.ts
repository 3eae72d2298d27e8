/**
 * Which module defines which top-level command. An invocation loads only the module of the command it names, so
 * `missive agent list` never parses the code of `demo` (express, the SDK server) or of the network commands;
 * `missive --help`, `help` and unknown commands load them all, in this order (the order of `missive --help`).
 */
import type { Register } from './command-context.js';

interface CommandModule {
  /** The top-level commands the module registers. */
  names: readonly string[];
  load: () => Promise<Register>;
  /** The module's commands read the whole command tree (completion, manpage): loading it loads every module. */
  loadsAll?: boolean;
}

export const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['agent'], load: async () => (await import('./commands/agent.js')).registerAgentCommands },
  { names: ['auth'], load: async () => (await import('./commands/auth.js')).registerAuthCommands },
  { names: ['send'], load: async () => (await import('./commands/send.js')).registerSendCommand },
  { names: ['stream'], load: async () => (await import('./commands/stream.js')).registerStreamCommand },
  { names: ['task'], load: async () => (await import('./commands/task.js')).registerTaskCommands },
  { names: ['group', 'route'], load: async () => (await import('./commands/group.js')).registerGroupCommands },
  {
    names: ['bcast', 'scatter', 'barrier', 'gather', 'reduce', 'round'],
    load: async () => (await import('./commands/collectives.js')).registerCollectiveCommands,
  },
  { names: ['push', 'webhook'], load: async () => (await import('./commands/push.js')).registerPushCommands },
  { names: ['context'], load: async () => (await import('./commands/context.js')).registerContextCommands },
  { names: ['gateway'], load: async () => (await import('./commands/gateway.js')).registerGatewayCommands },
  { names: ['job'], load: async () => (await import('./commands/job.js')).registerJobCommands },
  { names: ['ui'], load: async () => (await import('./commands/ui.js')).registerUiCommand },
  { names: ['history'], load: async () => (await import('./commands/history.js')).registerHistoryCommands },
  { names: ['events'], load: async () => (await import('./commands/events.js')).registerEventsCommands },
  { names: ['diff'], load: async () => (await import('./commands/diff.js')).registerDiffCommand },
  { names: ['load'], load: async () => (await import('./commands/load.js')).registerLoadCommand },
  { names: ['conformance'], load: async () => (await import('./commands/conformance.js')).registerConformanceCommand },
  { names: ['doctor'], load: async () => (await import('./commands/doctor.js')).registerDoctorCommand },
  { names: ['config'], load: async () => (await import('./commands/config.js')).registerConfigCommands },
  { names: ['demo'], load: async () => (await import('./commands/demo.js')).registerDemoCommand },
  { names: ['logs'], load: async () => (await import('./commands/logs.js')).registerLogsCommand },
  { names: ['completion', 'manpage'], load: async () => (await import('./commands/completion.js')).registerCompletionCommands, loadsAll: true },
  { names: ['adapter'], load: async () => (await import('./commands/adapter.js')).registerAdapterCommands },
  { names: ['mcp'], load: async () => (await import('./commands/mcp.js')).registerMcpCommands },
  { names: ['mock'], load: async () => (await import('./commands/mock.js')).registerMockCommands },
];

/**
 * Hidden commands, loaded only when named (never for `--help`, `help` or an unknown command): `__complete`, which the
 * completion scripts call at each TAB, so it loads nothing else.
 */
export const HIDDEN_COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['__complete'], load: async () => (await import('./commands/complete-values.js')).registerValueCompletion },
];

/**
 * The first operand of `argv`: the command name. `valueFlags` are the global options that take a value
 * (`--config PATH`), whose value is skipped; `--` ends the scan.
 */
export function commandNameOf(argv: readonly string[], valueFlags: ReadonlySet<string>): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return argv[i + 1];
    if (!arg.startsWith('-') || arg === '-') return arg;
    if (!arg.includes('=') && valueFlags.has(arg)) i++;
  }
  return undefined;
}

/** The modules an invocation needs: none for `--version`, the one defining its command, or all of them (help, unknown, `loadsAll`). */
export function modulesFor(argv: readonly string[], valueFlags: ReadonlySet<string>): readonly CommandModule[] {
  const name = commandNameOf(argv, valueFlags);
  if (name === undefined && (argv.includes('--version') || argv.includes('-V'))) return [];
  const hidden = name === undefined ? undefined : HIDDEN_COMMAND_MODULES.find((m) => m.names.includes(name));
  if (hidden) return [hidden];
  const own = name === undefined ? undefined : COMMAND_MODULES.find((m) => m.names.includes(name));
  return own && !own.loadsAll ? [own] : COMMAND_MODULES;
}
