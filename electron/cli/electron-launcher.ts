/**
 * Starts the desktop app and waits, bounded, for it to say how its start went: the app writes one JSON line on the
 * control pipe (fd 3, MISSIVE_UI_CONTROL_FD; electron/main/control-channel.ts), `{"ready":true,…}` once its window
 * is shown or `{"error":…}` before it exits. Its stdout and stderr go to a log file in the state directory, so it
 * never writes to a terminal `missive ui` has left. On ready the app is left running on its own (detached).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { unavailable, type LaunchCommand } from './electron-setup.js';

export const READY_TIMEOUT_MS = 60_000;
const LOG_ROTATE_BYTES = 1_000_000;

export interface DesktopLog {
  path: string;
  fd: number;
  /** Where this launch's part of the log begins. */
  offset: number;
  write(text: string): void;
  /** The last lines this launch wrote (for an error message). */
  tail(lines: number): string;
  close(): void;
}

/** The desktop log (`<state>/logs/desktop.log`, kept to about 1 MB), or one in the temp directory when the state directory is unusable (the app then says why). */
export function openDesktopLog(logsDir: string): DesktopLog {
  let dir = logsDir;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    dir = tmpdir();
  }
  const path = join(dir, dir === logsDir ? 'desktop.log' : `missive-desktop-${process.getuid?.() ?? 'user'}.log`);
  try {
    if (statSync(path).size > LOG_ROTATE_BYTES) renameSync(path, `${path}.1`);
  } catch {
    /* no log yet */
  }
  const fd = openSync(path, 'a', 0o600);
  const offset = statSync(path).size;
  const log: DesktopLog = {
    path,
    fd,
    offset,
    write: (text) => void writeSync(fd, text),
    tail(lines) {
      const text = existsSync(path) ? readFileSync(path).subarray(offset).toString('utf8') : '';
      return text
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('--- missive ui'))
        .slice(-lines)
        .join('\n');
    },
    close: () => closeSync(fd),
  };
  log.write(`--- missive ui, ${new Date().toISOString()} ---\n`);
  return log;
}

export interface Started {
  pid: number;
  /** True when another instance was already running: it was brought to the front, and this launch ended. */
  existing: boolean;
}

interface AppError {
  code?: string;
  message?: string;
  help?: string;
}

/** Spawns the app detached, its output in `log`, and resolves once it reports ready; rejects (exit 69) otherwise. */
export function launchDesktop(command: LaunchCommand, log: DesktopLog, timeoutMs = READY_TIMEOUT_MS): Promise<Started> {
  return new Promise<Started>((resolve, reject) => {
    const child = spawn(command.binary, command.args, {
      detached: true,
      stdio: ['ignore', log.fd, log.fd, 'pipe'],
      env: { ...command.env, MISSIVE_UI_CONTROL_FD: '3' },
    });
    const control = child.stdio[3] as Readable;
    let settled = false;
    const timer = setTimeout(() => {
      finish(() =>
        reject(
          unavailable(
            'ui_timeout',
            `the desktop app did not report ready within ${Math.round(timeoutMs / 1000)} s (pid ${child.pid})`,
            `It may still open; its output is in ${log.path}.`,
          ),
        ),
      );
    }, timeoutMs);
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      control.destroy();
      child.unref();
      settle();
    };

    let buffered = '';
    control.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      let message: { ready?: boolean; pid?: number; existing?: boolean; error?: AppError };
      try {
        message = JSON.parse(buffered.slice(0, end));
      } catch {
        return finish(() =>
          reject(unavailable('ui_protocol', 'the desktop app sent something unexpected on its control channel', `Its output is in ${log.path}.`)),
        );
      }
      if (message.ready) return finish(() => resolve({ pid: message.pid ?? child.pid ?? 0, existing: message.existing === true }));
      const error = message.error ?? {};
      finish(() =>
        reject(
          unavailable(
            'ui_start_failed',
            `the desktop app could not start: ${error.message ?? 'no reason given'}${error.code ? ` (${error.code})` : ''}`,
            `${error.help ? `${error.help} ` : ''}Its output is in ${log.path}.`,
          ),
        ),
      );
    });
    control.on('error', () => undefined);
    child.on('error', (error) => {
      finish(() =>
        reject(
          unavailable(
            'ui_start_failed',
            `cannot run ${command.binary}: ${error.message}`,
            'Check that the file is an executable Electron binary (or unset MISSIVE_ELECTRON_BINARY).',
          ),
        ),
      );
    });
    // Exited without a message: once the pipe has drained (a message written just before exit arrives first).
    let exit: string | undefined;
    let drained = false;
    const exitedEarly = () => {
      const last = log.tail(3);
      finish(() =>
        reject(
          unavailable(
            'ui_exited',
            `the desktop app ${exit} before its window opened${last ? `; it printed: ${last.split('\n').join(' | ')}` : ''}`,
            `Its whole output is in ${log.path}.`,
          ),
        ),
      );
    };
    control.on('close', () => {
      drained = true;
      if (exit) exitedEarly();
    });
    child.on('exit', (code, signal) => {
      exit = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      // A process the app started may still hold the pipe: do not wait for it long.
      if (drained) exitedEarly();
      else setTimeout(exitedEarly, 1000).unref();
    });
  });
}
