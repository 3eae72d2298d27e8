/** Agent registry rows on PostgreSQL: the statements of statements/agents.ts, with the rows' decoder (rows/agents.ts). */
import { nowIso } from '../../rows/clock.js';
import { fromRaw, type AgentSource, type CardKeys, type ClientTlsPaths, type NewAgent, type RawAgent } from '../../rows/agents.js';
import { AGENTS, insertParams, jsonOrNull, storeCardParams, updateSeededParams } from '../../statements/agents.js';
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

export function agentRepository(query: Query): AgentRepository {
  return {
    async get(alias) {
      const { rows } = await run<RawAgent>(query, 'agents.get', AGENTS.get, [alias]);
      return rows[0] && fromRaw(rows[0]);
    },

    async list() {
      return (await run<RawAgent>(query, 'agents.list', AGENTS.list)).rows.map(fromRaw);
    },

    async source(alias) {
      const { rows } = await run<{ source: AgentSource }>(query, 'agents.source', AGENTS.source, [alias]);
      return rows[0]?.source;
    },

    async seededAliases() {
      const { rows } = await run<{ alias: string }>(query, 'agents.seededAliases', AGENTS.seededAliases);
      return rows.map((r) => r.alias);
    },

    async insert(agent: NewAgent) {
      await run(
        query,
        'agents.insert',
        AGENTS.insert,
        insertParams(agent),
        duplicateAlias(agent.alias, `Pick another alias, or remove it first: missive agent remove ${agent.alias}`),
      );
    },

    async updateSeeded(agent: NewAgent) {
      await run(query, 'agents.updateSeeded', AGENTS.updateSeeded, updateSeededParams(agent, nowIso()));
    },

    async releaseSeeded(alias) {
      await run(query, 'agents.releaseSeeded', AGENTS.releaseSeeded, [nowIso(), alias]);
    },

    async remove(alias) {
      return changed(await run(query, 'agents.remove', AGENTS.remove, [alias])) > 0;
    },

    async rename(from, to) {
      await run(query, 'agents.rename', AGENTS.rename, [to, nowIso(), from], duplicateAlias(to));
    },

    async setAuthRef(alias, authRefName: string | null) {
      await run(query, 'agents.setAuthRef', AGENTS.setAuthRef, [authRefName, nowIso(), alias]);
    },

    async setClientTls(alias, clientTls: ClientTlsPaths | null) {
      await run(query, 'agents.setClientTls', AGENTS.setClientTls, [jsonOrNull(clientTls), nowIso(), alias]);
    },

    async setCardKeys(alias, cardKeys: CardKeys | null) {
      await run(query, 'agents.setCardKeys', AGENTS.setCardKeys, [jsonOrNull(cardKeys), nowIso(), alias]);
    },

    async storeCard(alias, card) {
      await run(query, 'agents.storeCard', AGENTS.storeCard, storeCardParams(alias, card, nowIso()));
    },

    async markCardValidated(alias) {
      await run(query, 'agents.markCardValidated', AGENTS.markCardValidated, [nowIso(), alias]);
    },

    async repoint(alias, baseUrl) {
      await run(query, 'agents.repoint', AGENTS.repoint, [baseUrl, nowIso(), alias]);
    },

    async countTasks(alias) {
      const { rows } = await run<{ n: number }>(query, 'agents.countTasks', AGENTS.countTasks, [alias]);
      return rows[0]!.n;
    },

    async aliasesByAuthRef() {
      const { rows } = await run<{ alias: string; ref: string }>(query, 'agents.aliasesByAuthRef', AGENTS.aliasesByAuthRef);
      const byRef = new Map<string, string[]>();
      for (const { alias, ref } of rows) byRef.set(ref, [...(byRef.get(ref) ?? []), alias]);
      return byRef;
    },
  };
}
