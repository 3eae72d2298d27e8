/**
 * The OAuth2 device authorization grant (RFC 8628): ask for a device code, show the user the verification URL and
 * code, then poll the token endpoint at the interval the server sets (slower after `slow_down`) until the user approves
 * (a token), denies (`access_denied`) or the code expires (`expired_token`, or the local deadline). The poll loop is
 * bounded by the code's lifetime and by MAX_POLLS.
 */
import { authError } from '../../../../shared/errors.js';
import type { OAuthFlow } from '../../config/auth-flow.js';
import type { OAuthContext } from './context.js';
import { deviceCodePoll, tokenFromAnswer } from './grants.js';
import type { CachedToken } from './token-cache.js';
import { endpointRefused, postForm, type OAuthClient } from './token-request.js';

const MAX_POLLS = 10_000;
const DEFAULT_INTERVAL_S = 5;
const SLOW_DOWN_S = 5;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function deviceCodeLogin(
  refName: string,
  flow: Extract<OAuthFlow, { type: 'oauth2_device_code' }>,
  endpoints: { token_url: string; device_authorization_url: string },
  client: OAuthClient,
  ctx: OAuthContext,
): Promise<CachedToken> {
  const now = ctx.now ?? Date.now;
  const sleep = ctx.sleep ?? defaultSleep;
  const start = await postForm(endpoints.device_authorization_url, flow.scopes.length ? { scope: flow.scopes.join(' ') } : {}, client, ctx, []);
  if (!start.ok) endpointRefused(refName, 'device authorization endpoint', endpoints.device_authorization_url, start);
  const b = start.body;
  if (typeof b.device_code !== 'string' || typeof b.user_code !== 'string' || typeof b.verification_uri !== 'string') {
    throw authError(
      'device_code_invalid',
      `the device authorization endpoint of auth ref "${refName}" answered without device_code, user_code and verification_uri`,
    );
  }
  const expiresIn = typeof b.expires_in === 'number' && b.expires_in > 0 ? b.expires_in : 600;
  let intervalS = typeof b.interval === 'number' && b.interval > 0 ? b.interval : DEFAULT_INTERVAL_S;
  ctx.onDeviceCode?.({
    auth_ref: refName,
    verification_uri: b.verification_uri,
    verification_uri_complete: typeof b.verification_uri_complete === 'string' ? b.verification_uri_complete : null,
    user_code: b.user_code,
    expires_in: expiresIn,
  });
  const deadline = now() + expiresIn * 1000;
  const expired = () =>
    authError(
      'device_code_expired',
      `the device code of auth ref "${refName}" expired before the login was approved`,
      `Start again: missive auth login ${refName}`,
    );
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    await sleep(intervalS * 1000);
    if (now() > deadline) throw expired();
    const answer = await deviceCodePoll(endpoints.token_url, b.device_code, client, ctx);
    if (answer.ok) return tokenFromAnswer(refName, answer.body, now());
    if (answer.error === 'authorization_pending') continue;
    if (answer.error === 'slow_down') {
      intervalS += SLOW_DOWN_S;
      continue;
    }
    if (answer.error === 'expired_token') throw expired();
    if (answer.error === 'access_denied') {
      throw authError(
        'access_denied',
        `the login of auth ref "${refName}" was denied at ${b.verification_uri}`,
        `Try again and approve it: missive auth login ${refName}`,
      );
    }
    endpointRefused(refName, 'token endpoint', endpoints.token_url, answer);
  }
  throw expired();
}
