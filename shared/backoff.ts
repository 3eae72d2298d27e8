/**
 * Bounded exponential backoff with jitter, written once for the core (jobs, gateway, push) and the renderer (a view
 * following a task). Isomorphic: no node:*, no DOM, no electron.
 */

/** Bounded exponential backoff with jitter: base·2^attempt capped, then a random point in its upper half. */
export function backoffMs(attempt: number, options: { baseMs?: number; capMs?: number; random?: () => number } = {}): number {
  const base = options.baseMs ?? 500;
  const cap = options.capMs ?? 30_000;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + (options.random ?? Math.random)() * (ceiling / 2));
}
