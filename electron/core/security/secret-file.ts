/**
 * A secret kept in a file: `[store] password_file` / `MISSIVE_STORE_PASSWORD_FILE` (e.g. systemd's
 * `$CREDENTIALS_DIRECTORY/<name>` from `LoadCredential=`), and the permission rule `~/.pgpass` follows too.
 *
 * The rule is libpq's and ssh's: on POSIX systems the file must give its group and every other user no access at all
 * (`mode & 0o077` is 0: 0600 or 0400), or its secret may already be known to others. A file that breaks it is refused
 * (exit 78) before a byte is read, naming the path and its mode; `~/.pgpass` is ignored with a warning instead, as libpq
 * does (store/postgres/pgpass.ts). On Windows the mode bits say nothing, so only the other checks apply.
 *
 * The file is opened without blocking (a FIFO opens at once) and what was opened must be a regular file of at most
 * SECRET_FILE_MAX_BYTES (a folder, FIFO or device is refused before it is read). Its secret is its first line, the line
 * ending stripped (`echo pw > file` and `printf pw > file` both work); an empty first line is refused. The secret is
 * never part of an error.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { configError, MissiveError } from '../../../shared/errors.js';
import { fileKind } from './file-kind.js';

/** A password or token is a few bytes; a PEM key a few KiB. */
const SECRET_FILE_MAX_BYTES = 64 * 1024;

/** The mode bits that give the group or other users any access. */
const GROUP_OR_OTHER = 0o077;

/** What makes a file that is there unfit to hold a secret, by its metadata; null when it is fine. */
export function secretFileProblem(
  stats: Stats,
  { maxBytes = SECRET_FILE_MAX_BYTES, platform = process.platform }: { maxBytes?: number; platform?: NodeJS.Platform } = {},
): { code: string; why: string } | null {
  if (!stats.isFile()) return { code: 'secret_file_not_a_file', why: `is ${fileKind(stats)}, not a regular file` };
  if (platform !== 'win32' && (stats.mode & GROUP_OR_OTHER) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
    return { code: 'secret_file_insecure', why: `has group or world access (mode ${mode}); permissions should be u=rw (0600) or less` };
  }
  if (stats.size > maxBytes) return { code: 'secret_file_too_large', why: `is larger than ${maxBytes / 1024} KiB` };
  return null;
}

export interface SecretFileLabel {
  /** How the file was named, e.g. `MISSIVE_STORE_PASSWORD_FILE` or `[store] password_file`. */
  from: string;
  /** What to do, appended to every refusal. */
  help: string;
}

/** The secret in the file at `path` (its first line), or a config error (exit 78) naming the path and `label.from`. */
export async function readSecretFile(path: string, label: SecretFileLabel): Promise<string> {
  const where = `the password file ${path} (from ${label.from})`;
  let handle: FileHandle;
  try {
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw configError('secret_file_not_a_file', `${where} is a folder, not a regular file`, label.help);
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'is not readable (permission denied)'
          : `cannot be read (${code ?? 'error'})`;
    throw configError('secret_file_unreadable', `${where} ${why}`, label.help);
  }
  try {
    const problem = secretFileProblem(await handle.stat());
    if (problem) {
      const help = problem.code === 'secret_file_insecure' ? `chmod 600 ${path} (or 0400). ${label.help}` : label.help;
      throw configError(problem.code, `${where} ${problem.why}`, help);
    }
    const buffer = Buffer.alloc(SECRET_FILE_MAX_BYTES);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const secret = buffer.subarray(0, filled).toString('utf8').split(/\r?\n/, 1)[0]!;
    if (!secret) throw configError('secret_file_empty', `${where} is empty: its first line is the password`, label.help);
    return secret;
  } catch (error) {
    if (error instanceof MissiveError) throw error;
    throw configError('secret_file_unreadable', `${where} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, label.help);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
