/**
 * The access token of an OAuth2 auth ref: the cached one while it is fresh; else refreshed with its refresh token;
 * else, for client credentials, a new one from the token endpoint. A device-code ref without a usable token needs
 * `missive auth login`. Every new token is cached in memory and in the keyring.
 */
import { MissiveError } from '../../../../shared/errors.js';
import type { OAuthFlow } from '../../config/auth-flow.js';
import type { OAuthContext } from './context.js';
import { deviceCodeLogin } from './device-code.js';
import { endpointsOf } from './endpoints.js';
import { clientCredentialsGrant, refreshGrant } from './grants.js';
import { dropToken, expireToken, isFresh, readToken, tokenAccount, writeToken, type CachedToken } from './token-cache.js';
import type { OAuthClient } from './token-request.js';

export interface OAuthRef {
  name: string;
  flow: OAuthFlow;
}

/** A fresh token from the grant the flow names (device code: the user approves it). */
async function newToken(ref: OAuthRef, client: OAuthClient, ctx: OAuthContext): Promise<CachedToken> {
  const endpoints = await endpointsOf(ref.name, ref.flow, ctx);
  if (ref.flow.type === 'oauth2_client_credentials') {
    if (!client.secret)
      throw new MissiveError('auth', 'client_secret_missing', `auth ref "${ref.name}" has no client secret`, {
        help: `Store one: missive auth set-secret ${ref.name}`,
        gui: { help: `Set the client secret of auth ref "${ref.name}" with Set secret, then try again.`, action: { kind: 'set-secret', auth_ref: ref.name } },
      });
    return clientCredentialsGrant(ref.name, ref.flow, endpoints.token_url, client, ctx);
  }
  return deviceCodeLogin(ref.name, ref.flow, { token_url: endpoints.token_url, device_authorization_url: endpoints.device_authorization_url! }, client, ctx);
}

/** The token the next request carries, fetched or refreshed when the cached one is missing or about to expire. */
export async function accessTokenFor(ref: OAuthRef, client: OAuthClient, ctx: OAuthContext): Promise<CachedToken> {
  const account = tokenAccount(ctx.profile, ref.name);
  const cached = await readToken(ctx.secrets, account);
  const now = (ctx.now ?? Date.now)();
  if (cached && isFresh(cached.token, now)) return cached.token;
  if (cached?.token.refresh_token) {
    try {
      const endpoints = await endpointsOf(ref.name, ref.flow, ctx);
      const token = await refreshGrant(ref.name, endpoints.token_url, client, cached.token, ctx);
      await writeToken(ctx.secrets, account, token);
      return token;
    } catch (error) {
      // A refused refresh token is dead: forget it, and fall through to a new grant (or a login).
      await dropToken(ctx.secrets, account);
      if (ref.flow.type === 'oauth2_device_code') throw error;
    }
  }
  if (ref.flow.type === 'oauth2_device_code') {
    throw new MissiveError('auth', 'login_required', `auth ref "${ref.name}" has ${cached ? 'an expired token' : 'no token yet'} (OAuth2 device code)`, {
      help: `Log in: missive auth login ${ref.name}`,
      gui: { help: `Log in with auth ref "${ref.name}" (Log in), then try again.`, action: { kind: 'log-in', target: ref.name } },
    });
  }
  const token = await newToken(ref, client, ctx);
  await writeToken(ctx.secrets, account, token);
  return token;
}

/** Runs the flow now, replacing any cached token; says whether the keyring holds the new one. */
export async function loginWith(ref: OAuthRef, client: OAuthClient, ctx: OAuthContext): Promise<{ token: CachedToken; keyring: boolean }> {
  const token = await newToken(ref, client, ctx);
  const keyring = await writeToken(ctx.secrets, tokenAccount(ctx.profile, ref.name), token);
  return { token, keyring };
}

/** Marks the cached token of a ref expired: an agent answered 401 to it, so the next resolve renews it. */
export const expireTokenOf = (ref: string, ctx: Pick<OAuthContext, 'profile' | 'secrets'>) => expireToken(ctx.secrets, tokenAccount(ctx.profile, ref));

/** Forgets the cached token of a ref (`auth logout`). */
export const forgetToken = (ref: string, ctx: Pick<OAuthContext, 'profile' | 'secrets'>) => dropToken(ctx.secrets, tokenAccount(ctx.profile, ref));
