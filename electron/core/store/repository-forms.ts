/**
 * Each repository is declared once, as the asynchronous interface the services see (storage.ts). The forms an engine
 * implements are derived from that declaration, never written out by hand again:
 * - `WithDb<R, Db>`: SQLite's synchronous form, the connection first (`get(db, alias): AgentRow | undefined`); the
 *   object a SQLite repository module exports, run at once inside group commits and ticks (sqlite/run-steps.ts `runStepsSync`).
 * - `promised(repo, db)`: that form as the asynchronous interface, each call settled at once (sqlite/storage.ts).
 * PostgreSQL implements the asynchronous interface itself (its calls are asynchronous already).
 */

/** A method's arguments and settled result, from the asynchronous declaration. */
type Fn = (...args: never[]) => unknown;

/** The synchronous form of repository `R`, with the connection `D` as each method's first argument. */
export type WithDb<R, D> = { [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (db: D, ...args: A) => T : never };

/** The asynchronous form of `repo` bound to `db`: each call runs now, and what it throws becomes the rejection. */
export function promised<R, D>(repo: WithDb<R, D>, db: D): R {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(repo as Record<string, Fn>)) {
    out[name] = async (...args: unknown[]) => (fn as (db: D, ...args: unknown[]) => unknown)(db, ...args);
  }
  return out as R;
}
