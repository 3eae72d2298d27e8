/**
 * The PostgreSQL store URL (`--store`, `MISSIVE_STORE_URL`, `[store] url`) as text: whether it is one, how to print it
 * without its password, and the literal secrets it holds (for output scrubbing). WHATWG `URL` reads it, as
 * pg-connection-string does; connecting (and its own reading of `sslmode`, `sslrootcert`, …) is store/postgres/connect.ts.
 *
 * A password written with `#`, `/`, `?` or `@` unencoded is misread by every URL parser (`postgres://u:12#pw@host/db`
 * is host `u`, port 12 and the fragment `pw@host/db`): such a URL is refused as one that does not parse, and is never
 * printed whole. `urlHasPassword` is the one check for "this URL carries a password", whatever its scheme: the config
 * loader's (`[store] url`) and `gateway install --env`'s (service/env-vars.ts).
 */

export const STORE_URL_SCHEMES = ['postgres:', 'postgresql:'];

/** Query parameters pg-connection-string reads as secrets (`?password=`, the client key's `sslpassword`). */
const SECRET_PARAMS = ['password', 'sslpassword'];

const MASK = '***';

/** What a URL that does not parse shows: its scheme and host when they can be told apart, else this. */
export const UNPARSABLE_URL = '<unparsable URL>';

/**
 * `scheme://userinfo@host…` read as text, for a URL the parser cannot read or misreads: the user info runs to the
 * last `@` (a password may hold `#`, `/`, `?` or `@`), the host from there to the next `/`, `?` or `#`.
 */
const RAW_URL = /^([a-z][a-z0-9+.-]*):\/\/(?:([^]*)@)?([^@/?#]*)/i;
/** A host (and port) fit to print: letters, digits, `.`, `-`, `:` and IPv6 brackets only. */
const PRINTABLE_HOST = /^[a-z0-9.\-:[\]]+$/i;

/** The URL as WHATWG `URL` reads it, or undefined when it does not parse or is misread (see above). */
function parse(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  // A fragment, or an `@` after the host: part of the user info was read as the host, path, query or fragment.
  if (url.hash || text.includes('#') || `${url.pathname}${url.search}`.includes('@')) return undefined;
  return url;
}

/** The password of a URL that does not parse, as written (the user info after its first `:`), or ''. */
function rawPassword(text: string): string {
  const userinfo = RAW_URL.exec(text)?.[2];
  const colon = userinfo ? userinfo.indexOf(':') : -1;
  return colon >= 0 ? userinfo!.slice(colon + 1) : '';
}

/** What is wrong with `text` as a store URL, in words that never quote it; null when it is one. */
export function storeUrlIssue(text: string): string | null {
  const url = parse(text);
  if (!url) {
    return /[#@]/.test(text)
      ? 'does not parse as a URL: a user name or password holding #, /, ? or @ must write them percent-encoded (%23, %2F, %3F, %40)'
      : 'is not a URL; expected postgres://user@host:port/database';
  }
  if (!STORE_URL_SCHEMES.includes(url.protocol)) {
    return 'must be a postgres:// or postgresql:// URL (unset, missive uses its SQLite file)';
  }
  return null;
}

/**
 * True when a URL of any scheme carries a password: in its user info (with or without a user name before it), as
 * `?password=` / `?sslpassword=`, or in the user info of a URL that does not parse. Text that is no URL: false.
 */
export function urlHasPassword(text: string): boolean {
  const url = parse(text);
  if (url) return url.password !== '' || SECRET_PARAMS.some((p) => url.searchParams.has(p));
  return rawPassword(text) !== '';
}

/**
 * The URL fit to print: `postgres://user:***@host:port/db?sslmode=…`. A URL that does not parse shows its scheme and
 * host only (`postgres://***@db.example:5432`), or `<unparsable URL>` when even those cannot be told apart.
 */
export function redactStoreUrl(text: string): string {
  const url = parse(text);
  if (!url) {
    const raw = RAW_URL.exec(text);
    if (!raw || !PRINTABLE_HOST.test(raw[3]!)) return UNPARSABLE_URL;
    return `${raw[1]!.toLowerCase()}://${raw[2] === undefined ? '' : `${MASK}@`}${raw[3]}`;
  }
  if (url.password) url.password = MASK;
  for (const name of SECRET_PARAMS) if (url.searchParams.has(name)) url.searchParams.set(name, MASK);
  return url.toString();
}

/** The secrets the URL holds, as written and decoded, for outputs to scrub (a URL that does not parse: its user info's password). */
export function storeUrlSecrets(text: string | undefined): string[] {
  if (!text) return [];
  const url = parse(text);
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
  if (!url) {
    add(rawPassword(text));
    return [...new Set(out)];
  }
  add(url.password);
  for (const name of SECRET_PARAMS) for (const value of url.searchParams.getAll(name)) add(value);
  return [...new Set(out)];
}
