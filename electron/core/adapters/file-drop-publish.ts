/**
 * The file operations of `adapter file-drop` that must survive a crash at any instant: publishing a reply exactly once
 * (written to a dotted temp file, fsynced, then hard-linked to its final name — link fails with EEXIST when a reply
 * already exists, so nothing is ever overwritten — and the temp unlinked), and archiving an input (rename, with a
 * copy + rename + unlink fallback across filesystems, EXDEV; a unique suffix when the name is taken).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, constants } from 'node:fs';
import { basename, join } from 'node:path';

const tempSuffix = () => `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;

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
  const temp = join(finalPath, '..', `.${basename(finalPath)}${tempSuffix()}`);
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
 * (EXDEV): copied to a temp file in `dir`, fsynced, renamed, then the source unlinked. Returns the archive path or null.
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
    const temp = join(dir, `.${name}${tempSuffix()}`);
    await fs.copyFile(from, temp, constants.COPYFILE_EXCL);
    const handle = await fs.open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
    await fs.rm(from, { force: true });
  }
  await fsyncDir(dir);
  return target;
}
