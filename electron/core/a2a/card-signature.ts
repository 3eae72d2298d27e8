/**
 * Agent Card JWS signatures (A2A 1.0 §8.4): `verified` (with the key id that verified), `unsigned`, or `invalid`
 * (with a one-line reason). The cryptography is the SDK's `verifyAgentCardSignature` (JCS canonicalisation, jose);
 * this module finds the public key for each signature's `kid`: in the JWKS the operator configured for the agent
 * (`jwks_url` / `jwks_file`, which then wins over the card's own `jku`), else in the JWKS at the signature's `jku`.
 * A JWKS URL must be https, or http on a loopback host; it is fetched without credentials, size-capped, and cached in
 * the `JwksCache` the caller keeps (one per core). A card chooses its `jku`s, so they are bounded: a `jku` is followed
 * only on the origin that served the card (never to another host, port or private address), at most MAX_JKU_URLS
 * distinct ones per card, and at most MAX_SIGNATURES_CHECKED signatures are tried; the rest are reported as not
 * checked in the `invalid` reason, never silently accepted. v0.3 cards are verified over their A2A 1.0 translation
 * (the SDK's compat), which is what the SDK's canonicalisation reads.
 */
import { readFileSync, statSync } from 'node:fs';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import type { Dispatcher } from 'undici';
import { parseBoundedJson } from '../security/json-depth.js';
import { isLoopbackHost } from '../../../shared/origins.js';
import { redactUrl } from '../security/redact.js';
import type { ParsedCard } from './card.js';
import { httpRequest } from './http.js';
import { oneLine } from './remote-text.js';

export type SignatureStatus = 'verified' | 'unsigned' | 'invalid';

/** Where the key that checked the card came from. */
export type KeySource = 'jku' | 'jwks_url' | 'jwks_file';

export interface SignatureView {
  status: SignatureStatus;
  /** The key id of the signature that verified (or of the first one tried, when none did). */
  kid: string | null;
  /** Why the card is `invalid`; null otherwise. */
  reason: string | null;
  key_source: KeySource | null;
}

/** The operator's JWKS for one agent; both unset → each signature's `jku`. */
export interface ConfiguredKeys {
  jwksUrl?: string;
  /** An absolute path. */
  jwksFile?: string;
}

export interface VerifyContext {
  keys: ConfiguredKeys;
  cache: JwksCache;
  dispatcher?: Dispatcher;
  timeoutMs: number;
  /** The URL that served the card: a signature's jku is followed only on its origin. Unset (a card file): never. */
  cardUrl?: string;
}

/** A card may carry any number of signatures: this many are tried, in order. */
export const MAX_SIGNATURES_CHECKED = 8;
/** This many distinct jku URLs are fetched per card (each once, then cached); a signature naming a further one is not checked. */
export const MAX_JKU_URLS = 3;

/** JWKS documents by URL, fetched once per cache (failures are not kept, so a later call tries again). */
export type JwksCache = Map<string, Promise<unknown>>;

export const createJwksCache = (): JwksCache => new Map();

/** A JWKS is a handful of keys: anything bigger is refused. */
const JWKS_MAX_BYTES = 256 * 1024;

class KeyLookupError extends Error {}

interface Jwk {
  kid?: unknown;
  kty?: unknown;
  [key: string]: unknown;
}

/** The public members of a JWK (never a private `d`, `p`, `q`, … a careless JWKS may carry). */
const PUBLIC_JWK_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'alg', 'kid', 'use', 'key_ops'];

function publicJwk(jwk: Jwk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of PUBLIC_JWK_MEMBERS) if (jwk[name] !== undefined) out[name] = jwk[name];
  return out;
}

function keysOf(jwks: unknown, where: string): Jwk[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new KeyLookupError(`${where} is not a JWKS (no "keys" array)`);
  return keys.filter((k): k is Jwk => !!k && typeof k === 'object');
}

/** https anywhere, plain http only on a loopback host. */
function checkJwksUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KeyLookupError(`the JWKS URL "${oneLine(url)}" is not an absolute URL`);
  }
  if (parsed.protocol === 'https:') return;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname.replace(/^\[|\]$/g, ''))) return;
  throw new KeyLookupError(`the JWKS URL ${redactUrl(url)} must use https (plain http only on a loopback address)`);
}

const parseJwks = (text: string, where: string): unknown =>
  parseBoundedJson(text, where, () => {
    throw new KeyLookupError(`${where} is not valid JSON`);
  });

