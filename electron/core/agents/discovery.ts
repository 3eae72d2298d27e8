/** Agent Card discovery: cached fetch, conditional refresh (ETag / Last-Modified, 304), inspection and capabilities. */
import type { Core } from '../handle.js';
import { errorFromReport, isMissiveError, toMissiveError, type ErrorReport } from '../../../shared/errors.js';
import { cardUrl, parseCard, type ParsedCard } from '../a2a/card.js';
import {
  negotiateInterface,
  SUPPORTED_BINDINGS,
  versionNegotiation,
  type NegotiatedInterface,
  type SelectedInterface,
  type VersionNegotiation,
} from '../a2a/interfaces.js';
import type { CardFormat, Dialect } from '../a2a/dialect.js';
import { capabilityView, type CapabilityView } from '../a2a/capabilities.js';
import type { Binding } from '../config/schema.js';
import type { AgentRow } from '../store/rows/agents.js';
import { redactValue } from '../security/redact.js';
import { decidePin, pinView } from '../auth/origin-pin.js';
import { agentView, registeredPreference, requireAgent, type AgentView } from './registry.js';
import { sharedAgents } from './views.js';
import { everyCredentialSource, pinInputFor } from './outbound.js';
import { fetchCard, type CardCacheStatus, type CardResult } from './card-fetch.js';
import { assertTrustedCard, cardSignature } from './card-trust.js';
import type { SignatureView } from '../a2a/card-signature.js';
import { inspectSecurity, type InspectSecurity } from './inspect-security.js';
import { clientTlsView, type ClientTlsView } from './client-tls.js';
import { cardWarnings, type CardWarning } from './card-warnings.js';

export { requestCard, fetchCard, type CardCacheStatus, type CardRequest, type CardResult } from './card-fetch.js';

/**
 * Cached cards parsed once per core: a sequence of sends (or a fan-out's members) to one agent would otherwise
 * re-validate and re-decode the same card each time. An entry is valid while the row's card is the same fetch.
 */
const parsedCards = new WeakMap<Core, Map<string, { stamp: string; card: ParsedCard }>>();

const cardStamp = (card: NonNullable<AgentRow['card']>) => `${card.fetchedAt}|${card.url}|${card.etag}|${card.lastModified}`;

function parseCachedCard(core: Core, agent: AgentRow & { card: NonNullable<AgentRow['card']> }): ParsedCard {
  let byAlias = parsedCards.get(core);
  if (!byAlias) parsedCards.set(core, (byAlias = new Map()));
  const stamp = cardStamp(agent.card);
  const hit = byAlias.get(agent.alias);
  if (hit?.stamp === stamp) return hit.card;
  const card = parseCard(agent.card.json, `the cached card of "${agent.alias}"`);
  byAlias.set(agent.alias, { stamp, card });
  return card;
}

/**
 * The agent's cached card parsed as a fetched one is (parseCard), or null after a warning when the store holds one it
 * cannot use: a column changed outside missive (not JSON, nested deeper than MAX_JSON_DEPTH: store/repos/agents.ts)
 * or a card the parser refuses. A cache is only a copy of what the agent serves, so such a card is fetched again
 * rather than failing every command that needs it; the fetch stores the new one in its place.
 */
function usableCachedCard(core: Core, agent: AgentRow): { agent: AgentRow; card: ParsedCard | null } {
  const refetch = (unreadableCard: NonNullable<AgentRow['unreadableCard']>) => {
    core.warn(`the cached card of "${agent.alias}" cannot be used (${errorFromReport(unreadableCard.error).message}); fetching it again`);
    return { agent: { ...agent, card: null, unreadableCard }, card: null };
  };
  if (agent.unreadableCard) return refetch(agent.unreadableCard);
  if (!agent.card) return { agent, card: null };
  try {
    return { agent, card: parseCachedCard(core, { ...agent, card: agent.card }) };
  } catch (error) {
    if (!isMissiveError(error) || error.category !== 'protocol') throw error;
    return refetch({ url: agent.card.url, error: error.toReport() });
  }
}

/**
 * The cached card when present (unless `refresh`), else a fetch. When signed cards are required (card-trust.ts), an
 * unsigned or invalid card is refused here, before any command sends anything; `report` (agent inspect) only reads it.
 */
