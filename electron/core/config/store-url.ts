/**
 * The PostgreSQL store URL (`--store`, `MISSIVE_STORE_URL`, `[store] url`) as text: whether it is one, how to print it
 * without its password, and the literal secrets it holds (for output scrubbing). WHATWG `URL` reads it, as
 * pg-connection-string does; connecting (and its own reading of `sslmode`, `sslrootcert`, …) is store/postgres/connect.ts.
 */

export const STORE_URL_SCHEMES = ['postgres:', 'postgresql:'];

/** Query parameters pg-connection-string reads as secrets (`?password=`, the client key's `sslpassword`). */
const SECRET_PARAMS = ['password', 'sslpassword'];

const MASK = '***';

function parse(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** What is wrong with `text` as a store URL, in words that never quote it; null when it is one. */
export function storeUrlIssue(text: string): string | null {
  const url = parse(text);
  if (!url) return 'is not a URL; expected postgres://user@host:port/database';
  if (!STORE_URL_SCHEMES.includes(url.protocol)) {
    return 'must be a postgres:// or postgresql:// URL (unset, missive uses its SQLite file)';
  }
  return null;
}

/** True when the URL carries a password (in its user info or as `?password=`). */
export function storeUrlHasPassword(text: string): boolean {
  const url = parse(text);
  return !!url && (url.password !== '' || SECRET_PARAMS.some((p) => url.searchParams.has(p)));
}

/** The URL fit to print: `postgres://user:***@host:port/db?sslmode=…` (a URL that does not parse: `<unparsable URL>`). */
export function redactStoreUrl(text: string): string {
  const url = parse(text);
  if (!url) return '<unparsable URL>';
  if (url.password) url.password = MASK;
  for (const name of SECRET_PARAMS) if (url.searchParams.has(name)) url.searchParams.set(name, MASK);
  return url.toString();
}

/** The secrets the URL holds, as written and decoded, for outputs to scrub. */
export function storeUrlSecrets(text: string | undefined): string[] {
  const url = text ? parse(text) : undefined;
  if (!url) return [];
  const out: string[] = [];
  const add = (raw: string) => {
    if (!raw) return;
    out.push(raw);
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      // a malformed escape: the raw text is the secret
    }
  };
  add(url.password);
  for (const name of SECRET_PARAMS) for (const value of url.searchParams.getAll(name)) add(value);
  return [...new Set(out)];
}
