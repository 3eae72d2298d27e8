/** Agent Card discovery: cached fetch, conditional refresh (ETag / Last-Modified, 304), inspection and capabilities. */
import type { Core } from '../context.js';
import { protocolError, toMissiveError, type ErrorReport } from '../../../shared/errors.js';
import { assertOk, httpRequest, type HttpResponse } from '../a2a/http.js';
import { cardUrl, legacyCardUrl, parseCard, parseCardText, type ParsedCard } from '../a2a/card.js';
import { negotiateInterface, SUPPORTED_BINDINGS, type SelectedInterface } from '../a2a/interfaces.js';
import type { CardFormat, Dialect } from '../a2a/dialect.js';
import { capabilityView, type CapabilityView } from '../a2a/capabilities.js';
import type { Binding } from '../config/schema.js';
import { getAgent, markCardValidated, storeCard, type AgentRow } from '../store/repos/agents.js';
import { appendEvent } from '../store/repos/events.js';
import { redactUrl, redactValue } from '../security/redact.js';
import { decidePin, pinView, plaintextWarning } from '../auth/origin-pin.js';
import { agentView, requireAgent, type AgentView } from './registry.js';
import { credentialSources, outboundFor, pinInputFor } from './outbound.js';
import { assertTrustedCard, cardSignature } from './card-trust.js';
import type { SignatureView } from '../a2a/card-signature.js';
import { inspectSecurity, type InspectSecurity } from './inspect-security.js';
import { CLIENT_CERTIFICATE_SOURCE, clientTlsDispatcher, clientTlsView, hasClientCertificate, type ClientTlsView } from './client-tls.js';

export type CardCacheStatus = 'cached' | 'fetched' | 'not_modified';

export interface CardResult {
  agent: AgentRow;
  card: ParsedCard;
  status: CardCacheStatus;
  url: string;
  http_status: number | null;
}

const CARD_MAX_BYTES = 4 * 1024 * 1024;

export interface CardRequest {
  headers: Record<string, string>;
  /** Query parameters the card URL carries (an API key `in = "query"`). */
  query?: Record<string, string>;
  secrets: readonly string[];
  /** The URL that served the cached card: asked first, with the validators. */
  knownUrl?: string | null;
  validators?: { etag: string | null; lastModified: string | null };
  timeoutMs?: number;
  /** The agent whose client certificate (mutual TLS) the request presents; the card is on its registered origin. */
  clientTls?: Pick<AgentRow, 'alias' | 'clientTls'>;
}

/**
 * GETs the Agent Card: at `/.well-known/agent-card.json` (A2A 0.3 and later), and when that answers 404 at v0.2's
 * `/.well-known/agent.json`. The URL that served the cached card goes first. Both 404 → a protocol error (exit 76).
 */
export async function requestCard(core: Core, baseUrl: string, req: CardRequest): Promise<{ res: HttpResponse; url: string }> {
  const urls = [...new Set([req.knownUrl, cardUrl(baseUrl), legacyCardUrl(baseUrl)].filter((u): u is string => !!u))];
  const dispatcher = (req.clientTls && (await clientTlsDispatcher(core, req.clientTls))) || core.dispatcher;
  for (const [index, url] of urls.entries()) {
    const headers = { ...req.headers };
    if (url === req.knownUrl && req.validators) {
      if (req.validators.etag) headers['If-None-Match'] = req.validators.etag;
      if (req.validators.lastModified) headers['If-Modified-Since'] = req.validators.lastModified;
    }
    const res = await httpRequest({ url, headers, query: req.query, timeoutMs: req.timeoutMs ?? core.timeoutMs, maxResponseBytes: CARD_MAX_BYTES, dispatcher, secrets: req.secrets });
    if (res.status !== 404 || index === urls.length - 1) {
      if (res.status === 404) {
        throw protocolError(
          'no_agent_card',
          `no Agent Card at ${urls.map(redactUrl).join(' nor ')} (HTTP 404): the agent seems to speak another A2A version, or the base URL is wrong`,
          'A2A 0.3 and 1.0 agents serve /.well-known/agent-card.json, A2A 0.2 agents /.well-known/agent.json, both under the base URL. Check it with: missive agent show <alias>',
        );
      }
      return { res, url };
    }
  }
  throw new Error('unreachable: the card URL list is never empty');
}

/**
 * Fetches the card (conditionally when validators are cached) and stores it. Every outcome is journaled: fetched,
 * not modified, or `a2a.agent_card.failed` with the error report (what agent health reads).
 */
export async function fetchCard(core: Core, agent: AgentRow, conditional: boolean): Promise<CardResult> {
  try {
    return await fetchAndStoreCard(core, agent, conditional);
  } catch (error) {
    const report = toMissiveError(error).toReport();
    const db = core.store().db;
    // An agent removed meanwhile has no row to journal against.
    if (getAgent(db, agent.alias)) appendEvent(db, { type: 'a2a.agent_card.failed', agentAlias: agent.alias, payload: { error: report } });
    throw error;
  }
}

