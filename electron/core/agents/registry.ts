/**
 * Agent registry service: add, remove, rename and set (list and show are views.ts, exported here too). Config-seeded
 * agents are read-only.
 */
import { usageError, configError } from '../../../shared/errors.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Core } from '../handle.js';
import { BINDINGS, bindingName, DEFAULT_BINDING_PREFERENCE, interfaceUrl, type Binding } from '../config/schema.js';
import { validateAlias } from '../validation/alias.js';
import { validateBaseUrl, withoutUserinfo } from '../validation/url.js';
import { parseTrustedOrigin } from '../validation/trusted-origin.js';
import { parseMetadata } from '../validation/metadata.js';
import { storedText } from '../validation/stored-text.js';
import type { AgentRow, CardKeys } from '../store/rows/agents.js';
import type { Repositories } from '../store/storage.js';
import { followConfirmation, recordConfirmation } from '../auth/host-trust.js';
import { clientTlsPaths, type ClientTlsInput } from './client-tls-paths.js';
import { agentView, requireAgent, sharedAgents, type AgentView } from './views.js';

export { agentView, listAgentViews, requireAgent, showAgent, type AgentView } from './views.js';

export interface AddAgentInput {
  alias: string;
  baseUrl: string;
  interfaces?: string[];
  bindingPreference?: string[];
  authRef?: string;
  tags?: string[];
  notes?: string;
  metadata?: string[];
  /** Origins besides the base URL's that may receive this agent's credentials. */
  trustedOrigins?: string[];
  /** Mutual TLS: PEM paths (relative ones against `baseDir`) and the passphrase's auth ref. */
  clientTls?: ClientTlsInput & { baseDir?: string };
  /** Where the card's signing keys come from: a JWKS URL and/or file (relative paths against `baseDir`). */
  cardKeys?: CardKeysInput;
}

export interface CardKeysInput {
  jwksUrl?: string;
  jwksFile?: string;
  baseDir?: string;
}

function parseInterface(text: string): [Binding, string] {
  const eq = text.indexOf('=');
  const binding = bindingName.safeParse(text.slice(0, eq).trim().toLowerCase());
  if (eq <= 0 || !binding.success)
    throw usageError('invalid_interface', `--interface "${text}" must be BINDING=URL with BINDING one of ${BINDINGS.join(', ')}`);
  const url = text.slice(eq + 1).trim();
  if (binding.data !== 'grpc') return [binding.data, validateBaseUrl(url, `--interface ${binding.data} URL`)];
  const result = interfaceUrl.safeParse(url);
  if (!result.success) throw usageError('invalid_url', `--interface grpc URL "${withoutUserinfo(url)}" ${result.error.issues[0]!.message}`);
  return [binding.data, url];
}

/**
 * The binding order the agent's registration sets, or none (the card's order decides). A row holding exactly the
 * default order has none: config agents without `binding_preference` and agents added before the card's order was
 * followed were stored with it.
 */
export function registeredPreference(row: Pick<AgentRow, 'bindingPreference'>): string[] {
  const same = row.bindingPreference.length === DEFAULT_BINDING_PREFERENCE.length && row.bindingPreference.every((b, i) => b === DEFAULT_BINDING_PREFERENCE[i]);
  return same ? [] : row.bindingPreference;
}

/** A base URL that already holds `/.well-known/`: missive appends the card path to it, so it is most likely a mistake. */
export function wellKnownWarning(baseUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(baseUrl).pathname;
  } catch {
    return undefined;
  }
  if (!path.includes('/.well-known/')) return undefined;
  return `the base URL ${withoutUserinfo(baseUrl)} already contains /.well-known/: missive asks for <base-url>/.well-known/agent-card.json. Give the agent's base URL, and the card's own URL with --card-url`;
}

function refuseReadOnly(row: AgentRow, action: string) {
  if (row.readOnly) {
    throw configError(
      'read_only_agent',
      `agent "${row.alias}" comes from the config file and cannot be ${action} here`,
      `Edit [agents.${row.alias}] in ${'the config file'} instead.`,
    );
  }
}

