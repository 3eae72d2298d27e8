/** Groups of agents with unique, deterministic ranks, on SQLite: the statements of statements/groups.ts. */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { memberOf, toGroup, type GroupRow, type MemberRow, type RawGroup, type RawMember } from '../rows/groups.js';
import { GROUPS, MEMBER_UPSERT, memberParams } from '../statements/groups.js';
import { sql } from '../sql.js';
import type { WithDb } from '../repository-forms.js';
import type { GroupRepository } from '../storage.js';

/** The member upsert, and the group touched after it (the same transaction: SQLite's calls run inside one). */
const UPSERT_MEMBER = sql`${MEMBER_UPSERT}`;
const TOUCH_GROUP = sql`UPDATE "groups" SET updated_at = ? WHERE group_name = ?`;

export function insertGroup(db: Db, g: { name: string; routingPolicy: string; notes: string | null; metadata: Record<string, unknown> }): void {
  db.prepare(GROUPS.insert.sqlite).run(g.name, g.routingPolicy, g.notes, JSON.stringify(g.metadata));
}

/** A group's routing policy and notes (its members live in group_members). */
export function updateGroupSettings(db: Db, name: string, g: { routingPolicy: string; notes: string | null }): void {
  db.prepare(GROUPS.updateSettings.sqlite).run(g.routingPolicy, g.notes, nowIso(), name);
}

export const getGroup = (db: Db, name: string): GroupRow | undefined => {
  const row = db.prepare(GROUPS.get.sqlite).get(name) as RawGroup | undefined;
  return row ? toGroup(row) : undefined;
};

export const listGroups = (db: Db): Array<GroupRow & { members: number }> =>
  (db.prepare(GROUPS.list.sqlite).all() as Array<RawGroup & { members: number }>).map((r) => ({ ...toGroup(r), members: r.members }));

export const deleteGroup = (db: Db, name: string): boolean => db.prepare(GROUPS.remove.sqlite).run(name).changes > 0;

export function updateGroupMetadata(db: Db, name: string, metadata: Record<string, unknown>): void {
  db.prepare(GROUPS.updateMetadata.sqlite).run(JSON.stringify(metadata), nowIso(), name);
}

export const listMembers = (db: Db, group: string): MemberRow[] => (db.prepare(GROUPS.members.sqlite).all(group) as RawMember[]).map(memberOf);

/** Inserts or moves a member to `rank`. */
export function upsertMember(db: Db, m: { group: string; alias: string; rank: number; tags?: string[]; weight?: number }): void {
  db.prepare(UPSERT_MEMBER.sqlite).run(...memberParams(m));
  db.prepare(TOUCH_GROUP.sqlite).run(nowIso(), m.group);
}

export const removeMember = (db: Db, group: string, alias: string): boolean => db.prepare(GROUPS.removeMember.sqlite).run(group, alias).changes > 0;

/** The group repository on SQLite (storage.ts's GroupRepository, the connection first). */
export const sqliteGroups: WithDb<GroupRepository, Db> = {
  insert: insertGroup,
  updateSettings: updateGroupSettings,
  updateMetadata: updateGroupMetadata,
  get: getGroup,
  list: listGroups,
  remove: deleteGroup,
  members: listMembers,
  upsertMember,
  removeMember,
};
