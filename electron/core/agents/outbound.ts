/**
 * Everything an outbound request to an agent carries: service parameters and resolved auth (headers and, for an API
 * key `in = "query"`, query parameters), in one place.
 */
import type { Core } from '../handle.js';
import { authError } from '../../../shared/errors.js';
import { resolveAuthHeaders } from '../auth/resolve.js';
import { AuthHeaders } from '../auth/auth-headers.js';
import { serviceParameterHeaders } from '../a2a/service-params.js';
import type { AgentRow } from '../store/rows/agents.js';
import type { PinInput } from '../auth/origin-pin.js';
import { expireTokenOf } from '../auth/oauth2/tokens.js';
import { isOAuthFlow } from '../config/auth-flow.js';
import type { Reauth } from '../a2a/binding-call.js';
import { applyUrlCredentials, urlCredentialSources } from './url-credentials.js';
import { assertConfirmedAgent, boundRef } from '../auth/host-trust.js';
import { CLIENT_CERTIFICATE_SOURCE, hasClientCertificate } from './client-tls.js';

export interface Outbound {
  headers: Record<string, string>;
  /** Query parameters every request URL carries (an API key in the query); their values are secrets. */
  query?: Record<string, string>;
  auth: AuthHeaders;
  /** After a 401: a renewed OAuth2 token for one retry (absent for credentials that cannot be renewed). */
  reauth?: Reauth;
  secrets: string[];
  /** What authenticates these requests, by name only (`auth ref "prod"`, `--bearer-token-env`, `--header X-Key`). */
  credentialSources: string[];
}

/** What would authenticate requests to this agent, by name only; no secret is resolved. */
export function credentialSources(core: Core, agent: Pick<AgentRow, 'alias' | 'authRefName'>): string[] {
  const out: string[] = [];
  if (agent.authRefName) out.push(`auth ref "${agent.authRefName}"`);
  if (core.options.bearerTokenEnv) out.push('--bearer-token-env');
  for (const header of core.options.headers ?? []) out.push(`--header ${header.slice(0, Math.max(0, header.indexOf(':'))).trim()}`);
  out.push(...urlCredentialSources(core, agent.alias));
  return out;
}

/** What would authenticate requests to this agent, its client certificate included, by name only. */
export const everyCredentialSource = (core: Core, agent: Pick<AgentRow, 'alias' | 'authRefName'> & Partial<Pick<AgentRow, 'clientTls'>>): string[] => [
  ...credentialSources(core, agent),
  ...(hasClientCertificate({ clientTls: agent.clientTls ?? null }) ? [CLIENT_CERTIFICATE_SOURCE] : []),
];

/**
 * Resolves what requests to `agent` carry. On a shared store, nothing is read before this host's decisions allow it
 * (auth/host-trust.ts): the agent's origins and auth ref as confirmed here, the ref's secret from this host's binding.
 */
export async function outboundFor(core: Core, agent: AgentRow, extra: Record<string, string> = {}): Promise<Outbound> {
  assertConfirmedAgent(core, agent, everyCredentialSource(core, agent));
  const stored = agent.authRefName ? ((await (await core.storage()).authRefs.get(agent.authRefName)) ?? null) : null;
  const authRef = stored && boundRef(core, stored);
  const resolve = async () => {
    const resolved = await resolveAuthHeaders({
      authRef,
      bearerTokenEnv: core.options.bearerTokenEnv,
      headers: core.options.headers,
      env: core.env,
      secrets: core.secrets,
      oauth: { profile: core.config.profile, timeoutMs: core.timeoutMs, dispatcher: core.dispatcher },
    });
    applyUrlCredentials(core, agent.alias, resolved);
    return resolved;
  };
  const auth = await resolve();
  core.rememberSecrets(auth.secrets());
  // What these calls' wire views, answers, stored messages and journal entries are scrubbed of: this agent's own
  // credentials, and every secret this process knows besides (the store's password, credentials sent to others).
  const secrets = [...new Set([...auth.secrets(), ...core.knownSecrets()])];
  // An OAuth2 token the agent refused (401) is marked expired and renewed (refresh token or a new grant), once.
  const reauth: Reauth | undefined =
    authRef && isOAuthFlow(authRef.flow)
      ? async () => {
          await expireTokenOf(authRef.name, { profile: core.config.profile, secrets: core.secrets });
          const renewed = await resolve();
          // The same list the calls and the journal scrub with: the renewed token is scrubbed everywhere too.
          secrets.push(...renewed.secrets());
          core.rememberSecrets(renewed.secrets());
          return { headers: renewed.toHeaders(), secrets: renewed.secrets() };
        }
      : undefined;
  return {
    headers: { ...extra, ...serviceParameterHeaders(core.serviceParameters), ...auth.toHeaders() },
    query: auth.toQuery(),
    auth,
    reauth,
    secrets,
    credentialSources: auth.size ? credentialSources(core, agent) : [],
  };
}

/** What pinning needs to know about this agent and one target URL (the same for a call and for `agent inspect`). */
export function pinInputFor(core: Core, agent: AgentRow, target: string, sources: string[], bodySecrets?: string[]): PinInput {
  return {
    alias: agent.alias,
    baseUrl: agent.baseUrl,
    trustedOrigins: agent.trustedOrigins,
    target,
    credentialSources: sources,
    bodySecrets,
    allowCrossOrigin: core.options.allowCrossOriginAuth === true || agent.allowCrossOriginAuth,
  };
}

/** gRPC has no URL query: an API key `in = "query"` cannot travel with it, so the call is refused rather than sent without it. */
export function refuseQueryOverGrpc(binding: string, outbound: Outbound, alias: string): void {
  if (binding !== 'grpc' || !outbound.query) return;
  throw authError(
    'query_key_over_grpc',
    `the auth ref of "${alias}" puts its API key in the URL query, which gRPC does not have; nothing was sent`,
    `Call it over HTTP with --binding http+json or --binding json-rpc, or use an api_key auth ref with --in header.`,
  );
}

/** The same requests with every credential left out (a cross-origin interface the user allowed without them). */
export const withoutCredentials = (outbound: Outbound): Outbound => ({
  headers: Object.fromEntries(Object.entries(outbound.headers).filter(([name]) => !outbound.auth.has(name))),
  auth: new AuthHeaders(),
  secrets: outbound.secrets,
  credentialSources: [],
});
