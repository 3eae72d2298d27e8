/** Groups of agents with unique, deterministic ranks. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';
import { storedJson, storedRow } from '../stored-json.js';

export interface GroupRow {
  group_name: string;
  routing_policy: string;
  notes: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface MemberRow {
  group_name: string;
  agent_alias: string;
  rank: number;
  tags: string[];
  weight: number;
}

export type RawGroup = Omit<GroupRow, 'metadata'> & { metadata_json: string };
export const toGroup = ({ metadata_json, ...rest }: RawGroup): GroupRow => ({
  ...rest,
  metadata: storedJson(metadata_json, storedRow('groups', { group_name: rest.group_name }), 'metadata_json', 'object'),
});

/** A group_members row (SQLite's and PostgreSQL's): its tags a JSON array of strings, or storage::corrupt_row. */
export const memberOf = ({ tags_json, ...rest }: Omit<MemberRow, 'tags'> & { tags_json: string }): MemberRow => ({
  ...rest,
  tags: storedJson(tags_json, storedRow('group_members', { group_name: rest.group_name, agent_alias: rest.agent_alias }), 'tags_json', 'strings'),
});

export function insertGroup(db: Db, g: { name: string; routingPolicy: string; notes: string | null; metadata: Record<string, unknown> }): void {
  db.prepare(`INSERT INTO "groups" (group_name, routing_policy, notes, metadata_json) VALUES (?, ?, ?, ?)`).run(g.name, g.routingPolicy, g.notes, JSON.stringify(g.metadata));
}

/** A group's routing policy and notes (its members live in group_members). */
export function updateGroupSettings(db: Db, name: string, g: { routingPolicy: string; notes: string | null }): void {
  db.prepare(`UPDATE "groups" SET routing_policy = ?, notes = ?, updated_at = ? WHERE group_name = ?`).run(g.routingPolicy, g.notes, nowIso(), name);
}

export const getGroup = (db: Db, name: string): GroupRow | undefined => {
  const row = db.prepare(`SELECT * FROM "groups" WHERE group_name = ?`).get(name) as RawGroup | undefined;
  return row ? toGroup(row) : undefined;
};

export const listGroups = (db: Db): Array<GroupRow & { members: number }> =>
  (db.prepare(`SELECT g.*, (SELECT count(*) FROM group_members m WHERE m.group_name = g.group_name) AS members FROM "groups" g ORDER BY g.group_name`).all() as Array<RawGroup & { members: number }>).map(
    (r) => ({ ...toGroup(r), members: r.members }),
  );

export const deleteGroup = (db: Db, name: string): boolean => db.prepare(`DELETE FROM "groups" WHERE group_name = ?`).run(name).changes > 0;

export function updateGroupMetadata(db: Db, name: string, metadata: Record<string, unknown>): void {
  db.prepare(`UPDATE "groups" SET metadata_json = ?, updated_at = ? WHERE group_name = ?`).run(JSON.stringify(metadata), nowIso(), name);
}

export const listMembers = (db: Db, group: string): MemberRow[] =>
  (db.prepare(`SELECT group_name, agent_alias, rank, tags_json, weight FROM group_members WHERE group_name = ? ORDER BY rank`).all(group) as Array<Omit<MemberRow, 'tags'> & { tags_json: string }>).map(
    memberOf,
  );

/** Inserts or moves a member to `rank`. */
export function upsertMember(db: Db, m: { group: string; alias: string; rank: number; tags?: string[]; weight?: number }): void {
  db.prepare(
    `INSERT INTO group_members (group_name, agent_alias, rank, tags_json, weight) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(group_name, agent_alias) DO UPDATE SET rank = excluded.rank, tags_json = excluded.tags_json, weight = excluded.weight`,
  ).run(m.group, m.alias, m.rank, JSON.stringify(m.tags ?? []), m.weight ?? 1);
  db.prepare(`UPDATE "groups" SET updated_at = ? WHERE group_name = ?`).run(nowIso(), m.group);
}

export const removeMember = (db: Db, group: string, alias: string): boolean =>
  db.prepare(`DELETE FROM group_members WHERE group_name = ? AND agent_alias = ?`).run(group, alias).changes > 0;
