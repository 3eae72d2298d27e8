/**
 * The card exactly as the agent serves it, read or not: what an operator needs to see when missive refuses a card
 * (`agent inspect` fails with invalid_card): every reason it is refused and the raw JSON (or the text, when it is no
 * JSON). Nothing is stored; secrets in the card are redacted by key like every output.
 */
import type { Core } from '../handle.js';
import { isMissiveError, usageError } from '../../../shared/errors.js';
import { assertOk } from '../a2a/http.js';
import { parseCardText } from '../a2a/card.js';
import { redactUrl, redactValue } from '../security/redact.js';
import { validateBaseUrl } from '../validation/url.js';
import type { AgentRow } from '../store/rows/agents.js';
import { requireAgent } from './registry.js';
import { isCardUrl } from './card-source.js';
import { cardCredentialsFor, requestCard } from './card-fetch.js';
import { outboundFor, withoutCredentials } from './outbound.js';
import { refusedCardIssues } from './card-warnings.js';
import { unstoredAgentRow } from './unstored-row.js';

/** The most of a card that is not JSON shown as text. */
const RAW_TEXT_MAX = 64 * 1024;

export interface RawCardView {
  url: string;
  http_status: number;
  /** The parsed JSON, or the body as text (cut at 64 KiB) when it is not JSON (`is_json` false). */
  raw_card: unknown;
  is_json: boolean;
  /** Every reason missive refuses the card; empty when it reads it. */
  issues: string[];
}

/** An unregistered agent (a URL typed in Register), asked for its card without credentials. */
function unregistered(url: string): AgentRow {
  const checked = validateBaseUrl(url, 'URL');
  return unstoredAgentRow({ alias: redactUrl(checked), baseUrl: isCardUrl(checked) ? new URL(checked).origin : checked, readOnly: true });
}

export async function fetchRawCard(core: Core, target: { alias?: string; url?: string }): Promise<RawCardView> {
  if (!target.alias === !target.url) throw usageError('invalid_input', 'give an agent alias or a URL');
  const agent = target.alias ? await requireAgent(core, target.alias) : unregistered(target.url!);
  const only = target.url && isCardUrl(target.url) ? validateBaseUrl(target.url, 'card URL') : undefined;
  const outbound = await outboundFor(core, agent, { Accept: 'application/json' });
  const { res, url, version } = await requestCard(core, agent.baseUrl, {
    headers: outbound.headers,
    credentialsFor: cardCredentialsFor(core, agent, outbound),
    bareHeaders: withoutCredentials(outbound).headers,
    query: outbound.query,
    secrets: outbound.secrets,
    knownUrl: only ?? agent.card?.url ?? null,
    only: only !== undefined,
    clientTls: agent,
    versionFallback: !core.options.protocolVersion,
  });
  assertOk(res, 'Agent Card request', url, version ?? core.serviceParameters.version, {
    alias: agent.alias,
    auth: { authRef: agent.authRefName, sent: outbound.credentialSources },
    secrets: outbound.secrets,
  });
  const where = redactUrl(url);
  try {
    const raw = parseCardText(res.body, where);
    return { url: where, http_status: res.status, raw_card: redactValue(raw), is_json: true, issues: refusedCardIssues(raw, where) };
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    return { url: where, http_status: res.status, raw_card: res.body.slice(0, RAW_TEXT_MAX), is_json: false, issues: [error.message] };
  }
}