export async function addAgent(core: Core, input: AddAgentInput): Promise<AgentView> {
  const alias = validateAlias(input.alias);
  const baseUrl = validateBaseUrl(input.baseUrl);
  const warning = wellKnownWarning(baseUrl);
  if (warning) core.warn(warning);
  const interfaceUrls = Object.fromEntries((input.interfaces ?? []).map(parseInterface));
  const preference = (input.bindingPreference ?? []).map((b) => {
    const parsed = bindingName.safeParse(b.toLowerCase());
    if (!parsed.success) throw usageError('invalid_binding', `--binding-preference "${b}" must be one of ${BINDINGS.join(', ')}`);
    return parsed.data;
  });
  const metadata = parseMetadata(input.metadata);
  const notes = storedText(input.notes ?? null, '--notes');
  const trustedOrigins = [...new Set((input.trustedOrigins ?? []).map(parseTrustedOrigin))];
  const clientTls = clientTlsPaths(input.clientTls ?? {}, input.clientTls?.baseDir ?? process.cwd());
  const cardKeys = cardKeysOf(input.cardKeys ?? {});
  const storage = await core.storage();
  for (const ref of [input.authRef, clientTls?.passphraseRef]) await requireAuthRef(storage, ref);
  const view = await storage.transaction(async (tx) => {
    if (await tx.agents.get(alias))
      throw usageError('duplicate_agent', `an agent named "${alias}" already exists`, `Pick another alias, or remove it first: missive agent remove ${alias}`);
    await tx.agents.insert({
      alias,
      source: 'local',
      baseUrl,
      interfaceUrls,
      // None given: stored empty, so the card's own order decides.
      bindingPreference: [...new Set(preference)],
      authRefName: input.authRef ?? null,
      tags: input.tags,
      notes,
      metadata,
      trustedOrigins,
      clientTls,
      cardKeys,
    });
    await tx.journal.append({
      type: 'missive.agent.added',
      agentAlias: alias,
      payload: { alias, base_url: baseUrl, interface_urls: interfaceUrls, trusted_origins: trustedOrigins },
    });
    return agentView((await tx.agents.get(alias))!, sharedAgents(core));
  });
  // Added on this host: its origins and auth ref are this host's decision (on a shared store, recorded here only).
  recordConfirmation(core, { alias, baseUrl, trustedOrigins, authRefName: input.authRef ?? null });
  return view;
}

/** Refuses an auth ref name the store does not define (none given: nothing to check). */
async function requireAuthRef(repos: Repositories, ref: string | null | undefined): Promise<void> {
  if (ref && !(await repos.authRefs.get(ref))) {
    throw configError('unknown_auth_ref', `auth ref "${ref}" is not defined`, 'Define it under [auth_refs.<name>] in the config, or with: missive auth add');
  }
}

export async function removeAgent(core: Core, alias: string): Promise<{ alias: string; removed: true }> {
  const storage = await core.storage();
  const row = await requireAgent(core, alias);
  refuseReadOnly(row, 'removed');
  const taskCount = await storage.agents.countTasks(alias);
  if (taskCount > 0) {
    throw usageError(
      'agent_has_tasks',
      `agent "${alias}" has ${taskCount} task(s) in the journal and is kept so their history stays linked`,
      'Rename it instead, or keep it.',
    );
  }
  await storage.transaction(async (tx) => {
    await tx.agents.remove(alias);
    await tx.journal.append({ type: 'missive.agent.removed', payload: { alias } });
  });
  return { alias, removed: true };
}

/**
 * Sets the mutual TLS files of a local agent (a renewed certificate, a new CA), or with `clear` removes them. The
 * paths are checked like `agent add`'s; the files are read on the next call.
 */
