/**
 * Who acts: the host, the OS user and the actor id every journal event is written with (the `actor_host`,
 * `actor_user` and `actor_id` columns of `events`: SQLite v13, PostgreSQL v4), so a shared journal says who did what.
 * Host and user are read once per process. The id is a gateway's stable id while it runs (`enterActor` in
 * core/gateway/identity.ts), else the process's: `<face>:<pid>`, the face being what wrote the event (`cli`, `ui`
 * for a window's or the web console's calls, `webhook` for the push receiver). Like the event source (event-source.ts)
 * it follows the async work that started from a scope, so two faces of one process (the desktop's window and its
 * tray receiver) each say which one acted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname, userInfo } from 'node:os';

export interface Actor {
  /** os.hostname() of the process that wrote the event. */
  host: string;
  /** The OS user it ran as (os.userInfo(); `uid:<n>` where the user database has no name for it). */
  user: string;
  /** A gateway's id (`gateway run --id`, or `<host>/<user>/gw<N>`), else `<face>:<pid>` (`cli:12345`, `ui:12345`). */
  id: string;
}

/**
 * The OS user's name: os.userInfo() throws where the user database has no entry for the uid (a container run as an
 * arbitrary uid); the uid, or on Windows the USERNAME variable, stands in for it.
 */
export function osUserName(info: () => { username: string } = userInfo, env: NodeJS.ProcessEnv = process.env): string {
  try {
    const name = info().username;
    if (name) return name;
  } catch {
    // No name for this uid: fall through.
  }
  const uid = process.getuid?.();
  if (uid !== undefined) return `uid:${uid}`;
  return env.USERNAME || env.USER || 'unknown';
}

let machine: { host: string; user: string } | undefined;
/** This process's host and OS user, read once. */
const processIdentity = () => (machine ??= { host: hostname(), user: osUserName() });

const scoped = new AsyncLocalStorage<Partial<Actor>>();

/** The face a journal source acted through: a window's or the web console's calls (`gui`) are the `ui`'s. */
const faceOf = (source: string) => (source === 'gui' ? 'ui' : source);

/** Who acts now, for an event written with `source`: the innermost `withActor`/`enterActor`, else this process. */
export function currentActor(source: string): Actor {
  const over = scoped.getStore();
  const { host, user } = processIdentity();
  return { host: over?.host ?? host, user: over?.user ?? user, id: over?.id ?? `${faceOf(source)}:${process.pid}` };
}

/** Runs `fn` (and everything it awaits or starts) as `actor` (the fields given; the others stay the process's). */
export const withActor = <T>(actor: Partial<Actor>, fn: () => T): T => scoped.run({ ...scoped.getStore(), ...actor }, fn);

/**
 * Acts as `actor` from here on in the current async flow (what follows in the calling function, and all it awaits or
 * starts), not in its caller's: a gateway that names itself once it knows its id. Returns `actor.id`.
 */
export function enterActor(actor: Partial<Actor> & { id: string }): string {
  scoped.enterWith({ ...scoped.getStore(), ...actor });
  return actor.id;
}
