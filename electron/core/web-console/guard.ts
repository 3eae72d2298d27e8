/**
 * Who may talk to the web console: the checks every request passes before anything is served. Pure functions of
 * the request's headers, so each rule is tested on its own (test/unit/web-console-guard.test.ts).
 *
 *   Host    one of the console's own names (loopback names, or the explicit --host): a DNS-rebinding page whose
 *           name now points at 127.0.0.1 still sends its own name, and gets 403.
 *   Origin  absent (a navigation, a same-origin GET) or exactly the console's origin; anything else is 403.
 *   Sec-Fetch-Site on the API: same-origin or none (another local port is same-site, not same-origin).
 *   Token   on the API: the launch's random token as `Authorization: Bearer`, compared in constant time; missing or
 *           wrong is 401. Never a cookie: cookies ignore ports, so a console cookie would go to every local server,
 *           and a page on another port could set one of the same name that is sent first.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../../../shared/origins.js';

/** 32 random bytes, base64url: the token of one launch. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** Constant-time comparison (of digests, so the length of the secret does not leak either). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** `::1` → `[::1]`: how an address appears in a URL or a Host header. */
export const urlHost = (host: string): string => (isIP(host) === 6 ? `[${host}]` : host);

export const isUnspecifiedHost = (host: string): boolean => host === '0.0.0.0' || host === '::';

/**
 * The Host header values this console answers to, lowercased: `name:port` for each of its names. Loopback: the
 * three loopback names (and the bound address itself); an unspecified address (0.0.0.0, ::): every interface
 * address and the machine's name as well; any other host: that host only.
 */
export function allowedHosts(host: string, port: number, machine: { addresses: string[]; hostname: string } = { addresses: [], hostname: '' }): Set<string> {
  const names = new Set<string>([host]);
  if (isLoopbackHost(host) || isUnspecifiedHost(host)) for (const name of ['127.0.0.1', 'localhost', '::1']) names.add(name);
  if (isUnspecifiedHost(host)) {
    for (const address of machine.addresses) names.add(address);
    if (machine.hostname) names.add(machine.hostname);
  }
  names.delete('0.0.0.0');
  names.delete('::');
  return new Set([...names].map((name) => `${urlHost(name)}:${port}`.toLowerCase()));
}

export type Refusal = { status: 401 | 403; reason: string };

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The token a request carries: `Authorization: Bearer …` (any cookie is ignored). */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const auth = header(headers, 'authorization');
  return auth ? /^\s*Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
}

export interface GuardPolicy {
  hosts: Set<string>;
  token: string;
}

/** Host and Origin (403), then Sec-Fetch-Site for the API (403); null when the request may go on to authentication. */
export function checkSource(headers: IncomingHttpHeaders, policy: Pick<GuardPolicy, 'hosts'>, api: boolean): Refusal | null {
  const host = header(headers, 'host')?.toLowerCase();
  if (!host || !policy.hosts.has(host)) return { status: 403, reason: `this console does not answer to the host name "${host ?? ''}"` };
  const origin = header(headers, 'origin');
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`)
    return { status: 403, reason: `requests from ${origin} are refused: only the console's own page may call it` };
  const site = header(headers, 'sec-fetch-site');
  if (api && site !== undefined && site !== 'same-origin' && site !== 'none') return { status: 403, reason: `a ${site} request to the console API is refused` };
  return null;
}

/** The token check of an API request (401), after checkSource. */
export function checkToken(headers: IncomingHttpHeaders, policy: Pick<GuardPolicy, 'token'>): Refusal | null {
  const given = presentedToken(headers);
  if (tokenMatches(given, policy.token)) return null;
  return {
    status: 401,
    reason: given
      ? 'wrong console token'
      : 'missing console token: open the URL `missive ui --web` printed (the token is in its #fragment) and call the API as that page does, with `Authorization: Bearer <token>`',
  };
}
