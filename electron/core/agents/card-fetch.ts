/**
 * Fetching the Agent Card: where (the URL that served the cached card, a card URL given at registration, the
 * well-known paths), with which A2A-Version (the highest missive speaks, then 0.3 when the agent refuses it: a server
 * may serve both versions on one URL and negotiate its card by that header), with whose credentials (only on the
 * agent's own origins), and storing what came back with its validators (ETag / Last-Modified, 304).
 */
import type { Core } from '../handle.js';
import { protocolError, toMissiveError } from '../../../shared/errors.js';
import { assertOk, httpRequest, isVersionNotSupported, tryJson, type HttpResponse } from '../a2a/http.js';
import { cardUrl, legacyCardUrl, parseCard, parseCardText, type ParsedCard } from '../a2a/card.js';
import type { AgentRow } from '../store/rows/agents.js';
import { redactUrl } from '../security/redact.js';
import { decidePin, plaintextWarning } from '../auth/origin-pin.js';
import { outboundFor, pinInputFor, withoutCredentials, type Outbound } from './outbound.js';
import { clientTlsDispatcher } from './client-tls.js';

export type CardCacheStatus = 'cached' | 'fetched' | 'not_modified';

export interface CardResult {
  agent: AgentRow;
  card: ParsedCard;
  status: CardCacheStatus;
  url: string;
  http_status: number | null;
  /** The A2A-Version the card was asked for with, when it was fetched now. */
  requested_version?: string | null;
}

const CARD_MAX_BYTES = 4 * 1024 * 1024;
/** The version asked for when the agent refuses the one missive speaks best. */
const FALLBACK_VERSION = '0.3';

export interface CardRequest {
  headers: Record<string, string>;
  /** Whether the credentials (auth headers, `query`) may go to this card URL; when not, `bareHeaders` go alone. */
  credentialsFor?: (url: string) => boolean;
  bareHeaders?: Record<string, string>;
  /** Query parameters the card URL carries (an API key `in = "query"`). */
  query?: Record<string, string>;
  secrets: readonly string[];
  /** The URL that served the cached card: asked first, with the validators. */
  knownUrl?: string | null;
  /** Ask this URL only (a card URL given at registration), not the well-known paths. */
  only?: boolean;
  validators?: { etag: string | null; lastModified: string | null };
  timeoutMs?: number;
  /** The agent whose client certificate (mutual TLS) the request presents; the card is on its registered origin. */
  clientTls?: Pick<AgentRow, 'alias' | 'clientTls'>;
  /** Ask again with A2A-Version 0.3 when the agent refuses the version asked for (not when the user forced one). */
  versionFallback?: boolean;
}

/** A refusal of the A2A-Version asked for (google.rpc ErrorInfo, JSON-RPC -32009, …). */
const refusesVersion = (res: HttpResponse) => res.status >= 400 && res.status !== 401 && res.status !== 403 && isVersionNotSupported(tryJson(res.body));

/**
 * GETs the Agent Card: at the known URL, then `/.well-known/agent-card.json` (A2A 0.3 and later), and when that
 * answers 404 at v0.2's `/.well-known/agent.json`. Every 404 → a protocol error (exit 76).
 */
export async function requestCard(core: Core, baseUrl: string, req: CardRequest): Promise<{ res: HttpResponse; url: string; version: string | null }> {
  const urls =
    req.only && req.knownUrl ? [req.knownUrl] : [...new Set([req.knownUrl, cardUrl(baseUrl), legacyCardUrl(baseUrl)].filter((u): u is string => !!u))];
  const tlsDispatcher = (req.clientTls && (await clientTlsDispatcher(core, req.clientTls))) || core.dispatcher;
  for (const [index, url] of urls.entries()) {
    const withCredentials = req.credentialsFor?.(url) ?? true;
    const headers = { ...(withCredentials ? req.headers : (req.bareHeaders ?? {})) };
    // The client certificate is a credential too: it is presented on the agent's own origins only.
    const dispatcher = withCredentials ? tlsDispatcher : core.dispatcher;
    if (url === req.knownUrl && req.validators) {
      if (req.validators.etag) headers['If-None-Match'] = req.validators.etag;
      if (req.validators.lastModified) headers['If-Modified-Since'] = req.validators.lastModified;
    }
    const ask = (version: string | undefined) =>
      httpRequest({
        url,
        headers: version ? { ...headers, 'A2A-Version': version } : headers,
        query: withCredentials ? req.query : undefined,
        timeoutMs: req.timeoutMs ?? core.timeoutMs,
        maxResponseBytes: CARD_MAX_BYTES,
        dispatcher,
        secrets: req.secrets,
      });
    let version: string | null = headers['A2A-Version'] ?? null;
    let res = await ask(undefined);
    if (req.versionFallback && version !== FALLBACK_VERSION && refusesVersion(res)) {
      version = FALLBACK_VERSION;
      res = await ask(version);
    }
    if (res.status !== 404 || index === urls.length - 1) {
      if (res.status === 404) {
        throw protocolError(
          'no_agent_card',
          `no Agent Card at ${urls.map(redactUrl).join(' nor ')} (HTTP 404): ${req.only ? 'check the card URL' : 'the agent seems to speak another A2A version, or the base URL is wrong'}`,
          req.only
            ? 'Give the URL the agent serves its card at (with --card-url, or in place of the base URL), or its base URL.'
            : 'A2A 0.3 and 1.0 agents serve /.well-known/agent-card.json, A2A 0.2 agents /.well-known/agent.json, both under the base URL. Check it with: missive agent show <alias>; a card served elsewhere is named with --card-url URL (agent add), or in place of the base URL.',
        );
      }
      return { res, url, version };
    }
  }
  throw new Error('unreachable: the card URL list is never empty');
}

