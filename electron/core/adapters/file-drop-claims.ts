/**
 * The names `adapter file-drop` gives files while it owns them. A producer drops `<stem>.json` into the inbox; the
 * adapter claims it by renaming it to `.<stem>.claimed-<pid>-<random>` in the same directory (atomic, and a dotfile
 * no producer's `*.json` glob matches). Two adapters racing for one file: one rename wins, the other gets ENOENT.
 * A claim whose pid is no longer alive is stale (its adapter died between claim and archive) and is recovered at start.
 *
 * A stem too long for that claim name (over MAX_STEM_BYTES, or refused by the filesystem with ENAMETOOLONG) is claimed
 * as `.<short stem>.toolong-<pid>-<random>` instead (shortStem: its first 64 bytes, `~`, 16 hex digits of its SHA-256);
 * such an input is never read, only answered `file_name_too_long` under its short stem.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isAlive } from '../pid.js';

export interface Claim {
  stem: string;
  pid: number;
  /** The claim's file name (in the inbox). */
  name: string;
  /** A name too long to claim under its stem: `stem` is its shortStem, and the input is refused unread. */
  tooLong?: true;
}

/** The longest file name (bytes) of most filesystems (ext4, XFS, Btrfs, APFS, NTFS in UTF-16 units). */
export const NAME_MAX = 255;
/** The longest stem (UTF-8 bytes) claimed under its own name: `.<stem>.claimed-<10-digit pid>-<12 hex>` fits NAME_MAX. */
export const MAX_STEM_BYTES = NAME_MAX - '..claimed--'.length - 10 - 12;
/** The bytes of a too-long stem kept at the start of its short stem. */
const SHORT_PREFIX_BYTES = 64;

const CLAIM = /^\.(.+)\.(claimed|toolong)-(\d+)-([0-9a-f]{8,32})$/;

/** The stem of an inbox file a producer finished writing (`<stem>.json`, not a dotfile), else null. */
export function inputStem(name: string): string | null {
  if (name.startsWith('.') || !name.endsWith('.json')) return null;
  const stem = name.slice(0, -'.json'.length);
  return stem.length > 0 ? stem : null;
}

/** A fresh claim name for `stem`, owned by this process (`tooLong`: the claim of a refused name, stem already short). */
export function claimName(stem: string, pid: number = process.pid, tooLong = false): string {
  return `.${stem}.${tooLong ? 'toolong' : 'claimed'}-${pid}-${randomBytes(6).toString('hex')}`;
}

/** Whether `stem` is too long to be claimed under its own name on any filesystem with NAME_MAX 255. */
export const stemTooLong = (stem: string): boolean => Buffer.byteLength(stem, 'utf8') > MAX_STEM_BYTES;

/**
 * The stem a too-long name is claimed and answered under: its first 64 bytes (whole characters), `~`, then the first
 * 16 hex digits of the SHA-256 of the whole stem (UTF-8). At most 81 bytes, the same for every adapter.
 */
export function shortStem(stem: string): string {
  let prefix = '';
  let bytes = 0;
  for (const ch of stem) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > SHORT_PREFIX_BYTES) break;
    prefix += ch;
    bytes += size;
  }
  return `${prefix}~${createHash('sha256').update(stem, 'utf8').digest('hex').slice(0, 16)}`;
}

/** A fresh claim of this process: under `stem`, or (tooLong) under its short stem. */
export function newClaim(stem: string, tooLong = false, pid: number = process.pid): Claim {
  if (!tooLong) return { stem, pid, name: claimName(stem, pid) };
  const short = shortStem(stem);
  return { stem: short, pid, name: claimName(short, pid, true), tooLong: true };
}

/** Parses a claim name, or null when `name` is not one. */
export function parseClaim(name: string): Claim | null {
  const match = CLAIM.exec(name);
  if (!match) return null;
  const claim: Claim = { stem: match[1]!, pid: Number(match[3]), name };
  if (match[2] === 'toolong') claim.tooLong = true;
  return claim;
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
