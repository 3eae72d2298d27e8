/**
 * The file operations of `adapter file-drop` that must survive a crash at any instant: publishing a reply exactly once
 * (written to a dotted temp file, fsynced, then hard-linked to its final name — link fails with EEXIST when a reply
 * already exists, so nothing is ever overwritten — and the temp unlinked), and archiving an input (rename, with a
 * copy + rename + unlink fallback across filesystems, EXDEV; a unique suffix when the name is taken). Temp names keep
 * at most TEMP_NAME_BYTES of the final name, so they fit NAME_MAX whenever the final name and a claim name do.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { openRegularFile } from './file-drop-open.js';

const tempSuffix = () => `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;

/** Bytes of the final name kept in a temp name (`.<name, cut>.tmp-<pid>-<8 hex>` stays under 255 bytes). */
const TEMP_NAME_BYTES = 200;

/** `.<name>` + a temp suffix, `name` cut to TEMP_NAME_BYTES (whole characters). */
function tempName(name: string): string {
  let kept = '';
  let bytes = 0;
  for (const ch of name) {
    bytes += Buffer.byteLength(ch, 'utf8');
    if (bytes > TEMP_NAME_BYTES) break;
    kept += ch;
  }
  return `.${kept}${tempSuffix()}`;
}

const TEMP = /^\..+\.tmp-(\d+)-[0-9a-f]+$/;

/** The pid of a temp file of ours (`.<name>.tmp-<pid>-<hex>`), or null. */
export function tempOwner(name: string): number | null {
  const match = TEMP.exec(name);
  return match ? Number(match[1]) : null;
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Directories cannot be fsynced everywhere (Windows, some network filesystems): best effort.
  }
}

/** Writes `text` to a new temp file next to `finalPath` (mode 0600) and fsyncs it; returns the temp path. */
async function writeTemp(finalPath: string, text: string): Promise<string> {
  const temp = join(finalPath, '..', tempName(basename(finalPath)));
  const handle = await fs.open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/**
 * Publishes `text` at `finalPath` unless a file is there already: 'published' or 'exists'. Readers never see a partial
 * file. Where hard links are not supported, falls back to check-then-rename (a race between two adapters publishing
 * the same name could then overwrite; claims make that impossible for one stem).
 */
export async function publishOnce(finalPath: string, text: string): Promise<'published' | 'exists'> {
  const temp = await writeTemp(finalPath, text);
  try {
    try {
      await fs.link(temp, finalPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return 'exists';
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
      if (await exists(finalPath)) return 'exists';
      await fs.rename(temp, finalPath);
    }
    await fsyncDir(join(finalPath, '..'));
    return 'published';
  } finally {
    await fs.rm(temp, { force: true });
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await fs.lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Copies an open file to another, from the start to its end (one read per MiB, so the loop ends with the file). */
async function copyTo(from: FileHandle, to: FileHandle): Promise<void> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  for (let position = 0; ;) {
    const { bytesRead } = await from.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return;
    for (let written = 0; written < bytesRead;) written += (await to.write(buffer, written, bytesRead - written)).bytesWritten;
    position += bytesRead;
  }
}

/** `dir/name`, or `dir/<stem>.<n>.json` (n = 1, 2, …) when taken. */
async function freeName(dir: string, name: string): Promise<string> {
  const stem = name.endsWith('.json') ? name.slice(0, -5) : name;
  const ext = name.endsWith('.json') ? '.json' : '';
  for (let n = 0; n < 10_000; n++) {
    const candidate = join(dir, n === 0 ? name : `${stem}.${n}${ext}`);
    if (!(await exists(candidate))) return candidate;
  }
  return join(dir, `${stem}.${randomBytes(6).toString('hex')}${ext}`);
}

/**
 * Moves `from` to `dir/name` (unique-suffixed when taken), or deletes it when `dir` is null. Across filesystems
 * (EXDEV): copied to a temp file in `dir`, fsynced, renamed, then the source unlinked; the copy reads `from` only when
 * it is a regular file (no symlink followed, no FIFO or device read) and otherwise deletes it. Returns the archive path
 * or null.
 */
export async function archive(from: string, dir: string | null, name: string): Promise<string | null> {
  if (dir === null) {
    await fs.rm(from, { force: true });
    return null;
  }
  const target = await freeName(dir, name);
  try {
    await fs.rename(from, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const source = await openRegularFile(from);
    if (!source.ok) {
      await fs.rm(from, { force: true });
      return null;
    }
    const temp = join(dir, tempName(name));
    try {
      const handle = await fs.open(temp, 'wx', 0o600);
      try {
        await copyTo(source.handle, handle);
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    } finally {
      await source.handle.close();
    }
    await fs.rename(temp, target);
    await fs.rm(from, { force: true });
  }
  await fsyncDir(dir);
  return target;
}
