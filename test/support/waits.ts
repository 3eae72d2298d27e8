/** Waiting on conditions and bounding concurrency in tests of processes (gateways, receivers) that run on their own. */
import { expect } from 'vitest';
import type { CliResult } from './cli.js';

/** Polls `probe` until it returns something truthy, or fails after `ms` naming what it waited for. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  ms: number,
  everyMs = 50,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs fn(0)…fn(count - 1), at most `concurrency` at a time. */
export async function bounded(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, worker));
}

/** The JSON data of a command that must have succeeded (its stderr in the message when it did not). */
export const okData = (res: CliResult, what: string) => {
  expect(res.code, `${what}: ${res.stderr}`).toBe(0);
  return res.json().data;
};
