/**
 * `missive ui`: opens the desktop app and waits until its window is up (or says why it could not start, exit 69);
 * `missive ui --web` serves the same GUI to a browser instead (electron/cli/ui-web.ts).
 */
import type { Command } from 'commander';
import { usageError } from '../../../shared/errors.js';
import type { Action, CommandContext } from '../command-context.js';
import { installation } from '../../core/install-root.js';
import { desktopCommand, unavailable } from '../electron-setup.js';
import { launchDesktop, openDesktopLog } from '../electron-launcher.js';

interface UiFlags {
  tray?: boolean;
  web?: boolean;
  /** Parsed and checked by the web console. */
  port?: string;
  host?: string;
  allowRemote?: boolean;
  open?: boolean;
}

const WEB_FLAGS = ['port', 'host', 'allowRemote', 'open'] as const;

async function openDesktop({ core, out, flags, deps }: CommandContext, o: UiFlags): Promise<void> {
  if (process.platform === 'linux' && !deps.env.DISPLAY && !deps.env.WAYLAND_DISPLAY) {
    throw unavailable(
      'ui_unavailable',
      'no display: DISPLAY and WAYLAND_DISPLAY are unset',
      'Run it in a desktop session (or under Xvfb), or use `missive ui --web` to open the same GUI in a browser; the CLI works everywhere.',
    );
  }
  const root = installation()?.root;
  if (!root)
    throw unavailable(
      'ui_unavailable',
      'cannot find the missive installation this command runs from',
      'Run missive from a checkout (`node bin/missive.js`) or the packaged app.',
    );
  const appArgs = [
    ...(o.tray ? ['--tray'] : []),
    ...(flags.profile ? [`--profile=${flags.profile}`] : []),
    ...(flags.config && core.config.source.path ? [`--config=${core.config.source.path}`] : []),
  ];
  const log = openDesktopLog(core.paths.logs);
  try {
    // A slow first-launch step: a line on stderr for a person, an event for a program (ndjson), nothing when quiet.
    const progress = (line: string) =>
      out.mode === 'human' ? deps.io.stderr(`missive: ${line}\n`) : out.event('ui_progress', { message: line }, (d) => d.message);
    const command = await desktopCommand({ env: deps.env, root, appArgs, progress, log: log.write });
    const started = await launchDesktop(command, log);
    out.result('ui_started', { pid: started.pid, existing: started.existing, tray: o.tray === true, log: log.path }, (d) =>
      d.existing ? 'missive desktop is already running: its window was brought to the front' : `missive desktop started (pid ${d.pid})`,
    );
  } finally {
    log.close();
  }
}

export function registerUiCommand(program: Command, action: Action): void {
  program
    .command('ui')
    .description('open the desktop app (needs a display; Electron is installed on first launch), or with --web the GUI in a browser')
    .option('--tray', 'start hidden in the tray with the webhook receiver on; closing the window keeps it running')
    .option('--web', 'serve the GUI as a local web console instead (no Electron needed); Ctrl-C stops it')
    .option('--port <n>', 'web console: port to listen on (default: a free one)')
    .option('--host <addr>', 'web console: address to listen on (default 127.0.0.1, which localhost also means; others need --allow-remote)')
    .option('--allow-remote', 'web console: allow a non-loopback --host (anyone who can reach it and has the token gets the GUI)')
    .option('--open', 'web console: open it in the default browser (by a file only you can read: the token is on no command line)')
    .action(
      action(async (ctx, o: UiFlags) => {
        if (o.tray && o.web) throw usageError('tray_with_web', '--tray is for the desktop app, not --web');
        if (o.web) {
          const { runWebConsole } = await import('../ui-web.js');
          return runWebConsole(ctx, { port: o.port, host: o.host, allowRemote: o.allowRemote === true, open: o.open === true });
        }
        const stray = WEB_FLAGS.filter((f) => o[f] !== undefined);
        if (stray.length > 0)
          throw usageError(
            'web_flag_without_web',
            `${stray.map((f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} only go with --web`,
          );
        return openDesktop(ctx, o);
      }),
    );
}
