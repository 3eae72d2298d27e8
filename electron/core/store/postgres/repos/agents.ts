/** Agent registry rows on PostgreSQL: the statements of repos/agents.ts, with its row decoder and parameters. */
import { nowIso } from '../../db.js';
import { agentParams, fromRaw, type AgentSource, type CardKeys, type ClientTlsPaths, type NewAgent, type RawAgent } from '../../repos/agents.js';
import type { AgentRepository } from '../../storage.js';
import { usageError } from '../../../../../shared/errors.js';
import { sqlState } from '../query-errors.js';
import { changed, run, type Query } from './query.js';

/**
 * Another host inserted (or renamed an agent to) the same alias between the service's check and this write: the
 * service's own error, as if the check had seen it.
 */
const duplicateAlias = (alias: string, help?: string) => (error: unknown) =>
  sqlState(error) === '23505' ? usageError('duplicate_agent', `an agent named "${alias}" already exists`, help) : undefined;

const json = (value: object | null | undefined) => (value ? JSON.stringify(value) : null);

export function agentRepository(query: Query): AgentRepository {
  return {
    async get(alias) {
      const { rows } = await run<RawAgent>(query, 'agents.get', `SELECT * FROM agents WHERE alias = $1`, [alias]);
      return rows[0] && fromRaw(rows[0]);
    },

    async list() {
      return (await run<RawAgent>(query, 'agents.list', `SELECT * FROM agents ORDER BY alias`)).rows.map(fromRaw);
    },

    async source(alias) {
      const { rows } = await run<{ source: AgentSource }>(query, 'agents.source', `SELECT source FROM agents WHERE alias = $1`, [alias]);
      return rows[0]?.source;
    },

    async seededAliases() {
      const { rows } = await run<{ alias: string }>(query, 'agents.seededAliases', `SELECT alias FROM agents WHERE source = 'config_seed' ORDER BY alias`);
      return rows.map((r) => r.alias);
    },

    async insert(agent: NewAgent) {
      const p = agentParams(agent);
      await run(
        query,
        'agents.insert',
        `INSERT INTO agents (alias, source, base_url, interface_urls_json, binding_preference_json, auth_ref_name, tags_json, notes, metadata_json, trusted_origins_json, allow_cross_origin_auth, client_tls_json, card_keys_json, read_only)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [p.alias, agent.source, p.baseUrl, p.interfaceUrls, p.bindingPreference, p.authRefName, p.tags, p.notes, p.metadata, p.trustedOrigins, p.allowCrossOriginAuth, p.clientTls, json(agent.cardKeys), agent.readOnly ? 1 : 0],
        duplicateAlias(agent.alias, `Pick another alias, or remove it first: missive agent remove ${agent.alias}`),
      );
    },

    async updateSeeded(agent: NewAgent) {
      const p = agentParams(agent);
      await run(
        query,
        'agents.updateSeeded',
        `UPDATE agents SET
           agent_card_json = CASE WHEN base_url = $2 THEN agent_card_json ELSE NULL END,
           agent_card_url = CASE WHEN base_url = $2 THEN agent_card_url ELSE NULL END,
           agent_card_etag = CASE WHEN base_url = $2 THEN agent_card_etag ELSE NULL END,
           agent_card_last_modified = CASE WHEN base_url = $2 THEN agent_card_last_modified ELSE NULL END,
           agent_card_fetched_at = CASE WHEN base_url = $2 THEN agent_card_fetched_at ELSE NULL END,
           agent_card_validated_at = CASE WHEN base_url = $2 THEN agent_card_validated_at ELSE NULL END,
           base_url = $2, interface_urls_json = $3, binding_preference_json = $4,
           auth_ref_name = $5, tags_json = $6, notes = $7, metadata_json = $8,
           trusted_origins_json = $9, allow_cross_origin_auth = $10,
           client_tls_json = $11, source = 'config_seed', read_only = 1, updated_at = $12
         WHERE alias = $1`,
        [p.alias, p.baseUrl, p.interfaceUrls, p.bindingPreference, p.authRefName, p.tags, p.notes, p.metadata, p.trustedOrigins, p.allowCrossOriginAuth, p.clientTls, nowIso()],
      );
    },

    async releaseSeeded(alias) {
      await run(query, 'agents.releaseSeeded', `UPDATE agents SET source = 'local', read_only = 0, updated_at = $1 WHERE alias = $2`, [nowIso(), alias]);
    },

    async remove(alias) {
      return changed(await run(query, 'agents.remove', `DELETE FROM agents WHERE alias = $1`, [alias])) > 0;
    },

    async rename(from, to) {
      await run(query, 'agents.rename', `UPDATE agents SET alias = $1, updated_at = $2 WHERE alias = $3`, [to, nowIso(), from], duplicateAlias(to));
    },

    async setAuthRef(alias, authRefName: string | null) {
      await run(query, 'agents.setAuthRef', `UPDATE agents SET auth_ref_name = $1, updated_at = $2 WHERE alias = $3`, [authRefName, nowIso(), alias]);
    },

    async setClientTls(alias, clientTls: ClientTlsPaths | null) {
      await run(query, 'agents.setClientTls', `UPDATE agents SET client_tls_json = $1, updated_at = $2 WHERE alias = $3`, [json(clientTls), nowIso(), alias]);
    },

    async setCardKeys(alias, cardKeys: CardKeys | null) {
      await run(query, 'agents.setCardKeys', `UPDATE agents SET card_keys_json = $1, updated_at = $2 WHERE alias = $3`, [json(cardKeys), nowIso(), alias]);
    },

    async storeCard(alias, card) {
      const now = nowIso();
      await run(
        query,
        'agents.storeCard',
        `UPDATE agents SET agent_card_json = $1, agent_card_url = $2, agent_card_etag = $3, agent_card_last_modified = $4,
           agent_card_fetched_at = $5, agent_card_validated_at = $5, updated_at = $5 WHERE alias = $6`,
        [JSON.stringify(card.json), card.url, card.etag, card.lastModified, now, alias],
      );
    },

    async markCardValidated(alias) {
      await run(query, 'agents.markCardValidated', `UPDATE agents SET agent_card_validated_at = $1 WHERE alias = $2`, [nowIso(), alias]);
    },

    async countTasks(alias) {
      const { rows } = await run<{ n: number }>(query, 'agents.countTasks', `SELECT count(*)::int AS n FROM tasks WHERE agent_alias = $1`, [alias]);
      return rows[0]!.n;
    },

    async aliasesByAuthRef() {
      const { rows } = await run<{ alias: string; ref: string }>(
        query,
        'agents.aliasesByAuthRef',
        `SELECT alias, auth_ref_name AS ref FROM agents WHERE auth_ref_name IS NOT NULL ORDER BY alias`,
      );
      const byRef = new Map<string, string[]>();
      for (const { alias, ref } of rows) byRef.set(ref, [...(byRef.get(ref) ?? []), alias]);
      return byRef;
    },
  };
}
