/** Agent registry service: add, list, show, remove, rename. Config-seeded agents are read-only. */
import { usageError, configError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import { BINDINGS, bindingName, interfaceUrl, type Binding } from '../config/schema.js';
import { validateAlias } from '../validation/alias.js';
import { validateBaseUrl, withoutUserinfo } from '../validation/url.js';
import { parseTrustedOrigin } from '../validation/trusted-origin.js';
import { parseMetadata } from '../validation/metadata.js';
import { countAgentTasks, deleteAgent, getAgent, insertAgent, listAgents, renameAgent, type AgentRow } from '../store/repos/agents.js';
import { getAuthRef } from '../store/repos/auth-refs.js';
import { appendEvent } from '../store/repos/events.js';

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
}

export interface AgentView {
  alias: string;
  source: AgentRow['source'];
  read_only: boolean;
  base_url: string;
  interface_urls: Record<string, string>;
  binding_preference: string[];
  auth_ref: string | null;
  tags: string[];
  notes: string | null;
  metadata: Record<string, unknown>;
  trusted_origins: string[];
  allow_cross_origin_auth: boolean;
  card: { cached: boolean; name: string | null; fetched_at: string | null; validated_at: string | null; etag: string | null; last_modified: string | null };
  created_at: string;
  updated_at: string;
}

export function agentView(row: AgentRow): AgentView {
  const name = (row.card?.json as { name?: unknown } | undefined)?.name;
  return {
    alias: row.alias,
    source: row.source,
    read_only: row.readOnly,
    base_url: row.baseUrl,
    interface_urls: row.interfaceUrls,
    binding_preference: row.bindingPreference,
    auth_ref: row.authRefName,
    tags: row.tags,
    notes: row.notes,
    metadata: row.metadata,
    trusted_origins: row.trustedOrigins,
    allow_cross_origin_auth: row.allowCrossOriginAuth,
    card: {
      cached: row.card !== null,
      name: typeof name === 'string' ? name : null,
      fetched_at: row.card?.fetchedAt ?? null,
      validated_at: row.card?.validatedAt ?? null,
      etag: row.card?.etag ?? null,
      last_modified: row.card?.lastModified ?? null,
    },
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function parseInterface(text: string): [Binding, string] {
  const eq = text.indexOf('=');
  const binding = bindingName.safeParse(text.slice(0, eq).trim().toLowerCase());
  if (eq <= 0 || !binding.success) throw usageError('invalid_interface', `--interface "${text}" must be BINDING=URL with BINDING one of ${BINDINGS.join(', ')}`);
  const url = text.slice(eq + 1).trim();
  if (binding.data !== 'grpc') return [binding.data, validateBaseUrl(url, `--interface ${binding.data} URL`)];
  const result = interfaceUrl.safeParse(url);
  if (!result.success) throw usageError('invalid_url', `--interface grpc URL "${withoutUserinfo(url)}" ${result.error.issues[0]!.message}`);
  return [binding.data, url];
}

export function requireAgent(core: Core, alias: string): AgentRow {
  const row = getAgent(core.store().db, alias);
  if (!row) throw usageError('unknown_agent', `no agent named "${alias}"`, 'List agents with: missive agent list');
  return row;
}

function refuseReadOnly(row: AgentRow, action: string) {
  if (row.readOnly) {
    throw configError('read_only_agent', `agent "${row.alias}" comes from the config file and cannot be ${action} here`, `Edit [agents.${row.alias}] in ${'the config file'} instead.`);
  }
}

export function addAgent(core: Core, input: AddAgentInput): AgentView {
  const alias = validateAlias(input.alias);
  const baseUrl = validateBaseUrl(input.baseUrl);
  const interfaceUrls = Object.fromEntries((input.interfaces ?? []).map(parseInterface));
  const preference = (input.bindingPreference ?? []).map((b) => {
    const parsed = bindingName.safeParse(b.toLowerCase());
    if (!parsed.success) throw usageError('invalid_binding', `--binding-preference "${b}" must be one of ${BINDINGS.join(', ')}`);
    return parsed.data;
  });
  const metadata = parseMetadata(input.metadata);
  const trustedOrigins = [...new Set((input.trustedOrigins ?? []).map(parseTrustedOrigin))];
  const store = core.store();
  if (input.authRef && !getAuthRef(store.db, input.authRef)) {
    throw configError('unknown_auth_ref', `auth ref "${input.authRef}" is not defined`, 'Define it under [auth_refs.<name>] in the config, or with: missive auth add');
  }
  return store.transaction(() => {
    if (getAgent(store.db, alias)) throw usageError('duplicate_agent', `an agent named "${alias}" already exists`, `Pick another alias, or remove it first: missive agent remove ${alias}`);
    insertAgent(store.db, {
      alias,
      source: 'local',
      baseUrl,
      interfaceUrls,
      bindingPreference: preference.length ? [...new Set(preference)] : undefined,
      authRefName: input.authRef ?? null,
      tags: input.tags,
      notes: input.notes ?? null,
      metadata,
      trustedOrigins,
    });
    appendEvent(store.db, { type: 'missive.agent.added', agentAlias: alias, payload: { alias, base_url: baseUrl, interface_urls: interfaceUrls, trusted_origins: trustedOrigins } });
    return agentView(getAgent(store.db, alias)!);
  });
}

export const listAgentViews = (core: Core): AgentView[] => listAgents(core.store().db).map(agentView);

export const showAgent = (core: Core, alias: string): AgentView => agentView(requireAgent(core, alias));

export function removeAgent(core: Core, alias: string): { alias: string; removed: true } {
  const store = core.store();
  const row = requireAgent(core, alias);
  refuseReadOnly(row, 'removed');
  const taskCount = countAgentTasks(store.db, alias);
  if (taskCount > 0) {
    throw usageError('agent_has_tasks', `agent "${alias}" has ${taskCount} task(s) in the journal and is kept so their history stays linked`, 'Rename it instead, or keep it.');
  }
  store.transaction(() => {
    deleteAgent(store.db, alias);
    appendEvent(store.db, { type: 'missive.agent.removed', payload: { alias } });
  });
  return { alias, removed: true };
}

export function renameAgentAlias(core: Core, from: string, to: string): AgentView {
  const store = core.store();
  const row = requireAgent(core, from);
  refuseReadOnly(row, 'renamed');
  validateAlias(to, 'new alias');
  return store.transaction(() => {
    if (getAgent(store.db, to)) throw usageError('duplicate_agent', `an agent named "${to}" already exists`);
    renameAgent(store.db, from, to);
    appendEvent(store.db, { type: 'missive.agent.renamed', agentAlias: to, payload: { from, to } });
    return agentView(getAgent(store.db, to)!);
  });
}
