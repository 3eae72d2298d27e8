/**
 * Where an OAuth2 flow talks to: the token endpoint (and the device authorization endpoint), from the auth ref's
 * settings or from OpenID Connect discovery (`<issuer>/.well-known/openid-configuration`). A client secret only ever
 * goes to these endpoints, so they must be https (plain http only on loopback), and discovered endpoints must be on
 * the issuer's own origin (set token_url explicitly for an identity provider that serves them elsewhere).
 */
import { authError } from '../../../../shared/errors.js';
import type { OAuthFlow } from '../../config/auth-flow.js';
import { httpRequest, tryJson } from '../../a2a/http.js';
import { formatOrigin, isLoopbackHost, originKey, sameOrigin } from '../../../../shared/origins.js';
import { redactUrl } from '../../security/redact.js';
import type { OAuthContext } from './context.js';

export interface OAuthEndpoints {
  token_url: string;
  device_authorization_url: string | null;
  /** How they were found: the auth ref's settings or the issuer's discovery document. */
  source: 'config' | 'discovery';
}

/** Refuses an endpoint a secret would reach in plain text: https, or http only on a loopback host (exit 77). */
export function checkSecureEndpoint(url: string, what: string, refName: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw authError('invalid_token_endpoint', `the ${what} of auth ref "${refName}" is not a URL`);
  }
  if (parsed.protocol === 'https:') return;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return;
  throw authError(
    'insecure_token_endpoint',
    `the ${what} of auth ref "${refName}" is ${redactUrl(url)}: missive sends client credentials only over https (plain http only to a loopback address), so nothing was sent`,
    `Use the https URL of the ${what} in [auth_refs.${refName}].`,
  );
}

const discovered = new Map<string, { token_endpoint: string; device_authorization_endpoint: string | null }>();

/** The issuer's discovery document (cached for the process), its endpoints checked against the issuer. */
async function discover(issuer: string, refName: string, ctx: OAuthContext) {
  checkSecureEndpoint(issuer, 'issuer', refName);
  const cached = discovered.get(issuer);
  if (cached) return cached;
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await httpRequest({
    url,
    headers: { Accept: 'application/json' },
    timeoutMs: ctx.timeoutMs,
    dispatcher: ctx.dispatcher,
    maxResponseBytes: 1024 * 1024,
  });
  const doc = res.status === 200 ? (tryJson(res.body, 'the OpenID Connect discovery document') as Record<string, unknown> | undefined) : undefined;
  if (!doc || typeof doc !== 'object' || typeof doc.token_endpoint !== 'string') {
    throw authError(
      'oidc_discovery_failed',
      `OpenID Connect discovery for auth ref "${refName}" failed: ${redactUrl(url)} answered HTTP ${res.status}${res.status === 200 ? ' without a token_endpoint' : ''}`,
      `Check issuer in [auth_refs.${refName}], or set token_url instead.`,
    );
  }
  if (typeof doc.issuer === 'string' && doc.issuer.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
    throw authError(
      'oidc_issuer_mismatch',
      `the discovery document at ${redactUrl(url)} names issuer ${redactUrl(doc.issuer)}, not ${redactUrl(issuer)} (auth ref "${refName}")`,
    );
  }
  const home = originKey(issuer)!;
  const onIssuer = (endpoint: string, what: string) => {
    const at = originKey(endpoint);
    if (!at || !sameOrigin(at, home)) {
      throw authError(
        'oidc_endpoint_off_issuer',
        `the discovery document of ${formatOrigin(home)} puts its ${what} on ${at ? formatOrigin(at) : redactUrl(endpoint)}: missive sends the client secret of auth ref "${refName}" only to the issuer's origin`,
        `If you trust that endpoint, set token_url${what === 'token endpoint' ? '' : ' and device_authorization_url'} in [auth_refs.${refName}] explicitly.`,
      );
    }
    checkSecureEndpoint(endpoint, what, refName);
    return endpoint;
  };
  const device = typeof doc.device_authorization_endpoint === 'string' ? doc.device_authorization_endpoint : null;
  const found = {
    token_endpoint: onIssuer(doc.token_endpoint, 'token endpoint'),
    device_authorization_endpoint: device && onIssuer(device, 'device authorization endpoint'),
  };
  discovered.set(issuer, found);
  return found;
}

/** The flow's endpoints: explicit URLs win; otherwise the issuer's discovery document supplies the missing ones. */
export async function endpointsOf(refName: string, flow: OAuthFlow, ctx: OAuthContext): Promise<OAuthEndpoints> {
  const explicitDevice = flow.type === 'oauth2_device_code' ? flow.device_authorization_url : null;
  const complete = flow.token_url && (flow.type === 'oauth2_client_credentials' || explicitDevice);
  let endpoints: OAuthEndpoints;
  if (complete || !flow.issuer) {
    endpoints = { token_url: flow.token_url ?? '', device_authorization_url: explicitDevice, source: 'config' };
  } else {
    const doc = await discover(flow.issuer, refName, ctx);
    endpoints = {
      token_url: flow.token_url ?? doc.token_endpoint,
      device_authorization_url: explicitDevice ?? doc.device_authorization_endpoint,
      source: 'discovery',
    };
  }
  checkSecureEndpoint(endpoints.token_url, 'token endpoint', refName);
  if (flow.type === 'oauth2_device_code') {
    if (!endpoints.device_authorization_url) {
      throw authError(
        'no_device_endpoint',
        `auth ref "${refName}" has no device authorization endpoint (the issuer does not advertise one)`,
        `Set device_authorization_url in [auth_refs.${refName}].`,
      );
    }
    checkSecureEndpoint(endpoints.device_authorization_url, 'device authorization endpoint', refName);
  }
  return endpoints;
}