async function fetchJwks(ctx: VerifyContext, url: string): Promise<unknown> {
  checkJwksUrl(url);
  const where = `the JWKS at ${redactUrl(url)}`;
  const res = await httpRequest({
    url,
    headers: { Accept: 'application/jwk-set+json, application/json' },
    timeoutMs: ctx.timeoutMs,
    maxResponseBytes: JWKS_MAX_BYTES,
    dispatcher: ctx.dispatcher,
  }).catch((error: Error) => {
    throw new KeyLookupError(`${where} cannot be fetched: ${oneLine(error.message)}`);
  });
  if (res.status !== 200) throw new KeyLookupError(`${where} answered HTTP ${res.status}`);
  return parseJwks(res.body, where);
}

function cachedJwks(ctx: VerifyContext, url: string): Promise<unknown> {
  let hit = ctx.cache.get(url);
  if (!hit) {
    hit = fetchJwks(ctx, url);
    ctx.cache.set(url, hit);
    hit.catch(() => ctx.cache.delete(url));
  }
  return hit;
}

function readJwksFile(path: string): unknown {
  const where = `the JWKS file ${path}`;
  try {
    if (statSync(path).size > JWKS_MAX_BYTES) throw new KeyLookupError(`${where} is larger than ${JWKS_MAX_BYTES} bytes`);
    return parseJwks(readFileSync(path, 'utf8'), where);
  } catch (error) {
    if (error instanceof KeyLookupError) throw error;
    throw new KeyLookupError(`${where} cannot be read: ${oneLine((error as Error).message)}`);
  }
}

/** A jku beyond the per-card bound: the signature naming it is not checked. */
class JkuBoundError extends KeyLookupError {}

const originOf = (url: string): string | null => {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
};

/** Refuses a jku that is not on the card's own origin (another host, port or scheme: another, maybe private, address). */
function checkJkuOrigin(ctx: VerifyContext, jku: string): void {
  const home = ctx.cardUrl ? originOf(ctx.cardUrl) : null;
  const fix = 'configure the JWKS for the agent if you trust it (jwks_url or jwks_file)';
  if (!home) throw new KeyLookupError(`the signature's jku ${oneLine(redactUrl(jku), 120)} is not followed for a card that did not come over http(s): ${fix}`);
  if (originOf(jku) !== home) {
    throw new KeyLookupError(
      `the signature's jku ${oneLine(redactUrl(jku), 120)} is not on the card's origin ${oneLine(home, 120)}: missive fetches a JWKS only from there; ${fix}`,
    );
  }
}

/** The JWKS for a signature, and where it came from; `seen` holds the jku URLs this card has used so far. */
async function jwksFor(ctx: VerifyContext, jku: string | undefined, seen: Set<string>): Promise<{ jwks: unknown; where: string; source: KeySource }> {
  if (ctx.keys.jwksFile) return { jwks: readJwksFile(ctx.keys.jwksFile), where: `the JWKS file ${ctx.keys.jwksFile}`, source: 'jwks_file' };
  if (ctx.keys.jwksUrl) return { jwks: await cachedJwks(ctx, ctx.keys.jwksUrl), where: `the JWKS at ${redactUrl(ctx.keys.jwksUrl)}`, source: 'jwks_url' };
  if (!jku) throw new KeyLookupError('the signature names no jku and no JWKS is configured for the agent (set jwks_url or jwks_file)');
  checkJwksUrl(jku);
  checkJkuOrigin(ctx, jku);
  if (!seen.has(jku) && seen.size >= MAX_JKU_URLS) throw new JkuBoundError(`the signature names a JWKS URL beyond the first ${MAX_JKU_URLS} of the card`);
  seen.add(jku);
  return { jwks: await cachedJwks(ctx, jku), where: `the JWKS at ${redactUrl(jku)}`, source: 'jku' };
}