/** The agent's credentials go to a card URL on one of its own origins only; elsewhere the card is asked for without them. */
export function cardCredentialsFor(core: Core, agent: AgentRow, outbound: Outbound): (url: string) => boolean {
  return (url) => {
    if (!outbound.credentialSources.length) return true;
    try {
      return decidePin(pinInputFor(core, agent, url, outbound.credentialSources)).outcome === 'sent';
    } catch {
      return false;
    }
  };
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
    const storage = await core.storage();
    // An agent removed meanwhile has no row to journal against.
    if (await storage.agents.get(agent.alias))
      await storage.journal.append({ type: 'a2a.agent_card.failed', agentAlias: agent.alias, payload: { error: report } });
    throw error;
  }
}

/** Fetches the card of an agent (row or about to be one) from `only` or its usual URLs, checks and parses it; stores nothing. */
export async function downloadCard(core: Core, agent: AgentRow, options: { conditional?: boolean; only?: string } = {}) {
  const outbound = await outboundFor(core, agent, { Accept: 'application/json' });
  const credentialsFor = cardCredentialsFor(core, agent, outbound);
  // The URL that served the cached card, also when the store's copy could not be read (agents.ts: unreadableCard).
  const knownUrl = agent.card?.url ?? agent.unreadableCard?.url ?? null;
  const first = options.only ?? knownUrl ?? cardUrl(agent.baseUrl);
  if (outbound.auth.size && credentialsFor(first)) {
    const warning = plaintextWarning(first, `the credentials of "${agent.alias}"`);
    if (warning) core.warn(warning);
  }
  const cached = options.conditional ? agent.card : null;
  const ask = (headers: Record<string, string>) =>
    requestCard(core, agent.baseUrl, {
      headers,
      credentialsFor,
      bareHeaders: withoutCredentials(outbound).headers,
      query: outbound.query,
      secrets: outbound.secrets,
      knownUrl: options.only ?? knownUrl,
      only: options.only !== undefined,
      clientTls: agent,
      validators: cached ? { etag: cached.etag, lastModified: cached.lastModified } : undefined,
      versionFallback: !core.options.protocolVersion,
    });
  let { res, url, version } = await ask(outbound.headers);
  // An OAuth2 token the agent refused (401) is renewed once, as on every call.
  const renewed = res.status === 401 && outbound.reauth ? await outbound.reauth() : null;
  if (renewed) ({ res, url, version } = await ask({ ...outbound.headers, ...renewed.headers }));
  if (res.status === 304 && agent.card) return { outbound, res, url, version, raw: null, card: parseCard(agent.card.json) };
  assertOk(res, 'Agent Card request', url, version ?? core.serviceParameters.version, {
    alias: agent.alias,
    auth: { authRef: agent.authRefName, sent: outbound.credentialSources },
    secrets: outbound.secrets,
  });
  const raw = parseCardText(res.body, redactUrl(url));
  return { outbound, res, url, version, raw, card: parseCard(raw, redactUrl(url)) };
}

/** Stores a fetched card on the agent's row and journals it. */
export async function keepCard(core: Core, alias: string, fetched: Awaited<ReturnType<typeof downloadCard>>): Promise<CardResult> {
  const { res, url, version, raw, card, outbound } = fetched;
  const storage = await core.storage();
  return storage.transaction(async (tx) => {
    if (raw === null) {
      await tx.agents.markCardValidated(alias);
      await tx.journal.append({ type: 'a2a.agent_card.not_modified', agentAlias: alias, payload: { url } }, outbound.secrets);
      return { agent: (await tx.agents.get(alias))!, card, status: 'not_modified', url, http_status: 304, requested_version: version };
    }
    await tx.agents.storeCard(alias, { json: raw, url, etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null });
    await tx.journal.append(
      {
        type: 'a2a.agent_card.fetched',
        agentAlias: alias,
        payload: { url, http_status: res.status, name: card.wire.name, format: card.format, etag: res.headers.etag ?? null, a2a_version: version },
      },
      outbound.secrets,
    );
    return { agent: (await tx.agents.get(alias))!, card, status: 'fetched', url, http_status: res.status, requested_version: version };
  });
}

const fetchAndStoreCard = async (core: Core, agent: AgentRow, conditional: boolean): Promise<CardResult> =>
  keepCard(core, agent.alias, await downloadCard(core, agent, { conditional }));
