/** Groups of agents with unique, deterministic ranks, on PostgreSQL: the statements of statements/groups.ts. */
import { nowIso } from '../../rows/clock.js';
import { memberOf, toGroup, type RawGroup, type RawMember } from '../../rows/groups.js';
import { GROUPS, MEMBER_UPSERT, memberParams } from '../../statements/groups.js';
import { sql } from '../../sql.js';
import type { GroupRepository } from '../../storage.js';
import { usageError } from '../../../../../shared/errors.js';
import { sqlState } from '../query-errors.js';
import { changed, run, type Query } from './query.js';

/** The member upsert and the group's touch in one statement, so both or neither (SQLite runs two in its transaction). */
const UPSERT_MEMBER = sql`WITH member AS (${MEMBER_UPSERT} RETURNING group_name)
     UPDATE "groups" SET updated_at = ? WHERE group_name = (SELECT group_name FROM member)`;

export function groupRepository(query: Query): GroupRepository {
  return {
    async insert(g) {
      await run(
        query,
        'groups.insert',
        GROUPS.insert,
        [g.name, g.routingPolicy, g.notes, JSON.stringify(g.metadata)],
        // Another host created it between the service's check and this write: the service's own error.
        (error) =>
          sqlState(error) === '23505'
            ? usageError('group_exists', `group "${g.name}" already exists`, `Add members with: missive group add ${g.name} <alias>`)
            : undefined,
      );
    },

    async updateSettings(name, g) {
      await run(query, 'groups.updateSettings', GROUPS.updateSettings, [g.routingPolicy, g.notes, nowIso(), name]);
    },

    async updateMetadata(name, metadata) {
      await run(query, 'groups.updateMetadata', GROUPS.updateMetadata, [JSON.stringify(metadata), nowIso(), name]);
    },

    async get(name) {
      const { rows } = await run<RawGroup>(query, 'groups.get', GROUPS.get, [name]);
      return rows[0] ? toGroup(rows[0]) : undefined;
    },

    async list() {
      const { rows } = await run<RawGroup & { members: number }>(query, 'groups.list', GROUPS.list);
      return rows.map((r) => ({ ...toGroup(r), members: r.members }));
    },

    async remove(name) {
      return changed(await run(query, 'groups.remove', GROUPS.remove, [name])) > 0;
    },

    async members(group) {
      const { rows } = await run<RawMember>(query, 'groups.members', GROUPS.members, [group]);
      return rows.map(memberOf);
    },

    /** Inserts or moves a member to `rank`, and touches the group: one statement, so both or neither. */
    async upsertMember(m) {
      await run(
        query,
        'groups.upsertMember',
        UPSERT_MEMBER,
        [...memberParams(m), nowIso()],
        // Another host gave the rank to another member between the service's check and this write.
        (error) =>
          sqlState(error) === '23505'
            ? usageError(
                'rank_taken',
                `rank ${m.rank} of group "${m.group}" is already held by another member`,
                'Pick another --rank, or remove that member first.',
              )
            : undefined,
      );
    },

    async removeMember(group, alias) {
      return changed(await run(query, 'groups.removeMember', GROUPS.removeMember, [group, alias])) > 0;
    },
  };
}
