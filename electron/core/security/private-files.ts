/**
 * What missive writes is private to the user: the state directory 0700, the database and every export 0600 (export
 * directories 0700). Directories and files left looser by older versions are tightened when missive opens them, if
 * they belong to the user. Exports are written all or nothing: staged in a temp file or directory next to the target
 * and renamed into place at the end; a failure removes the staging and leaves the target as it was.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MissiveError } from '../../../shared/errors.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** chmods `path` to `mode` when it allows more and belongs to this user; never someone else's, nothing on Windows. */
export function tighten(path: string, mode: number): void {
  if (process.platform === 'win32' || process.getuid === undefined) return;
  try {
    const stat = statSync(path);
    if (stat.uid === process.getuid() && (stat.mode & 0o777 & ~mode) !== 0) chmodSync(path, mode);
  } catch {
    // Missing (e.g. no -wal file yet) or not ours to change: nothing to tighten.
  }
}

/**
 * Creates a profile's state directory (`<root>/profiles/<profile>`) and missing parents 0700, and tightens it and
 * missive's own two levels above it (`profiles`, then `$MISSIVE_HOME/state` or XDG's `missive`) when they existed.
 */
export function ensureStateDir(state: string): void {
  mkdirSync(state, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const dir of [state, dirname(state), dirname(dirname(state))]) tighten(dir, PRIVATE_DIR_MODE);
}

const writeFailed = (path: string, error: unknown) =>
  new MissiveError('io', 'write_failed', `cannot write ${path}: ${(error as Error).message}; nothing was written`, { cause: error });

/** Writes one export file 0600: a temp file beside it, renamed over it at the end (the caller checked --force). */
export function writePrivateFile(path: string, data: string | Buffer): void {
  // node:crypto is loaded here, on the first export, not by every command that opens the store (db.ts imports this module).
  const temp = join(dirname(path), `.${basename(path)}.missive-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(temp, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw writeFailed(path, error);
  }
}

/**
 * Writes `files` (plain names) into `dir`, all or nothing. A new `dir` is staged as a whole next to it and renamed
 * into place (0700); into an existing `dir` the files are staged in a hidden directory inside it, then moved in one by
 * one. Existing entries that are not regular files are refused up front, as a rename over them could not be undone.
 */
export function writePrivateDir(dir: string, files: Array<{ name: string; data: string | Buffer }>): void {
  const root = resolve(dir);
  const existed = existsSync(root);
  for (const { name } of existed ? files : []) {
    const target = join(root, name);
    if (existsSync(target) && !lstatSync(target).isFile()) {
      throw new MissiveError('validation', 'output_not_a_file', `${target} exists and is not a regular file; nothing was written`, {
        help: 'Move it away, or choose another directory.',
      });
    }
  }
  let created: string | undefined;
  let staging: string | undefined;
  try {
    created = existed ? undefined : mkdirSync(dirname(root), { recursive: true, mode: PRIVATE_DIR_MODE });
    staging = mkdtempSync(existed ? join(root, '.missive-export-') : join(dirname(root), `.${basename(root)}.missive-export-`));
    for (const { name, data } of files) writeFileSync(join(staging, name), data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    if (!existed) {
      renameSync(staging, root);
      return;
    }
    for (const { name } of files) renameSync(join(staging, name), join(root, name));
    rmSync(staging, { recursive: true, force: true });
  } catch (error) {
    if (staging) rmSync(staging, { recursive: true, force: true });
    if (created) rmSync(created, { recursive: true, force: true });
    throw writeFailed(root, error);
  }
}
