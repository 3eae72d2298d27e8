/**
 * Signed-card policy for one core: each cached card's signature status (a2a/card-signature.ts), computed once per
 * parsed card, with one JWKS cache per core; and `--require-signed-card` / `[protocol] require_signed_card`, which
 * refuses an unsigned card (`missive::protocol::unsigned_card`) or an invalid one
 * (`missive::protocol::invalid_card_signature`), both exit 76, before anything is sent to the agent.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Core } from '../handle.js';
import { protocolError } from '../../../shared/errors.js';
import { cardUrl, type ParsedCard } from '../a2a/card.js';
import { createJwksCache, verifyCardSignature, type ConfiguredKeys, type JwksCache, type SignatureView } from '../a2a/card-signature.js';
import type { AgentRow } from '../store/rows/agents.js';

const jwksCaches = new WeakMap<Core, JwksCache>();
const verdicts = new WeakMap<ParsedCard, Promise<SignatureView>>();

/** Whether this invocation (flag) or the config refuses unsigned and invalid cards. */
export const requiresSignedCard = (core: Core): boolean => !!core.options.requireSignedCard || !!core.config.protocol.requireSignedCard;

/**
 * The JWKS configured for the agent: `agent add|set --jwks-url/--jwks-file` for a local agent, else `[agents.NAME]`
 * (a relative `jwks_file` there is read from the config file's folder).
 */
export async function configuredKeys(core: Core, alias: string): Promise<ConfiguredKeys> {
  const stored = (await (await core.storage()).agents.get(alias))?.cardKeys;
  if (stored) return { jwksUrl: stored.jwksUrl, jwksFile: stored.jwksFile };
  const section = core.config.agents[alias];
  if (!section) return {};
  const base = core.config.source.path ? dirname(core.config.source.path) : process.cwd();
  const file = section.jwks_file;
  return { jwksUrl: section.jwks_url, jwksFile: file ? (isAbsolute(file) ? file : resolve(base, file)) : undefined };
}

/**
 * Where the agent's card came from (a signature's jku is followed only on that origin): the URL that served the cached
 * card, else the agent's well-known card URL; for an unregistered agent named by its URL, that URL.
 */
async function servedFrom(core: Core, alias: string): Promise<string | undefined> {
  const row = await (await core.storage()).agents.get(alias);
  if (row) return row.card?.url ?? cardUrl(row.baseUrl);
  return /^https?:\/\//i.test(alias) ? alias : undefined;
}

/**
 * The signature status of a card of agent `alias` (`raw` is its JSON as served), kept per parsed card once `verified`
 * or `unsigned`; an `invalid` one is checked again next time (its JWKS may have been unreachable for a moment).
 */
export function signatureOf(core: Core, alias: string, card: ParsedCard, raw: unknown): Promise<SignatureView> {
  let verdict = verdicts.get(card);
  if (!verdict) {
    let cache = jwksCaches.get(core);
    if (!cache) jwksCaches.set(core, (cache = createJwksCache()));
    const jwks = cache;
    // Cached at once (the promise), so concurrent checks of one card verify it once.
    verdict = (async () =>
      verifyCardSignature(card, raw, {
        keys: await configuredKeys(core, alias),
        cache: jwks,
        dispatcher: core.dispatcher,
        timeoutMs: core.timeoutMs,
        cardUrl: await servedFrom(core, alias),
      }))();
    verdicts.set(card, verdict);
    void verdict.then((view) => view.status === 'invalid' && verdicts.delete(card));
  }
  return verdict;
}

/** The signature status of the agent's cached card. */
export const cardSignature = (core: Core, agent: Pick<AgentRow, 'alias' | 'card'>, card: ParsedCard): Promise<SignatureView> =>
  signatureOf(core, agent.alias, card, agent.card?.json ?? null);

const HELP = (alias: string) =>
  `Check it with: missive agent inspect ${alias} --refresh. Configure the agent's keys with missive agent set ${alias} --jwks-url URL (or --jwks-file FILE; jwks_url / jwks_file under [agents.${alias}] in the config), or run without --require-signed-card (and [protocol] require_signed_card).`;

/** Throws when signed cards are required and this one is unsigned or invalid; otherwise returns its status. */
export async function assertTrustedCard(core: Core, agent: Pick<AgentRow, 'alias' | 'card'>, card: ParsedCard): Promise<SignatureView | null> {
  if (!requiresSignedCard(core)) return null;
  return refuseUntrusted(agent.alias, await cardSignature(core, agent, card), 'Agent Card');
}

/** `view` when it is `verified`; else the unsigned_card / invalid_card_signature error for `what` (e.g. "extended Agent Card"). */
export function refuseUntrusted(alias: string, view: SignatureView, what: string): SignatureView {
  if (view.status === 'unsigned') throw protocolError('unsigned_card', `the ${what} of "${alias}" is not signed, and signed cards are required`, HELP(alias));
  if (view.status === 'invalid')
    throw protocolError('invalid_card_signature', `the ${what} signature of "${alias}" does not verify: ${view.reason}`, HELP(alias));
  return view;
}
