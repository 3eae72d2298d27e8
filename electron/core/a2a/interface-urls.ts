/**
 * Whether missive can call an interface URL a card declares, and at which URL. A2A asks for absolute URLs (an
 * AgentInterface `url` "must be a valid absolute HTTPS URL in production"; gRPC takes `host:port`) and says nothing of
 * relative ones. Cards in the wild list `/a2a/rest` anyway: such a URL is resolved as a reference against the URL the
 * card was fetched from (RFC 3986, the WHATWG URL parser), the rule every HTTP client applies to a relative link: a
 * path stays on the card's origin (a `//host/…` reference does not, and the origin pin decides about credentials there
 * as for any URL). One the card's URL cannot resolve (a card read from a file, a gRPC path) is unusable.
 * Pure: no I/O. The card warnings, negotiation and every view use this one function, so they say the same.
 */
import type { Binding } from '../config/schema.js';

export type InterfaceUrl =
  /** `resolved_from`: the card's URL when the declared URL was relative, else null. */
  { ok: true; url: string; resolved_from: string | null } | { ok: false; reason: string };

const httpUrl = (text: string, base?: string): URL | null => {
  try {
    const url = new URL(text, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
};

const hasScheme = (text: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^/\s]+:\d+(?:\/|$)/.test(text);

/** gRPC targets are `host:port` or a grpc(s)/http(s) URL. */
export const isGrpcTarget = (text: string): boolean =>
  !text.startsWith('/') && !text.startsWith('.') && (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^[^/\s]+:\d+$/.test(text));

/** The URL missive calls for an interface declared with `declared`, on `binding`, by a card fetched from `cardUrl`. */
export function interfaceUrl(declared: string, binding: Binding | string, cardUrl: string | null): InterfaceUrl {
  if (binding === 'grpc') {
    return isGrpcTarget(declared)
      ? { ok: true, url: declared, resolved_from: null }
      : { ok: false, reason: 'a gRPC target is host:port or a URL, and a path cannot be resolved to one' };
  }
  if (httpUrl(declared)) return { ok: true, url: declared, resolved_from: null };
  if (hasScheme(declared)) return { ok: false, reason: 'it is not an http(s) URL' };
  const base = cardUrl ? httpUrl(cardUrl) : null;
  if (!base) return { ok: false, reason: 'it is relative, and the card was not fetched from an http(s) URL to resolve it against' };
  const resolved = httpUrl(declared, base.href);
  return resolved ? { ok: true, url: resolved.href, resolved_from: cardUrl } : { ok: false, reason: 'it cannot be resolved against the card URL' };
}
