/**
 * Credentials written into a URL given in place of an alias (`missive send https://user:pass@host/?api_key=…`):
 * held in memory for this invocation only, sent like an auth ref's (pinned to the agent's origin), never stored.
 * `user:password` becomes HTTP Basic; query parameters travel on every request like an API key `in = "query"`.
 */
import type { Core } from '../handle.js';
import type { AuthHeaders } from '../auth/auth-headers.js';

export interface UrlCredentials {
  username: string;
  password: string;
  query: Array<[string, string]>;
}

const held = new WeakMap<Core, Map<string, UrlCredentials>>();

export function holdUrlCredentials(core: Core, alias: string, credentials: UrlCredentials): void {
  if (!credentials.username && !credentials.password && !credentials.query.length) return;
  let byAlias = held.get(core);
  if (!byAlias) held.set(core, (byAlias = new Map()));
  byAlias.set(alias, credentials);
}

/** What authenticates with the URL's credentials, by name only. */
export function urlCredentialSources(core: Core, alias: string): string[] {
  const c = held.get(core)?.get(alias);
  if (!c) return [];
  return [...(c.username || c.password ? ["the URL's user:password"] : []), ...(c.query.length ? ["the URL's query"] : [])];
}

/** Adds the URL's credentials to resolved auth: Basic unless an Authorization header is already there, and the query. */
export function applyUrlCredentials(core: Core, alias: string, auth: AuthHeaders): void {
  const c = held.get(core)?.get(alias);
  if (!c) return;
  if ((c.username || c.password) && !auth.has('Authorization')) {
    auth.set('Authorization', `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`);
    if (c.password) auth.addSecret(c.password);
  }
  for (const [name, value] of c.query) auth.setQuery(name, value);
}
