/**
 * `missive adapter …`: the IPC contract for other programs. `adapter stdio` (NDJSON frames on stdin/stdout,
 * core/adapters/stdio.ts); `adapter file-drop` is registered in its own block below.
 */
import { Option, type Command } from 'commander';
import { MissiveError } from '../../../shared/errors.js';
import type { Action } from '../command-context.js';
import { terminalLine } from '../terminal-text.js';

/** Runs `body` with a signal that SIGINT / SIGTERM abort: the adapter stops taking work and finishes what runs. */
async function untilStopped<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await body(stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerAdapterCommands(program: Command, action: Action): void {
  const adapter = program.command('adapter').description('drive missive from another program through the IPC contract (docs/automation.md)');

  // ---- adapter stdio ----------------------------------------------------------------------------------------------
  adapter
    .command('stdio')
    .description('read {"id","channel","input"} frames from stdin, one JSON object per line; write reply and event frames to stdout')
    .addOption(
      new Option('--mode <mode>', 'single-shot: answer one frame and exit with its exit code; long-running: answer frames until end of input')
        .choices(['single-shot', 'long-running'])
        .default('long-running'),
    )
    .option('--follow-events', 'long-running: also push events.appended frames for new journal rows (the Events view tail)')
    .action(
      action(async ({ core, deps }, o: { mode: 'single-shot' | 'long-running'; followEvents?: boolean }) => {
        const { runStdioAdapter } = await import('../../core/adapters/stdio.js');
        try {
          const result = await untilStopped((signal) =>
            runStdioAdapter({
              core,
              cwd: deps.cwd,
              mode: o.mode,
              input: process.stdin,
              write: deps.io.stdout,
              signal,
              followEventsMs: o.followEvents ? 500 : undefined,
            }),
          );
          return result.exitCode;
        } finally {
          // Single-shot after its frame, or a stop by signal: standard input may still be open, and its pending read
          // would keep the process alive; nothing more is read from it.
          process.stdin.destroy();
        }
      }),
    );
  // ---- end adapter stdio ------------------------------------------------------------------------------------------

  // ---- adapter file-drop ------------------------------------------------------------------------------------------
  adapter
    .command('file-drop')
    .description('answer <stem>.json frames dropped into an inbox directory with <stem>.result.json / <stem>.error.json files in an outbox')
    .option('--inbox <dir>', 'where producers drop frames (write a temp file, then rename it to <stem>.json)')
    .option('--outbox <dir>', 'where replies are published, once each: <stem>.result.json or <stem>.error.json')
    .option('--processed <dir>', 'where answered inputs are archived (default: deleted)')
    .option('--error-dir <dir>', 'where inputs whose reply is an error are archived (default: as --processed)')
    .addOption(
      new Option('--mode <mode>', 'once: answer what is in the inbox now and exit; watch: go on until SIGINT/SIGTERM')
        .choices(['once', 'watch'])
        .default('once'),
    )
    .action(
      action(async ({ core, deps }, o: { inbox?: string; outbox?: string; processed?: string; errorDir?: string; mode: 'once' | 'watch' }) => {
        const { resolve } = await import('node:path');
        const { prepareDirs, runFileDropAdapter, testPauseAfterClaimMs } = await import('../../core/adapters/file-drop.js');
        for (const [flag, value] of [
          ['--inbox', o.inbox],
          ['--outbox', o.outbox],
        ] as const) {
          if (!value)
            throw new MissiveError('validation', 'missing_option', `adapter file-drop needs ${flag} <dir>`, {
              help: 'missive adapter file-drop --inbox DIR --outbox DIR [--processed DIR] [--error-dir DIR] [--mode once|watch]',
            });
        }
        const dir = (value: string | undefined) => (value ? resolve(deps.cwd, value) : null);
        const dirs = await prepareDirs({ inbox: dir(o.inbox)!, outbox: dir(o.outbox)!, processed: dir(o.processed), errorDir: dir(o.errorDir) });
        const pause = testPauseAfterClaimMs(deps.env);
        const afterClaim = pause ? () => new Promise<void>((done) => setTimeout(done, pause)) : undefined;
        const result = await untilStopped((signal) =>
          runFileDropAdapter({ ...dirs, core, cwd: deps.cwd, mode: o.mode, signal, warn: (line) => deps.io.stderr(`${terminalLine(line)}\n`), afterClaim }),
        );
        deps.io.stderr(
          `file-drop: ${result.results} result(s), ${result.errors} error(s), ${result.recovered} recovered, ${result.duplicates} already answered, ${result.failed} failed\n`,
        );
        return result.exitCode;
      }),
    );
  // ---- end adapter file-drop --------------------------------------------------------------------------------------
}
