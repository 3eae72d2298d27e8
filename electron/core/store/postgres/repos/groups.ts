/** Groups of agents with unique, deterministic ranks, on PostgreSQL: the statements of repos/groups.ts. */
import { nowIso } from '../../db.js';
import { memberOf, toGroup, type MemberRow, type RawGroup } from '../../repos/groups.js';
import type { GroupRepository } from '../../storage.js';
import { usageError } from '../../../../../shared/errors.js';
import { sqlState } from '../query-errors.js';
import { changed, run, type Query } from './query.js';

export function groupRepository(query: Query): GroupRepository {
  return {
    async insert(g) {
      await run(
        query,
        'groups.insert',
        `INSERT INTO "groups" (group_name, routing_policy, notes, metadata_json) VALUES ($1, $2, $3, $4)`,
        [g.name, g.routingPolicy, g.notes, JSON.stringify(g.metadata)],
        // Another host created it between the service's check and this write: the service's own error.
        (error) => (sqlState(error) === '23505' ? usageError('group_exists', `group "${g.name}" already exists`, `Add members with: missive group add ${g.name} <alias>`) : undefined),
      );
    },

    async updateSettings(name, g) {
      await run(query, 'groups.updateSettings', `UPDATE "groups" SET routing_policy = $1, notes = $2, updated_at = $3 WHERE group_name = $4`, [g.routingPolicy, g.notes, nowIso(), name]);
    },

    async updateMetadata(name, metadata) {
      await run(query, 'groups.updateMetadata', `UPDATE "groups" SET metadata_json = $1, updated_at = $2 WHERE group_name = $3`, [JSON.stringify(metadata), nowIso(), name]);
    },

    async get(name) {
      const { rows } = await run<RawGroup>(query, 'groups.get', `SELECT * FROM "groups" WHERE group_name = $1`, [name]);
      return rows[0] ? toGroup(rows[0]) : undefined;
    },

    async list() {
      const { rows } = await run<RawGroup & { members: number }>(
        query,
        'groups.list',
        `SELECT g.*, (SELECT count(*)::int FROM group_members m WHERE m.group_name = g.group_name) AS members FROM "groups" g ORDER BY g.group_name`,
      );
      return rows.map((r) => ({ ...toGroup(r), members: r.members }));
    },

    async remove(name) {
      return changed(await run(query, 'groups.remove', `DELETE FROM "groups" WHERE group_name = $1`, [name])) > 0;
    },

    async members(group) {
      const { rows } = await run<Omit<MemberRow, 'tags'> & { tags_json: string }>(
        query,
        'groups.members',
        `SELECT group_name, agent_alias, rank, tags_json, weight FROM group_members WHERE group_name = $1 ORDER BY rank`,
        [group],
      );
      return rows.map(memberOf);
    },

    /** Inserts or moves a member to `rank`, and touches the group: one statement, so both or neither. */
    async upsertMember(m) {
      await run(
        query,
        'groups.upsertMember',
        `WITH member AS (
           INSERT INTO group_members (group_name, agent_alias, rank, tags_json, weight) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (group_name, agent_alias) DO UPDATE SET rank = excluded.rank, tags_json = excluded.tags_json, weight = excluded.weight
           RETURNING group_name
         )
         UPDATE "groups" SET updated_at = $6 WHERE group_name = (SELECT group_name FROM member)`,
        [m.group, m.alias, m.rank, JSON.stringify(m.tags ?? []), m.weight ?? 1, nowIso()],
        // Another host gave the rank to another member between the service's check and this write.
        (error) =>
          sqlState(error) === '23505'
            ? usageError('rank_taken', `rank ${m.rank} of group "${m.group}" is already held by another member`, 'Pick another --rank, or remove that member first.')
            : undefined,
      );
    },

    async removeMember(group, alias) {
      return changed(await run(query, 'groups.removeMember', `DELETE FROM group_members WHERE group_name = $1 AND agent_alias = $2`, [group, alias])) > 0;
    },
  };
}
