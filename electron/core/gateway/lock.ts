/**
 * One gateway per profile: a lock file holding the owner's pid. A lock whose process is gone (killed, crashed) is
 * stale and taken over at once.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MissiveError } from '../../../shared/errors.js';

export interface LockInfo {
  pid: number;
  started_at: string;
}

export function readLock(path: string): LockInfo | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireLock(path: string): { release(): void; info: LockInfo } {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const info: LockInfo = { pid: process.pid, started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      return {
        info,
        release: () => {
          if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(path);
      if (holder && isAlive(holder.pid)) {
        throw new MissiveError('orchestration', 'gateway_running', `a gateway is already running for this profile (pid ${holder.pid}, since ${holder.started_at})`, {
          help: 'Stop it first, or check it with: missive gateway status',
        });
      }
      rmSync(path, { force: true });
    }
  }
  throw new MissiveError('io', 'gateway_lock', `cannot take the gateway lock ${path}`);
}
