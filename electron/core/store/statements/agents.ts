/** The agent registry's statements, written once for both engines (sql.ts), with the parameters of each write. */
import { agentParams, AGENT_COLUMNS, type CardKeys, type ClientTlsPaths, type NewAgent } from '../rows/agents.js';
import { sql } from '../sql.js';
import { COUNT } from './common.js';

const json = (value: object | null | undefined) => (value ? JSON.stringify(value) : null);

export const AGENTS = {
  get: sql`SELECT * FROM agents WHERE alias = ?`,
  list: sql`SELECT ${AGENT_COLUMNS.join(', ')} FROM agents ORDER BY alias`,
  source: sql`SELECT source FROM agents WHERE alias = ?`,
  seededAliases: sql`SELECT alias FROM agents WHERE source = 'config_seed' ORDER BY alias`,
  aliasesByAuthRef: sql`SELECT alias, auth_ref_name AS ref FROM agents WHERE auth_ref_name IS NOT NULL ORDER BY alias`,
  insert: sql`INSERT INTO agents (alias, source, base_url, interface_urls_json, binding_preference_json, auth_ref_name, tags_json, notes, metadata_json, trusted_origins_json, allow_cross_origin_auth, client_tls_json, card_keys_json, read_only)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  /** The cached card is dropped only when base_url changes. */
  updateSeeded: sql`UPDATE agents SET
       agent_card_json = CASE WHEN base_url = ? THEN agent_card_json ELSE NULL END,
       agent_card_url = CASE WHEN base_url = ? THEN agent_card_url ELSE NULL END,
       agent_card_etag = CASE WHEN base_url = ? THEN agent_card_etag ELSE NULL END,
       agent_card_last_modified = CASE WHEN base_url = ? THEN agent_card_last_modified ELSE NULL END,
       agent_card_fetched_at = CASE WHEN base_url = ? THEN agent_card_fetched_at ELSE NULL END,
       agent_card_validated_at = CASE WHEN base_url = ? THEN agent_card_validated_at ELSE NULL END,
       base_url = ?, interface_urls_json = ?, binding_preference_json = ?,
       auth_ref_name = ?, tags_json = ?, notes = ?, metadata_json = ?,
       trusted_origins_json = ?, allow_cross_origin_auth = ?,
       client_tls_json = ?, source = 'config_seed', read_only = 1, updated_at = ?
     WHERE alias = ?`,
  releaseSeeded: sql`UPDATE agents SET source = 'local', read_only = 0, updated_at = ? WHERE alias = ?`,
  remove: sql`DELETE FROM agents WHERE alias = ?`,
  rename: sql`UPDATE agents SET alias = ?, updated_at = ? WHERE alias = ?`,
  setAuthRef: sql`UPDATE agents SET auth_ref_name = ?, updated_at = ? WHERE alias = ?`,
  setClientTls: sql`UPDATE agents SET client_tls_json = ?, updated_at = ? WHERE alias = ?`,
  setCardKeys: sql`UPDATE agents SET card_keys_json = ?, updated_at = ? WHERE alias = ?`,
  storeCard: sql`UPDATE agents SET agent_card_json = ?, agent_card_url = ?, agent_card_etag = ?, agent_card_last_modified = ?,
       agent_card_fetched_at = ?, agent_card_validated_at = ?, updated_at = ? WHERE alias = ?`,
  markCardValidated: sql`UPDATE agents SET agent_card_validated_at = ? WHERE alias = ?`,
  countTasks: sql`SELECT ${COUNT} AS n FROM tasks WHERE agent_alias = ?`,
  /** Points a local agent at a new base URL and drops its cached card. */
  repoint: sql`UPDATE agents SET base_url = ?, agent_card_json = NULL, agent_card_url = NULL, agent_card_etag = NULL, agent_card_last_modified = NULL,
       agent_card_fetched_at = NULL, agent_card_validated_at = NULL, updated_at = ? WHERE alias = ? AND source = 'local'`,
};

/** The parameters of AGENTS.insert. */
export function insertParams(agent: NewAgent): unknown[] {
  const p = agentParams(agent);
  return [
    p.alias,
    agent.source,
    p.baseUrl,
    p.interfaceUrls,
    p.bindingPreference,
    p.authRefName,
    p.tags,
    p.notes,
    p.metadata,
    p.trustedOrigins,
    p.allowCrossOriginAuth,
    p.clientTls,
    json(agent.cardKeys),
    agent.readOnly ? 1 : 0,
  ];
}

/** The parameters of AGENTS.updateSeeded. */
export function updateSeededParams(agent: NewAgent, now: string): unknown[] {
  const p = agentParams(agent);
  const b = p.baseUrl;
  return [
    b,
    b,
    b,
    b,
    b,
    b,
    b,
    p.interfaceUrls,
    p.bindingPreference,
    p.authRefName,
    p.tags,
    p.notes,
    p.metadata,
    p.trustedOrigins,
    p.allowCrossOriginAuth,
    p.clientTls,
    now,
    p.alias,
  ];
}

/** The parameters of AGENTS.storeCard: fetched and validated now. */
export const storeCardParams = (
  alias: string,
  card: { json: unknown; url: string; etag: string | null; lastModified: string | null },
  now: string,
): unknown[] => [JSON.stringify(card.json), card.url, card.etag, card.lastModified, now, now, now, alias];

export const jsonOrNull = (value: ClientTlsPaths | CardKeys | null): string | null => json(value);
