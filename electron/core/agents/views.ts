/**
 * Registered agents as commands and the IPC show them: reading only. `agent list` and `agent show` load this module
 * and not the registry's changes (registry.ts: validation, and the journal, whose row ids load node:crypto).
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { AgentRow } from '../store/rows/agents.js';
import { withoutUserinfo } from '../validation/url.js';

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
  /** The client certificate (mutual TLS) files and the passphrase's auth ref name, or null. */
  client_tls: { cert_file: string | null; key_file: string | null; ca_file: string | null; passphrase_ref: string | null } | null;
  /** The JWKS that verifies this agent's card signatures (`--jwks-url` / `--jwks-file`), or null. */
  card_keys: { jwks_url: string | null; jwks_file: string | null } | null;
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

export const listAgentViews = async (core: Core): Promise<AgentView[]> => (await (await core.storage()).agents.list()).map(agentView);

export const showAgent = async (core: Core, alias: string): Promise<AgentView> => agentView(await requireAgent(core, alias));

export async function requireAgent(core: Core, alias: string): Promise<AgentRow> {
  const row = await (await core.storage()).agents.get(alias);
  if (!row) throw usageError('unknown_agent', `no agent named "${withoutUserinfo(alias)}"`, 'List agents with: missive agent list');
  return row;
}
