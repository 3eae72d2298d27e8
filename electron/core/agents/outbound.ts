/** Everything an outbound request to an agent carries: service parameters and resolved auth, in one place. */
import type { Core } from '../context.js';
import { resolveAuthHeaders } from '../auth/resolve.js';
import type { AuthHeaders } from '../auth/auth-headers.js';
import { serviceParameterHeaders } from '../a2a/service-params.js';
import { getAuthRef } from '../store/repos/auth-refs.js';
import type { AgentRow } from '../store/repos/agents.js';

export interface Outbound {
  headers: Record<string, string>;
  auth: AuthHeaders;
  secrets: string[];
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
  };
}
