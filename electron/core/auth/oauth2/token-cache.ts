/**
 * Access tokens, cached in memory (per secret store, so per running core) and in the OS keyring (service
 * `missive-oauth`, account `<profile>/<ref>`) with their expiry. A token counts as fresh until 60 s before it
 * expires. Tokens never go to SQLite, the config, output or the journal. Without a keyring, only memory holds them.
 */
import type { SecretStore } from '../secret-store.js';
import { firstControlCharacter } from './token-text.js';

export const TOKEN_SERVICE = 'missive-oauth';
/** A token is renewed this long before its expiry, so no request carries one that expires on the way. */
export const EXPIRY_SKEW_MS = 60_000;

export interface CachedToken {
  access_token: string;
  token_type: string;
  /** Epoch milliseconds; null when the endpoint gave no `expires_in`. */
  expires_at: number | null;
  refresh_token: string | null;
  scope: string | null;
}

export const tokenAccount = (profile: string, ref: string) => `${profile}/${ref}`;

const memory = new WeakMap<SecretStore, Map<string, CachedToken>>();

function memoryOf(secrets: SecretStore): Map<string, CachedToken> {
  let map = memory.get(secrets);
  if (!map) memory.set(secrets, (map = new Map()));
  return map;
}

export const isFresh = (token: CachedToken, now: number) => token.expires_at === null || token.expires_at - EXPIRY_SKEW_MS > now;

function parseCached(text: string | null): CachedToken | null {
  if (!text) return null;
  try {
    const t = JSON.parse(text) as Partial<CachedToken>;
    // A token with control characters (kept by an older version) is no token: the next call fetches a new one.
    if (typeof t.access_token !== 'string' || !t.access_token || firstControlCharacter(t.access_token)) return null;
    return {
      access_token: t.access_token,
      token_type: typeof t.token_type === 'string' ? t.token_type : 'Bearer',
      expires_at: typeof t.expires_at === 'number' ? t.expires_at : null,
      refresh_token: typeof t.refresh_token === 'string' && !firstControlCharacter(t.refresh_token) ? t.refresh_token : null,
      scope: typeof t.scope === 'string' ? t.scope : null,
    };
  } catch {
    return null;
  }
}

/** The cached token (memory first, then the keyring), fresh or not; null when none is cached. */
export async function readToken(secrets: SecretStore, account: string): Promise<{ token: CachedToken; where: 'memory' | 'keyring' } | null> {
  const hot = memoryOf(secrets).get(account);
  if (hot) return { token: hot, where: 'memory' };
  if (!(await secrets.available()).ok) return null;
  const stored = parseCached(await secrets.get(TOKEN_SERVICE, account));
  if (!stored) return null;
  memoryOf(secrets).set(account, stored);
  return { token: stored, where: 'keyring' };
}

/** Caches the token in memory and, when the keyring answers, there too. Returns whether the keyring holds it. */
export async function writeToken(secrets: SecretStore, account: string, token: CachedToken): Promise<boolean> {
  memoryOf(secrets).set(account, token);
  if (!(await secrets.available()).ok) return false;
  await secrets.set(TOKEN_SERVICE, account, JSON.stringify(token));
  return true;
}

/** Marks the cached token expired (an agent refused it), keeping its refresh token for the renewal. */
export async function expireToken(secrets: SecretStore, account: string): Promise<void> {
  const cached = await readToken(secrets, account);
  if (cached) await writeToken(secrets, account, { ...cached.token, expires_at: 0 });
}

/** Forgets the token everywhere; says where one was. */
export async function dropToken(secrets: SecretStore, account: string): Promise<{ memory: boolean; keyring: boolean }> {
  const inMemory = memoryOf(secrets).delete(account);
  const keyring = (await secrets.available()).ok ? await secrets.delete(TOKEN_SERVICE, account) : false;
  return { memory: inMemory, keyring };
}
