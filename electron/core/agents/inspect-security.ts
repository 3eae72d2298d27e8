/**
 * The `security` block of `agent inspect`: the schemes and requirements the card declares, and what missive would
 * send to satisfy them (`satisfied_by`): each credential by its source and kind (auth ref flow, --bearer-token-env,
 * --header, a client certificate), never its value, and which declared schemes it fits. No secret is resolved.
 */
import type { Core } from '../handle.js';
import { securitySchemesOf, type SchemeView, type SecurityView } from '../a2a/security-schemes.js';
import type { AuthRefRow } from '../store/rows/auth-refs.js';
import type { AgentRow } from '../store/rows/agents.js';
import { hasClientCertificate } from './client-tls.js';

export type CredentialKind = 'bearer' | 'basic' | 'api_key' | 'header' | 'oauth2_client_credentials' | 'oauth2_device_code' | 'mtls';

/** One credential missive would send: where it comes from, what it is, and where it goes. */
export interface CredentialOffer {
  /** `auth ref "prod"`, `--bearer-token-env`, `--header X-Key`, `client certificate`. */
  source: string;
  kind: CredentialKind;
  /** Where it travels: a header, a query parameter, a cookie, or the TLS handshake. */
  place: 'header' | 'query' | 'cookie' | 'tls';
  /** The header, parameter or cookie name (null for TLS). */
  name: string | null;
}

export interface SatisfiedBy {
  auth_ref: string | null;
  sends: CredentialOffer[];
  /** The declared schemes these credentials fit. */
  schemes: string[];
  /** Whether one requirement of the card is met by those schemes; null when the card states no requirement. */
  requirement_met: boolean | null;
}

export interface InspectSecurity extends SecurityView {
  /** What missive would send to this agent's selected interface, or null when it sends no credentials. */
  satisfied_by: SatisfiedBy | null;
}

/** An auth ref's flow as B's `flow` column records it (read loosely: refs made before flows have none). */
interface LooseFlow {
  type?: string;
  in?: 'header' | 'query' | 'cookie';
  name?: string;
}

function refOffer(ref: AuthRefRow | undefined, name: string): CredentialOffer | null {
  if (!ref) return null;
  const source = `auth ref "${name}"`;
  const flow = ((ref as { flow?: LooseFlow }).flow ?? {}) as LooseFlow;
  switch (flow.type) {
    case 'basic':
      return { source, kind: 'basic', place: 'header', name: 'Authorization' };
    case 'api_key':
      return { source, kind: 'api_key', place: flow.in ?? 'header', name: flow.name ?? null };
    case 'oauth2_client_credentials':
    case 'oauth2_device_code':
      return { source, kind: flow.type, place: 'header', name: 'Authorization' };
    default: {
      const scheme = ref.scheme.toLowerCase();
      const authorization = ref.headerName.toLowerCase() === 'authorization';
      if (authorization && scheme === 'bearer') return { source, kind: 'bearer', place: 'header', name: ref.headerName };
      if (authorization && scheme === 'basic') return { source, kind: 'basic', place: 'header', name: ref.headerName };
      return { source, kind: 'header', place: 'header', name: ref.headerName };
    }
  }
}

/** Every credential a request to this agent would carry, by source (the order of resolve.ts). */
export async function credentialOffers(core: Core, agent: AgentRow): Promise<CredentialOffer[]> {
  const out: CredentialOffer[] = [];
  if (agent.authRefName) {
    const offer = refOffer(await (await core.storage()).authRefs.get(agent.authRefName), agent.authRefName);
    if (offer) out.push(offer);
  }
  if (core.options.bearerTokenEnv) out.push({ source: '--bearer-token-env', kind: 'bearer', place: 'header', name: 'Authorization' });
  for (const header of core.options.headers ?? []) {
    const name = header.slice(0, Math.max(0, header.indexOf(':'))).trim();
    out.push({ source: `--header ${name}`, kind: 'header', place: 'header', name });
  }
  // A CA bundle alone trusts the server; only a certificate authenticates missive.
  if (hasClientCertificate(agent)) out.push({ source: 'client certificate', kind: 'mtls', place: 'tls', name: null });
  return out;
}

const same = (a: string | null, b: string | null) => !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** Whether one credential fits one declared scheme. */
export function fits(offer: CredentialOffer, scheme: SchemeView): boolean {
  switch (scheme.type) {
    case 'http':
      if (scheme.http_scheme === 'bearer') return offer.kind === 'bearer' || offer.kind.startsWith('oauth2_');
      if (scheme.http_scheme === 'basic') return offer.kind === 'basic';
      return offer.kind === 'header' && same(offer.name, 'authorization');
    case 'api_key':
      return (offer.kind === 'api_key' || offer.kind === 'header') && offer.place === (scheme.in ?? 'header') && same(offer.name, scheme.param_name);
    case 'oauth2':
    case 'openid_connect':
      return offer.kind === 'bearer' || offer.kind.startsWith('oauth2_');
    case 'mtls':
      return offer.kind === 'mtls';
    default:
      return false;
  }
}

/**
 * The card's security (from the raw card JSON, so every OAuth2 flow is kept) and what missive would send.
 * `sending` is false when the credentials would not go to the selected interface (none, withheld or refused).
 */
export async function inspectSecurity(core: Core, agent: AgentRow, card: unknown, sending: boolean): Promise<InspectSecurity> {
  const view = securitySchemesOf(card);
  const offers = sending ? await credentialOffers(core, agent) : [];
  if (offers.length === 0) return { ...view, satisfied_by: null };
  const schemes = view.schemes.filter((s) => offers.some((o) => fits(o, s))).map((s) => s.name);
  const requirementMet = view.requirements.length ? view.requirements.some((r) => r.schemes.every((s) => schemes.includes(s.name))) : null;
  return { ...view, satisfied_by: { auth_ref: agent.authRefName, sends: offers, schemes, requirement_met: requirementMet } };
}
