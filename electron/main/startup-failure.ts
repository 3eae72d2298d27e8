/**
 * A desktop app that cannot start says so and goes away: before its window shows, any error becomes a MissiveError
 * naming the cause and the fix, goes to `missive ui` on the control channel, opens an error dialog, releases the
 * single-instance lock (so the next launch is not swallowed by a windowless process) and exits non-zero.
 */
import { app, dialog } from 'electron';
import { MissiveError, isMissiveError, toMissiveError } from '../../shared/errors.js';
import { explainAbiMismatch } from '../core/store/native-binding.js';
import type { ControlChannel } from './control-channel.js';
import { appRoot } from './app-files.js';

const FS_CODES = new Set(['ENOTDIR', 'EACCES', 'EPERM', 'EROFS', 'EEXIST', 'ENOSPC', 'ELOOP', 'ENAMETOOLONG']);

/** Opening the state (directory, database) failed: the path and what to do, unless the error already says it. */
export function stateError(error: unknown, state: string): unknown {
  const explained = explainAbiMismatch(error, appRoot());
  if (explained !== error) return explained;
  if (isMissiveError(error) && error.help) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if ((isMissiveError(error) && error.code === 'missive::storage::open_failed') || (code && FS_CODES.has(code))) {
    return new MissiveError('io', 'state_unwritable', `cannot open missive's state in ${state}: ${message}`, {
      exitCode: 69,
      help: 'Make that directory writable by you (or remove what is in its way), or point MISSIVE_HOME at a writable directory.',
      cause: error,
    });
  }
  return error;
}

let failed = false;

export function failStartup(error: unknown, control: ControlChannel): void {
  if (failed) return;
  failed = true;
  const err = toMissiveError(explainAbiMismatch(error, appRoot()));
  app.releaseSingleInstanceLock();
  control.send({ error: { code: err.code, message: err.message, ...(err.help ? { help: err.help } : {}) } });
  console.error(`missive: ${err.message}${err.help ? `\n  help: ${err.help}` : ''}`);
  try {
    dialog.showErrorBox('missive could not start', `${err.message}${err.help ? `\n\nWhat to do: ${err.help}` : ''}\n\n(${err.code})`);
  } finally {
    app.exit(1);
  }
}
