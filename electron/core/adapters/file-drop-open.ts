/**
 * Opening a claimed inbox file for `adapter file-drop` without trusting what the name points at now: anyone who can
 * write the inbox can swap a claimed file for a symlink (to a file only the operator can read) or for a FIFO or device
 * (a read that blocks or never ends) between the claim and the read. The file is checked with lstat, opened with
 * O_NOFOLLOW (a symlink fails with ELOOP) and O_NONBLOCK (a FIFO does not wait for a writer), and the open descriptor
 * is checked with fstat: anything but a regular file is refused and never read.
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** O_NOFOLLOW and O_NONBLOCK where the platform has them (not on Windows, where the lstat check stands alone). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type Opened = { ok: true; handle: FileHandle; size: number } | { ok: false; what: string };

/** What a non-regular file is, for a refusal message. */
function kind(stat: Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * Opens `path` for reading when it is a regular file (the caller closes the handle), else `{ ok: false, what }`.
 * Other failures (ENOENT, EACCES) throw.
 */
export async function openRegularFile(path: string): Promise<Opened> {
  const before = await fs.lstat(path);
  if (!before.isFile()) return { ok: false, what: kind(before) };
  let handle: FileHandle;
  try {
    handle = await fs.open(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Swapped after the lstat: O_NOFOLLOW on a symlink fails with ELOOP (EMLINK on FreeBSD); a socket with ENXIO.
    if (code === 'ELOOP' || code === 'EMLINK') return { ok: false, what: 'a symbolic link' };
    if (code === 'ENXIO') return { ok: false, what: 'a socket' };
    throw error;
  }
  const stat = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (!stat.isFile()) {
    await handle.close();
    return { ok: false, what: kind(stat) };
  }
  return { ok: true, handle, size: stat.size };
}

/** Reads an opened file to its end, or stops once it holds more than `max` bytes (null: too large). */
export async function readAtMost(handle: FileHandle, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(1 << 20, max + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > max) return null;
  }
}
