/** `missive ui`: opens the desktop app when a display and the Electron binary are present. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Command } from 'commander';
import { MissiveError } from '../../../shared/errors.js';
import type { Action } from '../command-context.js';
import { installation } from '../../core/install-root.js';

const unavailable = (message: string, help: string) => new MissiveError('io', 'ui_unavailable', message, { exitCode: 69, help });

function electronBinary(): string {
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    if (typeof path === 'string' && existsSync(path)) return path;
  } catch {
    // The package is there but its binary was never downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD).
  }
  throw unavailable('the Electron binary is not installed here', 'Install it with `npx electron --version` on a machine with internet access, or use the packaged app; every feature is also in the CLI.');
}

export function registerUiCommand(program: Command, action: Action): void {
  program
    .command('ui')
    .description('open the desktop app (needs a display and Electron)')
    .option('--tray', 'start hidden in the tray with the webhook receiver on')
    .action(
      action(async ({ out, deps }, o: { tray?: boolean }) => {
        if (process.platform === 'linux' && !deps.env.DISPLAY && !deps.env.WAYLAND_DISPLAY) {
          throw unavailable('no display: DISPLAY and WAYLAND_DISPLAY are unset', 'Run it in a desktop session (or under Xvfb); the CLI works everywhere.');
        }
        const binary = electronBinary();
        const main = join(installation()?.root ?? '.', 'dist/electron/main/index.js');
        const child = spawn(binary, [main, ...(o.tray ? ['--tray'] : [])], { detached: true, stdio: 'ignore', env: { ...deps.env } });
        child.unref();
        out.result('ui_started', { pid: child.pid ?? null, tray: o.tray === true }, (d) => `missive desktop started (pid ${d.pid})`);
      }),
    );
}
