/** Agent registry rows. Functions of a handle; SQL stays here. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';
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
      card: { json, url: r.agent_card_url, etag: r.agent_card_etag, lastModified: r.agent_card_last_modified, fetchedAt: r.agent_card_fetched_at, validatedAt: r.agent_card_validated_at },
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

export function insertAgent(db: Db, agent: NewAgent): void {
  db.prepare(
    `INSERT INTO agents (alias, source, base_url, interface_urls_json, binding_preference_json, auth_ref_name, tags_json, notes, metadata_json, trusted_origins_json, allow_cross_origin_auth, client_tls_json, card_keys_json, read_only)
     VALUES (@alias, @source, @baseUrl, @interfaceUrls, @bindingPreference, @authRefName, @tags, @notes, @metadata, @trustedOrigins, @allowCrossOriginAuth, @clientTls, @cardKeys, @readOnly)`,
  ).run({ ...agentParams(agent), source: agent.source, readOnly: agent.readOnly ? 1 : 0, cardKeys: agent.cardKeys ? JSON.stringify(agent.cardKeys) : null });
}

/** Updates the registry fields of a config-seeded agent; the cached card is dropped only when base_url changes. */
export function updateSeededAgent(db: Db, agent: NewAgent): void {
  db.prepare(
    `UPDATE agents SET
       agent_card_json = CASE WHEN base_url = @baseUrl THEN agent_card_json ELSE NULL END,
       agent_card_url = CASE WHEN base_url = @baseUrl THEN agent_card_url ELSE NULL END,
       agent_card_etag = CASE WHEN base_url = @baseUrl THEN agent_card_etag ELSE NULL END,
       agent_card_last_modified = CASE WHEN base_url = @baseUrl THEN agent_card_last_modified ELSE NULL END,
       agent_card_fetched_at = CASE WHEN base_url = @baseUrl THEN agent_card_fetched_at ELSE NULL END,
       agent_card_validated_at = CASE WHEN base_url = @baseUrl THEN agent_card_validated_at ELSE NULL END,
       base_url = @baseUrl, interface_urls_json = @interfaceUrls, binding_preference_json = @bindingPreference,
       auth_ref_name = @authRefName, tags_json = @tags, notes = @notes, metadata_json = @metadata,
       trusted_origins_json = @trustedOrigins, allow_cross_origin_auth = @allowCrossOriginAuth,
       client_tls_json = @clientTls, source = 'config_seed', read_only = 1, updated_at = @now
     WHERE alias = @alias`,
  ).run({ ...agentParams(agent), now: nowIso() });
}

export function getAgent(db: Db, alias: string): AgentRow | undefined {
  const raw = db.prepare(`SELECT * FROM agents WHERE alias = ?`).get(alias) as RawAgent | undefined;
  return raw && fromRaw(raw);
}

