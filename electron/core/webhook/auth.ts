/** Inbound callback authentication: one expected header value, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface WebhookAuth {
  header: string;
  expected: string;
}

/** `--auth-token-env` alone: the SDK's `X-A2A-Notification-Token: <token>`; with `--auth-scheme S`: `Authorization: S <token>`. */
export function webhookAuth(token: string, options: { header?: string; scheme?: string } = {}): WebhookAuth {
  const header = (options.header ?? (options.scheme ? 'Authorization' : 'X-A2A-Notification-Token')).toLowerCase();
  return { header, expected: options.scheme ? `${options.scheme} ${token}` : token };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** The expected value's digest, made once per WebhookAuth rather than once per callback. */
const expectedDigests = new WeakMap<WebhookAuth, { expected: string; digest: Buffer }>();

function expectedDigest(auth: WebhookAuth): Buffer {
  const known = expectedDigests.get(auth);
  if (known?.expected === auth.expected) return known.digest;
  const made = { expected: auth.expected, digest: digest(auth.expected) };
  expectedDigests.set(auth, made);
  return made.digest;
}

/** Hashing first makes the comparison length-independent as well as constant-time. */
export function authorised(auth: WebhookAuth, headers: IncomingHttpHeaders): boolean {
  const raw = headers[auth.header];
  const given = Array.isArray(raw) ? raw[0] : raw;
  if (typeof given !== 'string') return false;
  return timingSafeEqual(digest(given.trim()), expectedDigest(auth));
}
