/**
 * Registration that fetches the card first (the desktop app's Register, like `agent add` with a card URL): the card
 * is asked for at the card URL given, else at the base URL's well-known paths, with the credentials the agent is
 * being registered with (on its own origins only). A card that cannot be fetched or read registers nothing; a card
 * that is read is stored with the agent, so its warnings can be shown at once.
 */
import type { Core } from '../handle.js';
import { configError, usageError } from '../../../shared/errors.js';
import type { AgentRow } from '../store/rows/agents.js';
import { validateAlias } from '../validation/alias.js';
import { validateBaseUrl } from '../validation/url.js';
import { parseTrustedOrigin } from '../validation/trusted-origin.js';
import { recordConfirmation } from '../auth/host-trust.js';
import { addAgent, removeAgent, type AddAgentInput, type AgentView } from './registry.js';
import { addAgentFromCard, cardFields, isCardUrl } from './card-source.js';
import { clientTlsPaths } from './client-tls-paths.js';
import { downloadCard, keepCard } from './card-fetch.js';
import { unstoredAgentRow } from './unstored-row.js';
import { warnIfAuthNeeded } from './auth-needed.js';

export type RegisterInput = Omit<AddAgentInput, 'baseUrl'> & { baseUrl?: string; cardUrl?: string };

/** The agent as it would be registered, for the card request only (never stored). */
function provisionalRow(input: RegisterInput, baseUrl: string): AgentRow {
  return unstoredAgentRow({
    alias: input.alias,
    source: 'local',
    baseUrl,
    authRefName: input.authRef ?? null,
    trustedOrigins: [...new Set((input.trustedOrigins ?? []).map(parseTrustedOrigin))],
    clientTls: clientTlsPaths(input.clientTls ?? {}, input.clientTls?.baseDir ?? process.cwd()),
  });
}

export async function registerAgentWithCard(core: Core, input: RegisterInput): Promise<AgentView> {
  if (input.cardUrl) return addAgentFromCard(core, { ...input, cardUrl: input.cardUrl });
  // A card's URL in place of the base URL (`…/agent-card.json`, anything under /.well-known/), as `agent add` takes it.
  if (input.baseUrl && isCardUrl(input.baseUrl)) return addAgentFromCard(core, { ...input, baseUrl: undefined, cardUrl: input.baseUrl });
  if (!input.baseUrl) throw usageError('missing_base_url', `agent ${input.alias} needs its base URL or its card URL`);
  validateAlias(input.alias);
  const baseUrl = validateBaseUrl(input.baseUrl);
  const storage = await core.storage();
  if (await storage.agents.get(input.alias)) {
    throw usageError(
      'duplicate_agent',
      `an agent named "${input.alias}" already exists`,
      `Pick another alias, or remove it first: missive agent remove ${input.alias}`,
    );
  }
  for (const ref of [input.authRef, input.clientTls?.passphraseRef]) {
    if (ref && !(await storage.authRefs.get(ref)))
      throw configError('unknown_auth_ref', `auth ref "${ref}" is not defined`, 'Create it first (Settings → Auth refs, or: missive auth add)');
  }
  const provisional = provisionalRow(input, baseUrl);
  // Registered on this host: where its credentials go is this host's decision (a shared store's rows are not).
  recordConfirmation(core, provisional);
  // Fetched before anything is stored: a card that cannot be fetched or read registers nothing.
  const fetched = await downloadCard(core, provisional);
  const view = await addAgent(core, { ...input, baseUrl });
  try {
    const kept = await keepCard(core, view.alias, fetched);
    await warnIfAuthNeeded(core, kept.agent, fetched.raw ?? kept.card);
    return { ...view, card: { ...view.card, ...cardFields(kept) } };
  } catch (error) {
    await removeAgent(core, view.alias);
    throw error;
  }
}
