/**
 * The names `adapter file-drop` gives files while it owns them. A producer drops `<stem>.json` into the inbox; the
 * adapter claims it by renaming it to `.<stem>.claimed-<pid>-<random>` in the same directory (atomic, and a dotfile
 * no producer's `*.json` glob matches). Two adapters racing for one file: one rename wins, the other gets ENOENT.
 * A claim whose pid is no longer alive is stale (its adapter died between claim and archive) and is recovered at start.
 */
import { randomBytes } from 'node:crypto';

export interface Claim {
  stem: string;
  pid: number;
  /** The claim's file name (in the inbox). */
  name: string;
}

const CLAIM = /^\.(.+)\.claimed-(\d+)-([0-9a-f]{8,32})$/;

/** The stem of an inbox file a producer finished writing (`<stem>.json`, not a dotfile), else null. */
export function inputStem(name: string): string | null {
  if (name.startsWith('.') || !name.endsWith('.json')) return null;
  const stem = name.slice(0, -'.json'.length);
  return stem.length > 0 ? stem : null;
}

/** A fresh claim name for `stem`, owned by this process. */
export function claimName(stem: string, pid: number = process.pid): string {
  return `.${stem}.claimed-${pid}-${randomBytes(6).toString('hex')}`;
}

/** Parses a claim name, or null when `name` is not one. */
export function parseClaim(name: string): Claim | null {
  const match = CLAIM.exec(name);
  if (!match) return null;
  return { stem: match[1]!, pid: Number(match[2]), name };
}

/** Whether a process with this pid is alive (EPERM: alive, someone else's). */
export function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a claim is stale when an adapter with pid `self` starts: its owner is dead, or it carries `self` itself
 * (a previous process with the same pid: this one has claimed nothing yet).
 */
export function isStale(claim: Claim, self: number = process.pid): boolean {
  return claim.pid === self || !isAlive(claim.pid);
}

/** The reply file names of a stem, in the outbox. */
export const resultName = (stem: string) => `${stem}.result.json`;
export const errorName = (stem: string) => `${stem}.error.json`;
