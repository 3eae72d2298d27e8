/**
 * Cards that are not at `<base-url>/.well-known/agent-card.json`: a card URL of a framework that serves one card per
 * agent at its own path (`agent add NAME <card-url>`, `--card-url`), and a card file on disk (`agent inspect FILE`).
 */
import { recordConfirmation } from '../auth/host-trust.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Core } from '../handle.js';
import { isMissiveError, MissiveError, protocolError, usageError } from '../../../shared/errors.js';
import { parseCard, parseCardText, type ParsedCard } from '../a2a/card.js';
import { validateBaseUrl } from '../validation/url.js';
import { validateAlias } from '../validation/alias.js';
import { addAgent, type AddAgentInput, type AgentView } from './registry.js';
import { clientTlsPaths } from './client-tls-paths.js';
import { downloadCard, keepCard, type CardResult } from './card-fetch.js';
import { unstoredAgentRow } from './unstored-row.js';
import { warnIfAuthNeeded } from './auth-needed.js';

/** The largest card file read (the same bound as a fetched card). */
const CARD_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * A URL that names a card rather than an agent: one whose last path segment is a card file name (`…/agent-card.json`,
 * v0.2's `…/agent.json`), or any URL under `/.well-known/` (`/.well-known/agent-card` without `.json`, as some
 * frameworks serve it): missive asks for `<base-url>/.well-known/agent-card.json`, so a base URL never holds it.
 */
export function isCardUrl(text: string): boolean {
  try {
    const path = new URL(text).pathname;
    return /(?:^|[/.-])agent(?:-card)?\.json$/i.test(path) || path.includes('/.well-known/');
  } catch {
    return false;
  }
}

/**
 * The base URL a card names for its agent: the first http(s) interface in the card's order (v0.3: its `url`), else
 * the card URL's origin (a card whose interfaces are all gRPC targets).
 */
export function baseUrlFromCard(card: ParsedCard, cardUrl: string): string {
  const http = card.wire.supportedInterfaces.map((i) => i.url).find((url) => /^https?:\/\//i.test(url));
  return http ?? new URL(cardUrl).origin;
}

/**
 * Registers an agent from its card URL: the card is fetched now (with the agent's credentials only when the card is
 * on the agent's origin), its URL is remembered for every later fetch and refresh, and the base URL is the one given
 * or the card's first HTTP interface. A card that cannot be fetched or read registers nothing.
 */
export async function addAgentFromCard(core: Core, input: Omit<AddAgentInput, 'baseUrl'> & { baseUrl?: string; cardUrl: string }): Promise<AgentView> {
  validateAlias(input.alias);
  const cardUrl = validateBaseUrl(input.cardUrl, 'card URL');
  if (await (await core.storage()).agents.get(input.alias)) {
    throw usageError(
      'duplicate_agent',
      `an agent named "${input.alias}" already exists`,
      `Pick another alias, or remove it first: missive agent remove ${input.alias}`,
    );
  }
  const provisional = unstoredAgentRow({
    alias: input.alias,
    source: 'local',
    baseUrl: input.baseUrl ?? new URL(cardUrl).origin,
    authRefName: input.authRef ?? null,
    trustedOrigins: input.trustedOrigins ?? [],
    clientTls: clientTlsPaths(input.clientTls ?? {}, input.clientTls?.baseDir ?? process.cwd()),
  });
  // Registered on this host: where its credentials go is this host's decision (a shared store's rows are not).
  recordConfirmation(core, provisional);
  // Without a base URL the agent's origin is not known yet: the card is asked for without credentials.
  const fetched = await downloadCard(core, input.baseUrl ? provisional : { ...provisional, authRefName: null }, { only: cardUrl });
  const view = await addAgent(core, { ...input, baseUrl: input.baseUrl ?? baseUrlFromCard(fetched.card, cardUrl) });
  const kept = await keepCard(core, view.alias, fetched);
  await warnIfAuthNeeded(core, kept.agent, fetched.raw ?? kept.card);
  return { ...view, card: { ...view.card, ...cardFields(kept) } };
}

/** The card fields of an agent's view once its fetched card is kept. */
export const cardFields = (result: CardResult) => ({
  cached: true,
  name: result.card.wire.name,
  fetched_at: result.agent.card?.fetchedAt ?? null,
  validated_at: result.agent.card?.validatedAt ?? null,
  etag: result.agent.card?.etag ?? null,
  last_modified: result.agent.card?.lastModified ?? null,
});

/**
 * The card file `target` names, when it names one: a `file://` URL, or a path (relative to `cwd`) to an existing
 * file — unless an agent is registered under that very name. Undefined otherwise.
 */
export async function cardFileOf(core: Core, target: string, cwd: string): Promise<string | undefined> {
  if (/^file:/i.test(target)) return fileURLToPath(target);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return undefined;
  if (!target.includes('/') && !target.includes('\\') && (await (await core.storage()).agents.get(target))) return undefined;
  const path = resolve(cwd, target);
  return existsSync(path) ? path : undefined;
}

/** A card file read as a card result (nothing stored): the agent it describes, named by the file's URL. */
export function readCardFile(path: string): CardResult {
  const url = pathToFileURL(path).href;
  let text: string;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw usageError('not_a_card_file', `${path} is not a regular file`);
    if (stat.size > CARD_FILE_MAX_BYTES) throw protocolError('card_too_large', `the Agent Card file ${path} is larger than ${CARD_FILE_MAX_BYTES} bytes`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isMissiveError(error)) throw error;
    throw new MissiveError('io', 'card_file_unreadable', `cannot read the Agent Card file ${path}: ${(error as Error).message}`);
  }
  const raw = parseCardText(text, path);
  const card = parseCard(raw, path);
  const baseUrl = baseUrlFromCard(card, 'http://card.file.invalid');
  const agent = unstoredAgentRow({
    alias: url,
    baseUrl,
    card: { json: raw, url, etag: null, lastModified: null, fetchedAt: null, validatedAt: null },
    readOnly: true,
  });
  return { agent, card, status: 'fetched', url, http_status: null, requested_version: null };
}
