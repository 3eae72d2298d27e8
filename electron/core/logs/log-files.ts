/** The log files of a profile: `<state>/logs/*.{log,txt,ndjson,jsonl,json}`, regular files only, oldest change first. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const LOG_EXTENSIONS = ['.log', '.txt', '.ndjson', '.jsonl', '.json'] as const;

export interface LogFile {
  name: string;
  path: string;
  bytes: number;
  modified: string;
}

/** The log files in `dir`; none when the directory does not exist. */
export function logFiles(dir: string): LogFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
  const files: Array<LogFile & { mtimeMs: number }> = [];
  for (const name of names) {
    if (!LOG_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext))) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile()) continue;
    files.push({ name, path, bytes: stat.size, modified: stat.mtime.toISOString(), mtimeMs: stat.mtimeMs });
  }
  return files.sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name)).map(({ mtimeMs: _m, ...f }) => f);
}
