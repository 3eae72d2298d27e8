/** Agent Card discovery: cached fetch, conditional refresh (ETag / Last-Modified, 304), inspection and capabilities. */
import type { Core } from '../context.js';
import { assertOk, httpRequest } from '../a2a/http.js';
import { cardUrl, parseCard, parseCardText, type ParsedCard } from '../a2a/card.js';
import { negotiateInterface, type SelectedInterface } from '../a2a/interfaces.js';
import { capabilityView, type CapabilityView } from '../a2a/capabilities.js';
import type { Binding } from '../config/schema.js';
import { getAgent, markCardValidated, storeCard, type AgentRow } from '../store/repos/agents.js';
import { appendEvent } from '../store/repos/events.js';
import { redactValue } from '../security/redact.js';
import { agentView, requireAgent, type AgentView } from './registry.js';
import { outboundFor } from './outbound.js';

export type CardCacheStatus = 'cached' | 'fetched' | 'not_modified';

export interface CardResult {
  agent: AgentRow;
  card: ParsedCard;
  status: CardCacheStatus;
  url: string;
  http_status: number | null;
}

const CARD_MAX_BYTES = 4 * 1024 * 1024;

/** Fetches the card (conditionally when validators are cached) and stores it. */
export async function fetchCard(core: Core, agent: AgentRow, conditional: boolean): Promise<CardResult> {
  const url = cardUrl(agent.baseUrl);
  const outbound = await outboundFor(core, agent, { Accept: 'application/json' });
  const headers = { ...outbound.headers };
  if (conditional && agent.card) {
    if (agent.card.etag) headers['If-None-Match'] = agent.card.etag;
    if (agent.card.lastModified) headers['If-Modified-Since'] = agent.card.lastModified;
  }
  const res = await httpRequest({
    url,
    headers,
    timeoutMs: core.timeoutMs,
    maxResponseBytes: CARD_MAX_BYTES,
    dispatcher: core.dispatcher,
    secrets: outbound.secrets,
  });
  const store = core.store();
  if (res.status === 304 && agent.card) {
    const card = parseCard(agent.card.json);
    markCardValidated(store.db, agent.alias);
    appendEvent(store.db, { type: 'a2a.agent_card.not_modified', agentAlias: agent.alias, payload: { url } }, outbound.secrets);
    return { agent: getAgent(store.db, agent.alias)!, card, status: 'not_modified', url, http_status: 304 };
  }
  assertOk(res, 'Agent Card request', url, core.serviceParameters.version);
  const raw = parseCardText(res.body, url);
  const card = parseCard(raw, url);
  store.transaction(() => {
    storeCard(store.db, agent.alias, { json: raw, etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null });
    appendEvent(
      store.db,
      { type: 'a2a.agent_card.fetched', agentAlias: agent.alias, payload: { url, http_status: res.status, name: card.wire.name, etag: res.headers.etag ?? null } },
      outbound.secrets,
    );
  });
  return { agent: getAgent(store.db, agent.alias)!, card, status: 'fetched', url, http_status: res.status };
}

/** The cached card when present (unless `refresh`), else a fetch. */
export async function loadCard(core: Core, alias: string, refresh = false): Promise<CardResult> {
  const agent = requireAgent(core, alias);
  if (agent.card && !refresh) {
    return { agent, card: parseCard(agent.card.json, `the cached card of "${alias}"`), status: 'cached', url: cardUrl(agent.baseUrl), http_status: null };
  }
  return fetchCard(core, agent, refresh);
}

export function selectInterface(result: CardResult, required?: Binding): SelectedInterface {
  return negotiateInterface({
    card: result.card,
    baseUrl: result.agent.baseUrl,
    interfaceUrls: result.agent.interfaceUrls,
    preference: result.agent.bindingPreference,
    required,
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
    default_input_modes: string[];
    default_output_modes: string[];
    skills: unknown[];
  };
  selected_interface: SelectedInterface;
  raw_card: unknown;
}

export async function inspectAgent(core: Core, alias: string, options: { refresh?: boolean; binding?: Binding } = {}): Promise<InspectView> {
  const result = await loadCard(core, alias, options.refresh);
  const selected = selectInterface(result, options.binding);
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
      default_input_modes: wire.defaultInputModes ?? [],
      default_output_modes: wire.defaultOutputModes ?? [],
      skills: wire.skills ?? [],
    },
    selected_interface: selected,
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