/** The protected header of a signature entry, decoded (the SDK decodes it again when it verifies). */
function protectedHeader(entry: unknown): Record<string, unknown> | null {
  const encoded = (entry as { protected?: unknown } | null)?.protected;
  if (typeof encoded !== 'string') return null;
  try {
    const header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as unknown;
    return header && typeof header === 'object' && !Array.isArray(header) ? (header as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The card the SDK verifies: the raw JSON of a 1.0 card (what its signer signed), the 1.0 translation of older ones. */
function verifiableCard(card: ParsedCard, raw: unknown): Record<string, unknown> {
  if (card.format === '1.0' && raw && typeof raw === 'object') return raw as Record<string, unknown>;
  return AgentCard.toJSON(card.typed) as Record<string, unknown>;
}

/**
 * Runs `fn` with console.debug silenced: the SDK's verifier logs each failed signature entry there, which would land
 * on stdout between missive's own output (the failures are reported in `reason` instead).
 */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const debug = console.debug;
  console.debug = () => undefined;
  try {
    return await fn();
  } finally {
    console.debug = debug;
  }
}

/** Long enough for what missive says plus the (each cut) bits the card chose; still one line. */
const REASON_MAX = 400;

const invalid = (reason: string, kid: string | null, source: KeySource | null): SignatureView => ({
  status: 'invalid',
  kid,
  reason: oneLine(reason, REASON_MAX),
  key_source: source,
});

/** The reason of an `invalid` card, saying which signatures the bounds left unchecked (never silently accepted). */
function invalidReason(first: string, total: number, beyondUrls: number): string {
  const urls = beyondUrls
    ? `; ${beyondUrls} named a JWKS URL beyond the first ${MAX_JKU_URLS} (missive fetches at most ${MAX_JKU_URLS} per card) and were not checked`
    : '';
  if (total <= MAX_SIGNATURES_CHECKED) return `${first}${urls}`;
  return `none of the first ${MAX_SIGNATURES_CHECKED} of its ${total} signatures verifies (${oneLine(first, 120)})${urls}; the other ${total - MAX_SIGNATURES_CHECKED} were not checked (missive checks at most ${MAX_SIGNATURES_CHECKED} per card)`;
}

/** Verifies the card's signatures; never throws (every failure is an `invalid` view with its reason). */
export async function verifyCardSignature(card: ParsedCard, raw: unknown, ctx: VerifyContext): Promise<SignatureView> {
  const full = verifiableCard(card, raw);
  const all = Array.isArray(full.signatures) ? full.signatures : [];
  if (!all.length) return { status: 'unsigned', kid: null, reason: null, key_source: null };
  // The signed payload leaves `signatures` out, so trying only the first few changes nothing else.
  const entries = all.slice(0, MAX_SIGNATURES_CHECKED);
  const json = entries.length < all.length ? { ...full, signatures: entries } : full;

  // Each entry's header is checked here first, so the reason can name what is wrong with it.
  const headers = entries.map(protectedHeader);
  const firstKid = headers.map((h) => (typeof h?.kid === 'string' ? h.kid : null)).find((k) => k !== null) ?? null;
  if (headers.every((h) => !h)) return invalid('no signature has a readable protected header', null, null);
  if (headers.every((h) => !h || typeof h.kid !== 'string' || typeof h.alg !== 'string' || typeof h.typ !== 'string')) {
    return invalid('no signature names kid, alg and typ in its protected header', firstKid, null);
  }

  const lookupFailures: string[] = [];
  const seenJku = new Set<string>();
  let beyondUrls = 0;
  let lastKid: string | null = null;
  let lastSource: KeySource | null = null;
  const verify = verifyAgentCardSignature(async (kid, jku) => {
    lastKid = kid;
    try {
      const { jwks, where, source } = await jwksFor(ctx, jku, seenJku);
      lastSource = source;
      const key = keysOf(jwks, where).find((k) => k.kid === kid);
      if (!key) throw new KeyLookupError(`${where} has no key "${oneLine(kid)}"`);
      return publicJwk(key) as never;
    } catch (error) {
      if (error instanceof JkuBoundError) beyondUrls++;
      lookupFailures.push(error instanceof KeyLookupError ? error.message : `the key "${kid}" cannot be used: ${oneLine((error as Error).message)}`);
      throw error;
    }
  });
  try {
    await quietly(() => verify(json as never));
    return { status: 'verified', kid: lastKid, reason: null, key_source: lastSource };
  } catch (error) {
    const legacy = card.format === '1.0' ? '' : ` (a v${card.format} card is checked over its A2A 1.0 form)`;
    if (lookupFailures.length === entries.length) return invalid(invalidReason(lookupFailures[0]!, all.length, beyondUrls), firstKid, lastSource);
    const why = /No signatures|No valid signatures/.test((error as Error).message)
      ? 'the signature does not match the card: it was changed after signing, or signed with another key'
      : oneLine((error as Error).message);
    return invalid(invalidReason(`${why}${legacy}`, all.length, beyondUrls), lastKid ?? firstKid, lastSource);
  }
}
