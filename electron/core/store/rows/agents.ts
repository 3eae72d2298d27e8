/**
 * Agent registry rows as both engines store them (`RawAgent`) and as the services see them (`AgentRow`), with the
 * decoder and the parameters of a write. Neither engine owns this module.
 */
import { DEFAULT_BINDING_PREFERENCE } from '../../config/schema.js';
import { isMissiveError, type ErrorReport } from '../../../../shared/errors.js';
import { storedEnum, storedJson, storedRow, type StoredRow } from '../stored-json.js';

export type AgentSource = 'local' | 'config_seed' | 'discovered';

/**
 * Mutual TLS for one agent: file paths and the passphrase's auth ref name only, never key material or a secret.
 * Certificate and key come together; a CA bundle alone trusts a private CA without presenting a certificate.
 */
export interface ClientTlsPaths {
  /** PEM client certificate (with its chain, if any). */
  certFile?: string;
  /** PEM private key of the certificate, possibly encrypted. */
  keyFile?: string;
  /** PEM CA bundle that replaces the default roots when verifying the agent's server certificate. */
  caFile?: string;
  /** Auth ref (env or keyring) holding the passphrase of an encrypted key. */
  passphraseRef?: string;
}

export interface AgentRow {
  alias: string;
  source: AgentSource;
  baseUrl: string;
  interfaceUrls: Record<string, string>;
  bindingPreference: string[];
  authRefName: string | null;
  tags: string[];
  notes: string | null;
  metadata: Record<string, unknown>;
  /** Origins besides the base URL's that may receive this agent's credentials. */
  trustedOrigins: string[];
  /** Card interfaces on other origins may be called, without credentials. */
  allowCrossOriginAuth: boolean;
  /** The client certificate this agent is reached with (mutual TLS), or null. */
  clientTls: ClientTlsPaths | null;
  /** Where this (local) agent's card-signing keys come from; null: the signature's `jku` or the config. */
  cardKeys: CardKeys | null;
  card: CachedCard | null;
  /**
   * Set when the cached card column cannot be read (changed outside missive: not JSON, nested deeper than
   * MAX_JSON_DEPTH): `card` is then null, as for an agent whose card was never fetched, and this keeps the URL it came
   * from (the next fetch asks there first) and the storage::corrupt_row error that says why.
   */
  unreadableCard?: { url: string | null; error: ErrorReport };
  readOnly: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A JWKS URL and/or file of public keys that verify an agent's card signatures. */
export interface CardKeys {
  jwksUrl?: string;
  jwksFile?: string;
}

export interface CachedCard {
  json: unknown;
  /** The well-known URL that served it (null for cards cached before schema v3). */
  url: string | null;
  etag: string | null;
  lastModified: string | null;
  fetchedAt: string | null;
  validatedAt: string | null;
}

export interface RawAgent {
  alias: string;
  source: AgentSource;
  base_url: string;
  interface_urls_json: string;
  binding_preference_json: string;
  auth_ref_name: string | null;
  tags_json: string;
  notes: string | null;
  metadata_json: string;
  trusted_origins_json: string;
  allow_cross_origin_auth: number;
  client_tls_json: string | null;
  card_keys_json: string | null;
  agent_card_json: string | null;
  agent_card_url: string | null;
  agent_card_etag: string | null;
  agent_card_last_modified: string | null;
  agent_card_fetched_at: string | null;
  agent_card_validated_at: string | null;
  read_only: number;
  created_at: string;
  updated_at: string;
}

export const AGENT_SOURCES: readonly AgentSource[] = ['local', 'config_seed', 'discovered'];

/**
 * A stored agent (SQLite's and PostgreSQL's), every JSON column read through stored-json.ts: a registry column that
 * cannot be read is storage::corrupt_row naming the agent. The cached card is only a cache: one that cannot be read
 * leaves the agent without one (`unreadableCard` says why), and its next use fetches it again.
 */
export function fromRaw(r: RawAgent): AgentRow {
  const at = storedRow('agents', { alias: r.alias });
  return {
    alias: r.alias,
    source: storedEnum(r.source, AGENT_SOURCES, at, 'source'),
    baseUrl: r.base_url,
    interfaceUrls: storedJson(r.interface_urls_json, at, 'interface_urls_json', 'string-record'),
    bindingPreference: storedJson(r.binding_preference_json, at, 'binding_preference_json', 'strings'),
    authRefName: r.auth_ref_name,
    tags: storedJson(r.tags_json, at, 'tags_json', 'strings'),
    notes: r.notes,
    metadata: storedJson(r.metadata_json, at, 'metadata_json', 'object'),
    trustedOrigins: storedJson(r.trusted_origins_json, at, 'trusted_origins_json', 'strings'),
    allowCrossOriginAuth: r.allow_cross_origin_auth === 1,
    clientTls: r.client_tls_json === null ? null : (storedJson(r.client_tls_json, at, 'client_tls_json', 'string-record') as ClientTlsPaths),
    cardKeys: r.card_keys_json === null ? null : (storedJson(r.card_keys_json, at, 'card_keys_json', 'string-record') as CardKeys),
    ...cachedCardOf(r, at),
    readOnly: r.read_only === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The cached card of a stored agent, or none with the reason when its column cannot be read. */
function cachedCardOf(r: RawAgent, at: StoredRow): Pick<AgentRow, 'card' | 'unreadableCard'> {
  if (r.agent_card_json === null) return { card: null };
  try {
    const json = storedJson(r.agent_card_json, at, 'agent_card_json', 'object');
    return {
      card: {
        json,
        url: r.agent_card_url,
        etag: r.agent_card_etag,
        lastModified: r.agent_card_last_modified,
        fetchedAt: r.agent_card_fetched_at,
        validatedAt: r.agent_card_validated_at,
      },
    };
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    return { card: null, unreadableCard: { url: r.agent_card_url, error: error.toReport() } };
  }
}

export interface NewAgent {
  alias: string;
  source: AgentSource;
  baseUrl: string;
  interfaceUrls?: Record<string, string>;
  bindingPreference?: string[];
  authRefName?: string | null;
  tags?: string[];
  notes?: string | null;
  metadata?: Record<string, unknown>;
  trustedOrigins?: string[];
  allowCrossOriginAuth?: boolean;
  clientTls?: ClientTlsPaths | null;
  cardKeys?: CardKeys | null;
  readOnly?: boolean;
}

/** The registry columns shared by insert and seed update, serialised. */
export const agentParams = (agent: NewAgent) => ({
  alias: agent.alias,
  baseUrl: agent.baseUrl,
  interfaceUrls: JSON.stringify(agent.interfaceUrls ?? {}),
  bindingPreference: JSON.stringify(agent.bindingPreference ?? DEFAULT_BINDING_PREFERENCE),
  authRefName: agent.authRefName ?? null,
  tags: JSON.stringify(agent.tags ?? []),
  notes: agent.notes ?? null,
  metadata: JSON.stringify(agent.metadata ?? {}),
  trustedOrigins: JSON.stringify(agent.trustedOrigins ?? []),
  allowCrossOriginAuth: agent.allowCrossOriginAuth ? 1 : 0,
  clientTls: agent.clientTls ? JSON.stringify(agent.clientTls) : null,
});

/** Every column `fromRaw` reads, in the order `listAgents` selects them. */
export const AGENT_COLUMNS = [
  'alias',
  'source',
  'base_url',
  'interface_urls_json',
  'binding_preference_json',
  'auth_ref_name',
  'tags_json',
  'notes',
  'metadata_json',
  'trusted_origins_json',
  'allow_cross_origin_auth',
  'client_tls_json',
  'card_keys_json',
  'agent_card_json',
  'agent_card_url',
  'agent_card_etag',
  'agent_card_last_modified',
  'agent_card_fetched_at',
  'agent_card_validated_at',
  'read_only',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof RawAgent>;
// Every field of RawAgent is selected: otherwise this fails to compile, naming the missing one.
const allColumns: [Exclude<keyof RawAgent, (typeof AGENT_COLUMNS)[number]>] extends [never]
  ? true
  : { missing: Exclude<keyof RawAgent, (typeof AGENT_COLUMNS)[number]> } = true;
void allColumns;
