import { usageError } from '../../../shared/errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** The longest duration a timer can wait (Node fires longer ones at once): 2^31 − 1 ms, about 596 hours. */
export const MAX_DURATION_MS = 2_147_483_647;

/** Parses `250ms`, `30s`, `5m`, `1h` into milliseconds. Zero and other shapes are rejected. */
export function parseDuration(text: string, what = 'duration'): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
  if (!match) {
    throw usageError('invalid_duration', `${what} "${text}" is not a duration`, 'Use an integer and a unit: 500ms, 30s, 5m or 1h.');
  }
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms === 0) throw usageError('invalid_duration', `${what} must be greater than zero`);
  if (ms > MAX_DURATION_MS) throw usageError('invalid_duration', `${what} "${text}" is too long: at most 596h (${MAX_DURATION_MS} ms)`);
  return ms;
}

export function isDuration(text: string): boolean {
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}
