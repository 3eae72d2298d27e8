/**
 * Curl-like use: an http(s) URL in place of an agent alias (`missive send <url> …`, `stream`, `conformance`,
 * `agent inspect`). The URL becomes a `discovered` agent named by the URL itself, so the journal records the URL as
 * the agent — without the credentials the URL may hold (`user:password`, query values), which are used for this
 * invocation only (url-credentials.ts). A card URL (`…/agent-card.json`, anything under `/.well-known/`) works too: the
 * base URL comes from the card. `send` and `stream` keep the agent only when their call succeeds (withAgentTarget).
 */
import type { Core } from '../handle.js';
import { usageError } from '../../../shared/errors.js';
import { REDACTED } from '../security/redact.js';
import { withoutUserinfo } from '../validation/url.js';
import { httpUrl } from '../config/schema.js';
import type { AgentRow } from '../store/rows/agents.js';
import type { Storage } from '../store/storage.js';
import { baseUrlFromCard, isCardUrl } from './card-source.js';
import { downloadCard, keepCard } from './card-fetch.js';
import { holdUrlCredentials } from './url-credentials.js';
import { unstoredAgentRow } from './unstored-row.js';
import { credentialOrigins, recordConfirmation } from '../auth/host-trust.js';
import { originOf } from '../../../shared/origins.js';

/** Aliases never hold `:`, so anything starting with a scheme is a URL. */
export const isUrlTarget = (target: string): boolean => /^https?:\/\//i.test(target.trim());

interface UrlParts {
  /** What the journal records: the URL without userinfo or fragment, query values redacted. */
  alias: string;
  /** Where the agent is: the URL without userinfo, query or fragment. */
  address: string;
  username: string;
  password: string;
  query: Array<[string, string]>;
}

function splitUrl(target: string): UrlParts {
  const text = target.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError('invalid_url', `"${withoutUserinfo(text)}" is not an absolute URL`);
  }
  const withoutFragment = text.replace(/#.*$/s, '');
  const noUser = withoutFragment.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1');
  const queryAt = noUser.indexOf('?');
  const address = queryAt < 0 ? noUser : noUser.slice(0, queryAt);
  const query = [...url.searchParams.entries()];
  const redactedQuery = query.map(([name]) => `${encodeURIComponent(name)}=${REDACTED}`).join('&');
  const checked = httpUrl.safeParse(address);
  if (!checked.success) throw usageError('invalid_url', `"${address}" ${checked.error.issues[0]!.message}`);
  return {
    alias: query.length ? `${address}?${redactedQuery}` : address,
    address,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    query,
  };
}

/**
 * The alias to call for `target`: the target itself when it is not a URL; else the discovered agent for the URL,
 * created (and, for a card URL, its card fetched) the first time. Its credentials are held for this invocation.
 */
export async function resolveAgentTarget(core: Core, target: string): Promise<string> {
  return (await resolveTarget(core, target)).alias;
}

/**
 * Runs `use` with the alias to call for `target` (resolveAgentTarget). An agent the URL discovers now stays
 * registered only when `use` succeeds: a failed call (no card there, nothing listening, the agent's error) leaves
 * `agent list` as it was; what the call journaled stays, as history. An agent that got a task meanwhile is kept.
 */
export async function withAgentTarget<T>(core: Core, target: string, use: (alias: string) => Promise<T>): Promise<T> {
  const { alias, discovered } = await resolveTarget(core, target);
  try {
    return await use(alias);
  } catch (error) {
    if (discovered) await forgetDiscovered(core, alias).catch(() => undefined);
    throw error;
  }
}

async function forgetDiscovered(core: Core, alias: string): Promise<void> {
  await (
    await core.storage()
  ).transaction(async (tx) => {
    const row = await tx.agents.get(alias);
    if (row?.source !== 'discovered' || (await tx.agents.countTasks(alias)) > 0) return;
    await tx.agents.remove(alias);
    await tx.journal.append({ type: 'missive.agent.removed', payload: { alias, reason: 'discovering_call_failed' } });
  });
}

async function resolveTarget(core: Core, target: string): Promise<{ alias: string; discovered: boolean }> {
  if (!isUrlTarget(target)) return { alias: target, discovered: false };
  const parts = splitUrl(target);
  holdUrlCredentials(core, parts.alias, { username: parts.username, password: parts.password, query: parts.query });
  const storage = await core.storage();
  const existing = await storage.agents.get(parts.alias);
  if (existing) {
    // A URL typed here is this host's decision, the row under its name is not: confirmed only while it still points
    // where the URL does (on a shared store a changed row is then refused before any credential goes out).
    if (credentialOrigins(existing).every((o) => o === originOf(parts.address)) && existing.authRefName === null) recordConfirmation(core, existing);
    return { alias: parts.alias, discovered: false };
  }
  const row = discoveredRow(parts.alias, parts.address);
  recordConfirmation(core, row);
  if (!isCardUrl(parts.address)) {
    await insertDiscovered(storage, row, parts.address);
    return { alias: parts.alias, discovered: true };
  }
  const fetched = await downloadCard(core, row, { only: parts.address });
  const discovered = { ...row, baseUrl: baseUrlFromCard(fetched.card, parts.address) };
  recordConfirmation(core, discovered);
  await insertDiscovered(storage, discovered, parts.address);
  await keepCard(core, parts.alias, fetched);
  return { alias: parts.alias, discovered: true };
}

async function insertDiscovered(storage: Storage, row: AgentRow, url: string): Promise<void> {
  await storage.transaction(async (tx) => {
    await tx.agents.insert({ alias: row.alias, source: 'discovered', baseUrl: row.baseUrl, bindingPreference: [] });
    await tx.journal.append({ type: 'missive.agent.discovered', agentAlias: row.alias, payload: { alias: row.alias, base_url: row.baseUrl, from: url } });
  });
}

const discoveredRow = (alias: string, baseUrl: string): AgentRow => unstoredAgentRow({ alias, baseUrl });
