/**
 * Registered agents as commands and the IPC show them: reading only. `agent list` and `agent show` load this module
 * and not the registry's changes (registry.ts: validation, and the journal, whose row ids load node:crypto).
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { AgentRow } from '../store/rows/agents.js';
import { withoutUserinfo } from '../validation/url.js';

/**
 * Whose agent it is: `shared`, a row of the team's PostgreSQL store every user sees; `personal`, one of this user's
 * config file (`[agents.x]`); `local`, one registered in this user's own SQLite store.
 */
export type AgentScope = 'shared' | 'personal' | 'local';

export interface AgentView {
  alias: string;
  source: AgentRow['source'];
  scope: AgentScope;
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
  /** The client certificate (mutual TLS) files and the passphrase's auth ref name, or null. */
  client_tls: { cert_file: string | null; key_file: string | null; ca_file: string | null; passphrase_ref: string | null } | null;
  /** The JWKS that verifies this agent's card signatures (`--jwks-url` / `--jwks-file`), or null. */
  card_keys: { jwks_url: string | null; jwks_file: string | null } | null;
  card: { cached: boolean; name: string | null; fetched_at: string | null; validated_at: string | null; etag: string | null; last_modified: string | null };
  created_at: string;
  updated_at: string;
}

/** `shared`: the row lives in a store other users share (core.storeSelection, store/selection.ts `isSharedStore`). */
export const scopeOf = (row: Pick<AgentRow, 'source'>, shared: boolean): AgentScope =>
  row.source === 'config_seed' ? 'personal' : shared ? 'shared' : 'local';

export function agentView(row: AgentRow, shared = false): AgentView {
  const name = (row.card?.json as { name?: unknown } | undefined)?.name;
  return {
    alias: row.alias,
    source: row.source,
    scope: scopeOf(row, shared),
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
    client_tls: row.clientTls
      ? {
          cert_file: row.clientTls.certFile ?? null,
          key_file: row.clientTls.keyFile ?? null,
          ca_file: row.clientTls.caFile ?? null,
          passphrase_ref: row.clientTls.passphraseRef ?? null,
        }
      : null,
    card_keys: row.cardKeys ? { jwks_url: row.cardKeys.jwksUrl ?? null, jwks_file: row.cardKeys.jwksFile ?? null } : null,
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

/** Whether `core`'s agents are rows of a store other users share (team mode). */
export const sharedAgents = (core: Core) => core.storeSelection.kind === 'postgres';

export const listAgentViews = async (core: Core): Promise<AgentView[]> =>
  (await (await core.storage()).agents.list()).map((row) => agentView(row, sharedAgents(core)));

export const showAgent = async (core: Core, alias: string): Promise<AgentView> => agentView(await requireAgent(core, alias), sharedAgents(core));

export async function requireAgent(core: Core, alias: string): Promise<AgentRow> {
  const row = await (await core.storage()).agents.get(alias);
  if (!row) throw usageError('unknown_agent', `no agent named "${withoutUserinfo(alias)}"`, 'List agents with: missive agent list');
  return row;
}
