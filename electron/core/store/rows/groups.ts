/** Groups and their members as both engines store them, and their decoders. Neither engine owns this module. */
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

/** A group_members row as stored: its tags a JSON text. */
export type RawMember = Omit<MemberRow, 'tags'> & { tags_json: string };