export async function loadCard(core: Core, alias: string, refresh = false, signed: 'enforce' | 'report' = 'enforce'): Promise<CardResult> {
  // A card that cannot be used is fetched again without its validators (a 304 would keep it).
  const { agent, card } = usableCachedCard(core, await requireAgent(core, alias));
  const result: CardResult =
    card && agent.card && !refresh
      ? { agent, card, status: 'cached', url: agent.card.url ?? cardUrl(agent.baseUrl), http_status: null }
      : await fetchCard(core, agent, refresh);
  if (signed === 'enforce') await assertTrustedCard(core, result.agent, result.card);
  return result;
}

/** The interface missive talks to, and why; relative interface URLs resolve against the URL the card came from. */
export function selectInterface(core: Core, result: CardResult, required?: Binding): NegotiatedInterface {
  return negotiateInterface({
    cardUrl: result.url,
    card: result.card,
    baseUrl: result.agent.baseUrl,
    interfaceUrls: result.agent.interfaceUrls,
    preference: registeredPreference(result.agent),
    required,
    forcedVersion: core.options.protocolVersion,
  });
}

/** The interface a call would use and why, from the cached card alone (no network), or why none; nulls without a cached card. */
export interface CachedSelection {
  selected_interface: NegotiatedInterface | null;
  interface_error: ErrorReport | null;
}

/** `agent show` and `route explain`: the negotiation `agent inspect` makes, on the cached card, without any fetch. */
export function cachedSelection(core: Core, agent: AgentRow, required?: Binding): CachedSelection {
  const { card } = usableCachedCard(core, agent);
  if (!card || !agent.card) return { selected_interface: null, interface_error: null };
  try {
    const result: CardResult = { agent, card, status: 'cached', url: agent.card.url ?? cardUrl(agent.baseUrl), http_status: null };
    return { selected_interface: selectInterface(core, result, required), interface_error: null };
  } catch (error) {
    return { selected_interface: null, interface_error: toMissiveError(error).toReport() };
  }
}

export interface InspectView {
  agent: AgentView;
  cache: {
    status: CardCacheStatus;
    url: string;
    http_status: number | null;
    fetched_at: string | null;
    validated_at: string | null;
    etag: string | null;
    last_modified: string | null;
  };
  card: {
    name: string;
    description: string | null;
    version: string | null;
    provider: unknown;
    protocol_versions: string[];
    capabilities: Record<string, unknown>;
    supported_interfaces: Array<{ protocol_binding: string; url: string; protocol_version: string | null; tenant: string | null }>;
    interfaces_missing: boolean;
    /** The card's generation by shape: `1.0` (supportedInterfaces), `0.3` (url + preferredTransport), `0.2` (url only). */
    format: CardFormat;
    /** The card-level protocolVersion a v0.3 card declares, else null. */
    declared_protocol_version: string | null;
    default_input_modes: string[];
    default_output_modes: string[];
    skills: Array<{ id: string; name?: string }>;
  };
  /** The interface missive will talk to and why, or null when it has none it can call. */
  selected_interface: NegotiatedInterface | null;
  negotiation: {
    ok: boolean;
    /** The A2A dialect missive will speak on the selected interface. */
    dialect: Dialect | null;
    supported_bindings: readonly string[];
    offered_bindings: string[];
    /** Why nothing was selected. */
    error: ErrorReport | null;
    /** The A2A version spoken: the highest both sides speak, or the one `--protocol-version` forces. */
    version: VersionNegotiation;
  };
  /** Where this agent's credentials may go, and whether they would go to the selected interface. */
  origin_pinning: {
    configured: string[];
    pinned_origins: string[];
    interface_origin: string | null;
    /** `send`, `withhold` (cross-origin, allowed without them), `refuse` (cross-origin: the call would fail), or `none`. */
    decision: 'send' | 'withhold' | 'refuse' | 'none';
  };
  /** The card's JWS signature: `verified` (with the key id), `unsigned`, or `invalid` (with the reason). */
  signature: SignatureView;
  /** The client certificate presented to this agent (mutual TLS): files, subject, expiry; never the key. */
  client_tls: ClientTlsView | null;
  /** The card's security schemes and requirements, and what missive would send to satisfy them. */
  security: InspectSecurity;
  /** What is wrong with the card while it stays usable (card-warnings.ts): missing fields, odd URLs, versions, signature. */
  card_warnings: CardWarning[];
  raw_card: unknown;
}

/** The credential decision for the selected interface, without resolving any secret. */
function credentialView(core: Core, agent: AgentRow, iface: SelectedInterface | null): InspectView['origin_pinning'] {
  const configured = everyCredentialSource(core, agent);
  const input = pinInputFor(core, agent, iface?.url ?? agent.baseUrl, configured);
  const view = pinView(input);
  let decision: InspectView['origin_pinning']['decision'];
  try {
    decision = ({ sent: 'send', withheld: 'withhold', none: 'none' } as const)[decidePin(input).outcome];
  } catch {
    decision = 'refuse';
  }
  return { configured, pinned_origins: view.pinned_origins, interface_origin: iface ? view.target_origin : null, decision };
}