async function fetchAndStoreCard(core: Core, agent: AgentRow, conditional: boolean): Promise<CardResult> {
  const outbound = await outboundFor(core, agent, { Accept: 'application/json' });
  if (outbound.auth.size) {
    const warning = plaintextWarning(agent.baseUrl, `the credentials of "${agent.alias}"`);
    if (warning) core.warn(warning);
  }
  const cached = conditional ? agent.card : null;
  const ask = (headers: Record<string, string>) =>
    requestCard(core, agent.baseUrl, {
      headers,
      query: outbound.query,
      secrets: outbound.secrets,
      knownUrl: agent.card?.url ?? null,
      clientTls: agent,
      validators: cached ? { etag: cached.etag, lastModified: cached.lastModified } : undefined,
    });
  let { res, url } = await ask(outbound.headers);
  // An OAuth2 token the agent refused (401) is renewed once, as on every call.
  const renewed = res.status === 401 && outbound.reauth ? await outbound.reauth() : null;
  if (renewed) ({ res, url } = await ask({ ...outbound.headers, ...renewed.headers }));
  const store = core.store();
  if (res.status === 304 && agent.card) {
    const card = parseCard(agent.card.json);
    markCardValidated(store.db, agent.alias);
    appendEvent(store.db, { type: 'a2a.agent_card.not_modified', agentAlias: agent.alias, payload: { url } }, outbound.secrets);
    return { agent: getAgent(store.db, agent.alias)!, card, status: 'not_modified', url, http_status: 304 };
  }
  assertOk(res, 'Agent Card request', url, core.serviceParameters.version, { alias: agent.alias, auth: { authRef: agent.authRefName, sent: outbound.credentialSources }, secrets: outbound.secrets });
  const raw = parseCardText(res.body, url);
  const card = parseCard(raw, url);
  store.transaction(() => {
    storeCard(store.db, agent.alias, { json: raw, url, etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null });
    appendEvent(
      store.db,
      { type: 'a2a.agent_card.fetched', agentAlias: agent.alias, payload: { url, http_status: res.status, name: card.wire.name, format: card.format, etag: res.headers.etag ?? null } },
      outbound.secrets,
    );
  });
  return { agent: getAgent(store.db, agent.alias)!, card, status: 'fetched', url, http_status: res.status };
}

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
 * The cached card when present (unless `refresh`), else a fetch. When signed cards are required (card-trust.ts), an
 * unsigned or invalid card is refused here, before any command sends anything; `report` (agent inspect) only reads it.
 */
export async function loadCard(core: Core, alias: string, refresh = false, signed: 'enforce' | 'report' = 'enforce'): Promise<CardResult> {
  const agent = requireAgent(core, alias);
  const result: CardResult =
    agent.card && !refresh
      ? { agent, card: parseCachedCard(core, { ...agent, card: agent.card }), status: 'cached', url: agent.card.url ?? cardUrl(agent.baseUrl), http_status: null }
      : await fetchCard(core, agent, refresh);
  if (signed === 'enforce') await assertTrustedCard(core, result.agent, result.card);
  return result;
}

export function selectInterface(core: Core, result: CardResult, required?: Binding): SelectedInterface {
  return negotiateInterface({
    card: result.card,
    baseUrl: result.agent.baseUrl,
    interfaceUrls: result.agent.interfaceUrls,
    preference: result.agent.bindingPreference,
    required,
    forcedVersion: core.options.protocolVersion,
  });
}

export interface InspectView {
  agent: AgentView;
  cache: { status: CardCacheStatus; url: string; http_status: number | null; fetched_at: string | null; validated_at: string | null; etag: string | null; last_modified: string | null };
  card: {
    name: string;
    description: string | null;
    version: string | null;
    provider: unknown;
    protocol_versions: string[];
    capabilities: unknown;
    supported_interfaces: Array<{ protocol_binding: string; url: string; protocol_version: string | null; tenant: string | null }>;
    interfaces_missing: boolean;
    /** The card's generation by shape: `1.0` (supportedInterfaces), `0.3` (url + preferredTransport), `0.2` (url only). */
    format: CardFormat;
    /** The card-level protocolVersion a v0.3 card declares, else null. */
    declared_protocol_version: string | null;
    default_input_modes: string[];
    default_output_modes: string[];
    skills: unknown[];
  };
  /** The interface missive will talk to, or null when it has none in common with the agent. */
  selected_interface: SelectedInterface | null;
  negotiation: {
    ok: boolean;
    /** The A2A dialect missive will speak on the selected interface. */
    dialect: Dialect | null;
    supported_bindings: readonly string[];
    offered_bindings: string[];
    /** Why nothing was selected. */
    error: ErrorReport | null;
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
  raw_card: unknown;
}

/** The credential decision for the selected interface, without resolving any secret. */
function credentialView(core: Core, agent: AgentRow, iface: SelectedInterface | null): InspectView['origin_pinning'] {
  const configured = [...credentialSources(core, agent), ...(hasClientCertificate(agent) ? [CLIENT_CERTIFICATE_SOURCE] : [])];
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
  const result = await loadCard(core, alias, options.refresh, 'report');
  let selected: SelectedInterface | null = null;
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
  return {
    agent: agentView(result.agent),
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
    },
    origin_pinning: credentialView(core, result.agent, selected),
    client_tls: clientTlsView(result.agent),
    signature: await cardSignature(core, result.agent, result.card),
    // Credentials withheld from (or refused for) the selected interface satisfy nothing there.
    security: inspectSecurity(core, result.agent, result.agent.card?.json ?? result.card, !['withhold', 'refuse'].includes(credentialView(core, result.agent, selected).decision)),
    raw_card: redactValue(result.agent.card?.json ?? null),
  };
}

export async function refreshAgent(core: Core, alias: string) {
  const result = await fetchCard(core, requireAgent(core, alias), true);
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
