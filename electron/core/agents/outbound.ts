/** Everything an outbound request to an agent carries: service parameters and resolved auth, in one place. */
import type { Core } from '../context.js';
import { resolveAuthHeaders } from '../auth/resolve.js';
import { AuthHeaders } from '../auth/auth-headers.js';
import { serviceParameterHeaders } from '../a2a/service-params.js';
import { getAuthRef } from '../store/repos/auth-refs.js';
import type { AgentRow } from '../store/repos/agents.js';
import type { PinInput } from '../auth/origin-pin.js';

export interface Outbound {
  headers: Record<string, string>;
  auth: AuthHeaders;
  secrets: string[];
  /** What authenticates these requests, by name only (`auth ref "prod"`, `--bearer-token-env`, `--header X-Key`). */
  credentialSources: string[];
}

/** What would authenticate requests to this agent, by name only; no secret is resolved. */
export function credentialSources(core: Core, agent: AgentRow): string[] {
  const out: string[] = [];
  if (agent.authRefName) out.push(`auth ref "${agent.authRefName}"`);
  if (core.options.bearerTokenEnv) out.push('--bearer-token-env');
  for (const header of core.options.headers ?? []) out.push(`--header ${header.slice(0, Math.max(0, header.indexOf(':'))).trim()}`);
  return out;
}

export async function outboundFor(core: Core, agent: AgentRow, extra: Record<string, string> = {}): Promise<Outbound> {
  const authRef = agent.authRefName ? getAuthRef(core.store().db, agent.authRefName) : null;
  const auth = await resolveAuthHeaders({
    authRef,
    bearerTokenEnv: core.options.bearerTokenEnv,
    headers: core.options.headers,
    env: core.env,
    secrets: core.secrets,
  });
  return {
    headers: { ...extra, ...serviceParameterHeaders(core.serviceParameters), ...auth.toHeaders() },
    auth,
    secrets: auth.secrets(),
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

/** The same requests with every credential left out (a cross-origin interface the user allowed without them). */
export const withoutCredentials = (outbound: Outbound): Outbound => ({
  headers: Object.fromEntries(Object.entries(outbound.headers).filter(([name]) => !outbound.auth.has(name))),
  auth: new AuthHeaders(),
  secrets: outbound.secrets,
  credentialSources: [],
});