export async function inspectAgent(core: Core, alias: string, options: { refresh?: boolean; binding?: Binding } = {}): Promise<InspectView> {
  // Inspect reports the signature status rather than refusing the card: it is how an operator finds out why.
  return inspectCardResult(core, await loadCard(core, alias, options.refresh, 'report'), options);
}

/** The inspect view of a card already loaded (a registered agent's, or a card file's). */
export async function inspectCardResult(core: Core, result: CardResult, options: { binding?: Binding } = {}): Promise<InspectView> {
  let selected: NegotiatedInterface | null = null;
  let failure: ErrorReport | null = null;
  try {
    selected = selectInterface(core, result, options.binding);
  } catch (error) {
    // A card missive cannot talk to is still worth reading; an explicit --binding that does not match is an error.
    if (options.binding) throw error;
    failure = toMissiveError(error).toReport();
  }
  const wire = result.card.wire;
  const versions = [...new Set(wire.supportedInterfaces.map((i) => i.protocolVersion).filter((v): v is string => !!v))];
  const signature = await cardSignature(core, result.agent, result.card);
  return {
    agent: agentView(result.agent, sharedAgents(core)),
    cache: {
      status: result.status,
      url: result.url,
      http_status: result.http_status,
      fetched_at: result.agent.card?.fetchedAt ?? null,
      validated_at: result.agent.card?.validatedAt ?? null,
      etag: result.agent.card?.etag ?? null,
      last_modified: result.agent.card?.lastModified ?? null,
    },
    card: {
      name: wire.name,
      description: wire.description ?? null,
      version: wire.version ?? null,
      provider: (wire as Record<string, unknown>).provider ?? null,
      protocol_versions: versions,
      capabilities: wire.capabilities ?? {},
      supported_interfaces: wire.supportedInterfaces.map((i) => ({
        protocol_binding: i.protocolBinding,
        url: i.url,
        protocol_version: i.protocolVersion ?? null,
        tenant: i.tenant || null,
      })),
      interfaces_missing: result.card.interfacesMissing,
      format: result.card.format,
      declared_protocol_version: result.card.declaredVersion,
      default_input_modes: wire.defaultInputModes ?? [],
      default_output_modes: wire.defaultOutputModes ?? [],
      skills: wire.skills ?? [],
    },
    selected_interface: selected,
    negotiation: {
      ok: selected !== null,
      dialect: selected?.dialect ?? null,
      supported_bindings: SUPPORTED_BINDINGS,
      offered_bindings: [...new Set(wire.supportedInterfaces.map((i) => i.protocolBinding))],
      error: failure,
      version: versionNegotiation(result.card, selected, core.options.protocolVersion, result.requested_version ?? null),
    },
    origin_pinning: credentialView(core, result.agent, selected),
    client_tls: clientTlsView(result.agent),
    signature,
    // Credentials withheld from (or refused for) the selected interface satisfy nothing there.
    security: await inspectSecurity(
      core,
      result.agent,
      result.agent.card?.json ?? result.card,
      !['withhold', 'refuse'].includes(credentialView(core, result.agent, selected).decision),
    ),
    card_warnings: cardWarnings({
      card: result.card,
      cardUrl: result.url,
      trustedOrigins: result.agent.trustedOrigins,
      signature,
      negotiated: selected !== null || !!options.binding,
    }),
    raw_card: redactValue(result.agent.card?.json ?? null),
  };
}

export async function refreshAgent(core: Core, alias: string) {
  const result = await fetchCard(core, await requireAgent(core, alias), true);
  return {
    alias,
    status: result.status,
    url: result.url,
    http_status: result.http_status,
    name: result.card.wire.name,
    fetched_at: result.agent.card?.fetchedAt ?? null,
    validated_at: result.agent.card?.validatedAt ?? null,
    etag: result.agent.card?.etag ?? null,
    last_modified: result.agent.card?.lastModified ?? null,
  };
}

export async function agentCapabilities(core: Core, alias: string, refresh = false): Promise<{ alias: string; card_status: CardCacheStatus } & CapabilityView> {
  const result = await loadCard(core, alias, refresh);
  return { alias, card_status: result.status, ...capabilityView(result.card, result.agent.metadata) };
}
