/** Who acted (a journal event's actor: core/store/actor.ts), in one short human phrase. */
import type { Actor } from '../core/store/actor.js';
import { terminalLine } from './terminal-text.js';

/**
 * `alice@build-1 cli:4242`, or for a gateway's default id (`<host>/<user>/gw<N>`) `alice@build-1 gw1`; `-` for an
 * event journaled before missive recorded who acted. Made safe for a terminal (the columns are text anyone on a shared
 * store can write).
 */
export function actorText(actor: Actor | null | undefined): string {
  if (!actor) return '-';
  const own = `${actor.host}/${actor.user}/`;
  const id = actor.id.startsWith(own) ? actor.id.slice(own.length) : actor.id;
  return terminalLine(`${actor.user}@${actor.host} ${id}`);
}