/** Every column `fromRaw` reads, in the order `listAgents` selects them. */
const AGENT_COLUMNS = [
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
const allColumns: [Exclude<keyof RawAgent, (typeof AGENT_COLUMNS)[number]>] extends [never] ? true : { missing: Exclude<keyof RawAgent, (typeof AGENT_COLUMNS)[number]> } = true;
void allColumns;
const AT = Object.fromEntries(AGENT_COLUMNS.map((column, i) => [column, i])) as Record<keyof RawAgent, number>;
const LIST_AGENTS = `SELECT ${AGENT_COLUMNS.join(', ')} FROM agents ORDER BY alias`;

/** One row of LIST_AGENTS, read as an array, by column name. */
const rawOf = (v: unknown[]): RawAgent => ({
  alias: v[AT.alias] as string,
  source: v[AT.source] as AgentSource,
  base_url: v[AT.base_url] as string,
  interface_urls_json: v[AT.interface_urls_json] as string,
  binding_preference_json: v[AT.binding_preference_json] as string,
  auth_ref_name: v[AT.auth_ref_name] as string | null,
  tags_json: v[AT.tags_json] as string,
  notes: v[AT.notes] as string | null,
  metadata_json: v[AT.metadata_json] as string,
  trusted_origins_json: v[AT.trusted_origins_json] as string,
  allow_cross_origin_auth: v[AT.allow_cross_origin_auth] as number,
  client_tls_json: v[AT.client_tls_json] as string | null,
  card_keys_json: v[AT.card_keys_json] as string | null,
  agent_card_json: v[AT.agent_card_json] as string | null,
  agent_card_url: v[AT.agent_card_url] as string | null,
  agent_card_etag: v[AT.agent_card_etag] as string | null,
  agent_card_last_modified: v[AT.agent_card_last_modified] as string | null,
  agent_card_fetched_at: v[AT.agent_card_fetched_at] as string | null,
  agent_card_validated_at: v[AT.agent_card_validated_at] as string | null,
  read_only: v[AT.read_only] as number,
  created_at: v[AT.created_at] as string,
  updated_at: v[AT.updated_at] as string,
});

/**
 * Every agent, in alias order. The rows are read as arrays (better-sqlite3's raw mode): building an object per row in
 * the addon cost five times reading it (25 against 5 ms for 1,000 agents). LIST_AGENTS is this function's own SQL
 * text, so the cached statement in raw mode serves no other caller (db.ts), and the mode is set on every use.
 */
export function listAgents(db: Db): AgentRow[] {
  return (db.prepare(LIST_AGENTS).raw(true).all() as unknown[][]).map((v) => fromRaw(rawOf(v)));
}

/** Where an agent's row came from, without decoding the row; undefined when there is no such agent. */
export function agentSource(db: Db, alias: string): AgentSource | undefined {
  return (db.prepare(`SELECT source FROM agents WHERE alias = ?`).get(alias) as { source: AgentSource } | undefined)?.source;
}

/** The aliases of the agents seeded from the config, in alias order (the config sync reads these, not every row). */
export function listSeededAliases(db: Db): string[] {
  return (db.prepare(`SELECT alias FROM agents WHERE source = 'config_seed' ORDER BY alias`).all() as Array<{ alias: string }>).map((r) => r.alias);
}

/** The aliases of the agents that authenticate with each auth ref, in alias order (refs no agent uses are absent). */
export function agentAliasesByAuthRef(db: Db): Map<string, string[]> {
  const rows = db.prepare(`SELECT alias, auth_ref_name AS ref FROM agents WHERE auth_ref_name IS NOT NULL ORDER BY alias`).all() as Array<{ alias: string; ref: string }>;
  const byRef = new Map<string, string[]>();
  for (const { alias, ref } of rows) byRef.set(ref, [...(byRef.get(ref) ?? []), alias]);
  return byRef;
}

export function deleteAgent(db: Db, alias: string): boolean {
  return db.prepare(`DELETE FROM agents WHERE alias = ?`).run(alias).changes > 0;
}

export function renameAgent(db: Db, from: string, to: string): void {
  db.prepare(`UPDATE agents SET alias = ?, updated_at = ? WHERE alias = ?`).run(to, nowIso(), from);
}

export function storeCard(db: Db, alias: string, card: { json: unknown; url: string; etag: string | null; lastModified: string | null }): void {
  const now = nowIso();
  db.prepare(
    `UPDATE agents SET agent_card_json = ?, agent_card_url = ?, agent_card_etag = ?, agent_card_last_modified = ?,
       agent_card_fetched_at = ?, agent_card_validated_at = ?, updated_at = ? WHERE alias = ?`,
  ).run(JSON.stringify(card.json), card.url, card.etag, card.lastModified, now, now, now, alias);
}

/** Replaces (or, with null, removes) where an agent's card-signing keys come from. */
export function setCardKeys(db: Db, alias: string, cardKeys: CardKeys | null): void {
  db.prepare(`UPDATE agents SET card_keys_json = ?, updated_at = ? WHERE alias = ?`).run(cardKeys ? JSON.stringify(cardKeys) : null, nowIso(), alias);
}

/** Points an agent at an auth ref, or (null) at none. */
export function setAuthRefName(db: Db, alias: string, authRefName: string | null): void {
  db.prepare(`UPDATE agents SET auth_ref_name = ?, updated_at = ? WHERE alias = ?`).run(authRefName, nowIso(), alias);
}

/** Replaces (or, with null, removes) the mutual TLS settings of an agent. */
export function setClientTls(db: Db, alias: string, clientTls: ClientTlsPaths | null): void {
  db.prepare(`UPDATE agents SET client_tls_json = ?, updated_at = ? WHERE alias = ?`).run(clientTls ? JSON.stringify(clientTls) : null, nowIso(), alias);
}

export function markCardValidated(db: Db, alias: string): void {
  db.prepare(`UPDATE agents SET agent_card_validated_at = ? WHERE alias = ?`).run(nowIso(), alias);
}

/** How many journaled tasks point at this agent (they keep it from being removed). */
export function countAgentTasks(db: Db, alias: string): number {
  return (db.prepare(`SELECT count(*) AS n FROM tasks WHERE agent_alias = ?`).get(alias) as { n: number }).n;
}

/** Turns a config-seeded agent no longer in the config into an ordinary local one. */
export function releaseSeededAgent(db: Db, alias: string): void {
  db.prepare(`UPDATE agents SET source = 'local', read_only = 0, updated_at = ? WHERE alias = ?`).run(nowIso(), alias);
}

/** Points a local agent at a new base URL and drops its cached card. */
export function repointAgent(db: Db, alias: string, baseUrl: string): void {
  db.prepare(
    `UPDATE agents SET base_url = ?, agent_card_json = NULL, agent_card_url = NULL, agent_card_etag = NULL, agent_card_last_modified = NULL,
       agent_card_fetched_at = NULL, agent_card_validated_at = NULL, updated_at = ? WHERE alias = ? AND source = 'local'`,
  ).run(baseUrl, nowIso(), alias);
}
