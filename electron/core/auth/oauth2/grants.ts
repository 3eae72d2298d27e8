/**
 * The token grants missive asks for: client credentials (RFC 6749 §4.4), refresh (§6) and the device code poll
 * (RFC 8628 §3.4), each turning the endpoint's JSON into a CachedToken with an absolute expiry. A token with control
 * characters (CR, LF…) is refused (token-text.ts) before anything caches it.
 */
import { authError } from '../../../../shared/errors.js';
import type { OAuthFlow } from '../../config/auth-flow.js';
import type { OAuthContext } from './context.js';
import type { CachedToken } from './token-cache.js';
import { refuseControlCharacters } from './token-text.js';
import { endpointRefused, postForm, type EndpointAnswer, type OAuthClient } from './token-request.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The token in a successful token answer; refuses one without access_token or of a type other than Bearer. */
export function tokenFromAnswer(refName: string, body: Record<string, unknown>, now: number, previous?: CachedToken): CachedToken {
  const access = body.access_token;
  if (typeof access !== 'string' || !access)
    throw authError('token_endpoint_invalid', `the token endpoint of auth ref "${refName}" answered without an access_token`);
  const help = `The identity provider answered a malformed token; check token_url of [auth_refs.${refName}] and tell the provider's operator.`;
  refuseControlCharacters(access, `the access token the token endpoint of auth ref "${refName}" issued`, help);
  if (typeof body.refresh_token === 'string')
    refuseControlCharacters(body.refresh_token, `the refresh token the token endpoint of auth ref "${refName}" issued`, help);
  const type = typeof body.token_type === 'string' ? body.token_type : 'Bearer';
  if (type.toLowerCase() !== 'bearer')
    throw authError('unsupported_token_type', `the token endpoint of auth ref "${refName}" issued a "${type}" token; missive sends Bearer tokens only`);
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : typeof body.expires_in === 'string' ? Number(body.expires_in) : NaN;
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_at: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : null,
    refresh_token: typeof body.refresh_token === 'string' ? body.refresh_token : (previous?.refresh_token ?? null),
    scope: typeof body.scope === 'string' ? body.scope : null,
  };
}

const scopeField = (flow: OAuthFlow): Record<string, string> => (flow.scopes.length ? { scope: flow.scopes.join(' ') } : {});

/** A successful answer's token, or the endpoint's refusal as an auth error. */
function tokenOrThrow(refName: string, tokenUrl: string, answer: EndpointAnswer, ctx: OAuthContext, previous?: CachedToken): CachedToken {
  if (!answer.ok) endpointRefused(refName, 'token endpoint', tokenUrl, answer);
  return tokenFromAnswer(refName, answer.body, (ctx.now ?? Date.now)(), previous);
}

export async function clientCredentialsGrant(
  refName: string,
  flow: Extract<OAuthFlow, { type: 'oauth2_client_credentials' }>,
  tokenUrl: string,
  client: OAuthClient,
  ctx: OAuthContext,
): Promise<CachedToken> {
  const form = { grant_type: 'client_credentials', ...scopeField(flow), ...(flow.audience ? { audience: flow.audience } : {}) };
  return tokenOrThrow(refName, tokenUrl, await postForm(tokenUrl, form, client, ctx, []), ctx);
}

export async function refreshGrant(refName: string, tokenUrl: string, client: OAuthClient, previous: CachedToken, ctx: OAuthContext): Promise<CachedToken> {
  const answer = await postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: previous.refresh_token! }, client, ctx, [
    previous.refresh_token!,
    previous.access_token,
  ]);
  return tokenOrThrow(refName, tokenUrl, answer, ctx, previous);
}

/** One poll of the device code grant: the token, or the endpoint's answer while the user has not decided yet. */
export async function deviceCodePoll(tokenUrl: string, deviceCode: string, client: OAuthClient, ctx: OAuthContext): Promise<EndpointAnswer> {
  return postForm(tokenUrl, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode }, client, ctx, [deviceCode]);
}
