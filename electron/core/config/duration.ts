import { usageError } from '../../../shared/errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Parses `250ms`, `30s`, `5m`, `1h` into milliseconds. Zero and other shapes are rejected. */
export function parseDuration(text: string, what = 'duration'): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
  if (!match) {
    throw usageError('invalid_duration', `${what} "${text}" is not a duration`, 'Use an integer and a unit: 500ms, 30s, 5m or 1h.');
  }
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms === 0) throw usageError('invalid_duration', `${what} must be greater than zero`);
  return ms;
}

export const isDuration = (text: string): boolean => /^(\d+)(ms|s|m|h)$/.test(text.trim()) && !/^0+(ms|s|m|h)$/.test(text.trim());