export async function setAgentClientTls(
  core: Core,
  alias: string,
  input: { clientTls?: ClientTlsInput & { baseDir?: string }; clear?: boolean },
): Promise<AgentView> {
  const storage = await core.storage();
  const row = await requireAgent(core, alias);
  refuseReadOnly(row, 'changed');
  const given = clientTlsPaths(input.clientTls ?? {}, input.clientTls?.baseDir ?? process.cwd());
  if (input.clear && given) throw usageError('conflicting_options', '--clear-client-tls removes the mutual TLS files: give it alone');
  const clientTls = input.clear ? null : given;
  if (!input.clear && !clientTls)
    throw usageError(
      'nothing_to_set',
      `nothing to set on agent "${alias}"`,
      'Give --client-cert FILE --client-key FILE, --ca-cert FILE, or --clear-client-tls.',
    );
  await requireAuthRef(storage, clientTls?.passphraseRef);
  return storage.transaction(async (tx) => {
    await tx.agents.setClientTls(alias, clientTls);
    await tx.journal.append({ type: 'missive.agent.client_tls_set', agentAlias: alias, payload: { alias, client_tls: clientTls } });
    return agentView((await tx.agents.get(alias))!, sharedAgents(core));
  });
}

/** `--jwks-url` / `--jwks-file` as stored: an http(s) URL (fetched only when a signature needs it), an absolute path. */
function cardKeysOf(input: CardKeysInput): CardKeys | null {
  const keys: CardKeys = {};
  if (input.jwksUrl !== undefined) keys.jwksUrl = validateBaseUrl(input.jwksUrl, '--jwks-url');
  if (input.jwksFile !== undefined) {
    const file = resolve(input.baseDir ?? process.cwd(), input.jwksFile);
    if (!existsSync(file)) throw usageError('jwks_file_missing', `--jwks-file ${file} does not exist`);
    keys.jwksFile = file;
  }
  return keys.jwksUrl || keys.jwksFile ? keys : null;
}

/** Replaces (or, with `null`, removes) where a local agent's card-signing keys come from. */
export async function setAgentCardKeys(core: Core, alias: string, input: CardKeysInput | null): Promise<AgentView> {
  const storage = await core.storage();
  const row = await requireAgent(core, alias);
  refuseReadOnly(row, 'changed');
  const cardKeys = input ? cardKeysOf(input) : null;
  return storage.transaction(async (tx) => {
    await tx.agents.setCardKeys(alias, cardKeys);
    await tx.journal.append({
      type: 'missive.agent.card_keys_set',
      agentAlias: alias,
      payload: { alias, jwks_url: cardKeys?.jwksUrl ?? null, jwks_file: cardKeys?.jwksFile ?? null },
    });
    return agentView((await tx.agents.get(alias))!, sharedAgents(core));
  });
}

/** Points a local agent at another auth ref (`null`: none); the ref must exist. Its secret is resolved at the next call. */
export async function setAgentAuthRef(core: Core, alias: string, authRef: string | null): Promise<AgentView> {
  const storage = await core.storage();
  const row = await requireAgent(core, alias);
  refuseReadOnly(row, 'changed');
  await requireAuthRef(storage, authRef);
  const after = await storage.transaction(async (tx) => {
    await tx.agents.setAuthRef(alias, authRef);
    await tx.journal.append({ type: 'missive.agent.auth_ref_set', agentAlias: alias, payload: { alias, auth_ref: authRef, previous: row.authRefName } });
    return (await tx.agents.get(alias))!;
  });
  // This host's confirmation (if the row still matched it) follows its own change.
  followConfirmation(core, row, after);
  return agentView(after, sharedAgents(core));
}

export async function renameAgentAlias(core: Core, from: string, to: string): Promise<AgentView> {
  const storage = await core.storage();
  const row = await requireAgent(core, from);
  refuseReadOnly(row, 'renamed');
  validateAlias(to, 'new alias');
  const after = await storage.transaction(async (tx) => {
    if (await tx.agents.get(to)) throw usageError('duplicate_agent', `an agent named "${to}" already exists`);
    await tx.agents.rename(from, to);
    await tx.journal.append({ type: 'missive.agent.renamed', agentAlias: to, payload: { from, to } });
    return (await tx.agents.get(to))!;
  });
  followConfirmation(core, row, after);
  return agentView(after, sharedAgents(core));
}
