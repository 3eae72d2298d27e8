/** Commander option parsers shared by the program and the command files: repeatable values, bounded integers. */
import { InvalidArgumentError } from 'commander';

/** A repeatable option's parser: each occurrence is appended to the list. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * A commander parser for an integer flag within `min..max` (both included); anything else, a value too big for a
 * safe integer included, is a usage error (exit 64) naming the flag and its range.
 */
export const integer =
  (flag: string, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  (value: string) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}.`);
    return n;
  };
