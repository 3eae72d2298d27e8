/** The groups' statements, written once for both engines (sql.ts). */
import { COUNT } from './common.js';
import { fragment, sql } from '../sql.js';

/** Inserts or moves a member to a rank (group, alias, rank, tags JSON, weight). */
export const MEMBER_UPSERT = fragment`INSERT INTO group_members (group_name, agent_alias, rank, tags_json, weight) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (group_name, agent_alias) DO UPDATE SET rank = excluded.rank, tags_json = excluded.tags_json, weight = excluded.weight`;

export const GROUPS = {
  insert: sql`INSERT INTO "groups" (group_name, routing_policy, notes, metadata_json) VALUES (?, ?, ?, ?)`,
  updateSettings: sql`UPDATE "groups" SET routing_policy = ?, notes = ?, updated_at = ? WHERE group_name = ?`,
  updateMetadata: sql`UPDATE "groups" SET metadata_json = ?, updated_at = ? WHERE group_name = ?`,
  get: sql`SELECT * FROM "groups" WHERE group_name = ?`,
  list: sql`SELECT g.*, (SELECT ${COUNT} FROM group_members m WHERE m.group_name = g.group_name) AS members FROM "groups" g ORDER BY g.group_name`,
  remove: sql`DELETE FROM "groups" WHERE group_name = ?`,
  members: sql`SELECT group_name, agent_alias, rank, tags_json, weight FROM group_members WHERE group_name = ? ORDER BY rank`,
  removeMember: sql`DELETE FROM group_members WHERE group_name = ? AND agent_alias = ?`,
};

/** The parameters of MEMBER_UPSERT. */
export const memberParams = (m: { group: string; alias: string; rank: number; tags?: string[]; weight?: number }): unknown[] => [
  m.group,
  m.alias,
  m.rank,
  JSON.stringify(m.tags ?? []),
  m.weight ?? 1,
];
