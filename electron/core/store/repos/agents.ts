/** Agent registry rows on SQLite: the statements of statements/agents.ts, run synchronously. */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { AGENT_COLUMNS, fromRaw, type AgentRow, type AgentSource, type CardKeys, type ClientTlsPaths, type NewAgent, type RawAgent } from '../rows/agents.js';
import { AGENTS, insertParams, jsonOrNull, storeCardParams, updateSeededParams } from '../statements/agents.js';
import type { WithDb } from '../repository-forms.js';
import type { AgentRepository } from '../storage.js';

export function insertAgent(db: Db, agent: NewAgent): void {
  db.prepare(AGENTS.insert.sqlite).run(...insertParams(agent));
}

/** Updates the registry fields of a config-seeded agent; the cached card is dropped only when base_url changes. */
export function updateSeededAgent(db: Db, agent: NewAgent): void {
  db.prepare(AGENTS.updateSeeded.sqlite).run(...updateSeededParams(agent, nowIso()));
}

export function getAgent(db: Db, alias: string): AgentRow | undefined {
  const raw = db.prepare(AGENTS.get.sqlite).get(alias) as RawAgent | undefined;
  return raw && fromRaw(raw);
}

const AT = Object.fromEntries(AGENT_COLUMNS.map((column, i) => [column, i])) as Record<keyof RawAgent, number>;

/** One row of AGENTS.list, read as an array, by column name. */
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
 * the addon cost five times reading it (25 against 5 ms for 1,000 agents). AGENTS.list is this function's own SQL
 * text, so the cached statement in raw mode serves no other caller (db.ts), and the mode is set on every use.
 */
export function listAgents(db: Db): AgentRow[] {
  return (db.prepare(AGENTS.list.sqlite).raw(true).all() as unknown[][]).map((v) => fromRaw(rawOf(v)));
}

/** Where an agent's row came from, without decoding the row; undefined when there is no such agent. */
export function agentSource(db: Db, alias: string): AgentSource | undefined {
  return (db.prepare(AGENTS.source.sqlite).get(alias) as { source: AgentSource } | undefined)?.source;
}

/** The aliases of the agents seeded from the config, in alias order (the config sync reads these, not every row). */
export function listSeededAliases(db: Db): string[] {
  return (db.prepare(AGENTS.seededAliases.sqlite).all() as Array<{ alias: string }>).map((r) => r.alias);
}

/** The aliases of the agents that authenticate with each auth ref, in alias order (refs no agent uses are absent). */
export function agentAliasesByAuthRef(db: Db): Map<string, string[]> {
  const rows = db.prepare(AGENTS.aliasesByAuthRef.sqlite).all() as Array<{ alias: string; ref: string }>;
  const byRef = new Map<string, string[]>();
  for (const { alias, ref } of rows) byRef.set(ref, [...(byRef.get(ref) ?? []), alias]);
  return byRef;
}

export function deleteAgent(db: Db, alias: string): boolean {
  return db.prepare(AGENTS.remove.sqlite).run(alias).changes > 0;
}

export function renameAgent(db: Db, from: string, to: string): void {
  db.prepare(AGENTS.rename.sqlite).run(to, nowIso(), from);
}

export function storeCard(db: Db, alias: string, card: { json: unknown; url: string; etag: string | null; lastModified: string | null }): void {
  db.prepare(AGENTS.storeCard.sqlite).run(...storeCardParams(alias, card, nowIso()));
}

/** Replaces (or, with null, removes) where an agent's card-signing keys come from. */
export function setCardKeys(db: Db, alias: string, cardKeys: CardKeys | null): void {
  db.prepare(AGENTS.setCardKeys.sqlite).run(jsonOrNull(cardKeys), nowIso(), alias);
}

/** Points an agent at an auth ref, or (null) at none. */
export function setAuthRefName(db: Db, alias: string, authRefName: string | null): void {
  db.prepare(AGENTS.setAuthRef.sqlite).run(authRefName, nowIso(), alias);
}

/** Replaces (or, with null, removes) the mutual TLS settings of an agent. */
export function setClientTls(db: Db, alias: string, clientTls: ClientTlsPaths | null): void {
  db.prepare(AGENTS.setClientTls.sqlite).run(jsonOrNull(clientTls), nowIso(), alias);
}

export function markCardValidated(db: Db, alias: string): void {
  db.prepare(AGENTS.markCardValidated.sqlite).run(nowIso(), alias);
}

/** How many journaled tasks point at this agent (they keep it from being removed). */
export function countAgentTasks(db: Db, alias: string): number {
  return (db.prepare(AGENTS.countTasks.sqlite).get(alias) as { n: number }).n;
}

/** Turns a config-seeded agent no longer in the config into an ordinary local one. */
export function releaseSeededAgent(db: Db, alias: string): void {
  db.prepare(AGENTS.releaseSeeded.sqlite).run(nowIso(), alias);
}

/** Points a local agent at a new base URL and drops its cached card. */
export function repointAgent(db: Db, alias: string, baseUrl: string): void {
  db.prepare(AGENTS.repoint.sqlite).run(baseUrl, nowIso(), alias);
}

/** The agent repository on SQLite (storage.ts's AgentRepository, the connection first). */
export const sqliteAgents: WithDb<AgentRepository, Db> = {
  get: getAgent,
  list: listAgents,
  source: agentSource,
  seededAliases: listSeededAliases,
  insert: insertAgent,
  updateSeeded: updateSeededAgent,
  releaseSeeded: releaseSeededAgent,
  remove: deleteAgent,
  rename: renameAgent,
  setAuthRef: setAuthRefName,
  setClientTls,
  setCardKeys,
  storeCard,
  markCardValidated,
  repoint: repointAgent,
  countTasks: countAgentTasks,
  aliasesByAuthRef: agentAliasesByAuthRef,
};
