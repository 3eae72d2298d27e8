/**
 * Groups: named, ordered sets of registered agents. Ranks are unique per group and deterministic: an explicit
 * `alias@rank` keeps its rank; the others take the smallest free ranks in the order given.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import { agentCapabilities } from '../agents/discovery.js';
import { requireAgent } from '../agents/registry.js';
import { validateAlias } from '../validation/alias.js';
import { appendEvent } from '../store/repos/events.js';
import { ROUTE_POLICIES } from '../../../shared/route-policies.js';
import { deleteGroup as dropGroup, getGroup, insertGroup, updateGroupSettings, listGroups as allGroups, listMembers, removeMember as dropMember, upsertMember, type GroupRow, type MemberRow } from '../store/repos/groups.js';

export interface GroupView extends GroupRow {
  members: MemberRow[];
}

export interface MemberSpec {
  alias: string;
  rank?: number;
}

/** The largest rank a member can hold (`--rank`, `ALIAS@RANK`). */
export const MAX_RANK = 1_000_000;

/** `alias` or `alias@rank`. */
export function parseMemberSpec(spec: string): MemberSpec {
  const match = /^([^@]+)(?:@(\d+))?$/.exec(spec.trim());
  if (!match || (match[2] !== undefined && Number(match[2]) > MAX_RANK)) throw usageError('invalid_member', `member "${spec}" is not ALIAS or ALIAS@RANK (rank an integer from 0 to ${MAX_RANK})`);
  return { alias: match[1]!, ...(match[2] !== undefined ? { rank: Number(match[2]) } : {}) };
}

export function requireGroup(core: Core, name: string): GroupView {
  const group = getGroup(core.store().db, name);
  if (!group) throw usageError('unknown_group', `no group named "${name}"`, 'List groups with: missive group list');
  return { ...group, members: listMembers(core.store().db, name) };
}

/** Assigns ranks: explicit ones first (unique), then the smallest free ranks in input order. */
export function assignRanks(existing: MemberRow[], specs: MemberSpec[]): Array<{ alias: string; rank: number }> {
  const taken = new Map<number, string>(existing.map((m) => [m.rank, m.agent_alias]));
  const moving = new Set(specs.map((s) => s.alias));
  for (const [rank, alias] of taken) if (moving.has(alias)) taken.delete(rank);
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.alias)) throw usageError('duplicate_member', `agent "${s.alias}" is listed twice`);
    seen.add(s.alias);
    if (s.rank === undefined) continue;
    const holder = taken.get(s.rank);
    if (holder !== undefined && holder !== s.alias) throw usageError('rank_taken', `rank ${s.rank} is already held by "${holder}"`, 'Pick another --rank, or remove that member first.');
    taken.set(s.rank, s.alias);
  }
  let next = 0;
  return specs.map((s) => {
    if (s.rank !== undefined) return { alias: s.alias, rank: s.rank };
    while (taken.has(next)) next++;
    taken.set(next, s.alias);
    return { alias: s.alias, rank: next };
  });
}

export function createGroup(core: Core, name: string, options: { members?: string[]; notes?: string; routingPolicy?: string } = {}): GroupView {
  validateAlias(name, 'group name');
  const store = core.store();
  if (getGroup(store.db, name)) throw usageError('group_exists', `group "${name}" already exists`, `Add members with: missive group add ${name} <alias>`);
  const specs = (options.members ?? []).map(parseMemberSpec);
  for (const s of specs) requireAgent(core, s.alias);
  const ranked = assignRanks([], specs);
  store.transaction(() => {
    insertGroup(store.db, { name, routingPolicy: options.routingPolicy ?? core.config.routing.defaultPolicy, notes: options.notes ?? null, metadata: {} });
    for (const m of ranked) upsertMember(store.db, { group: name, alias: m.alias, rank: m.rank });
    appendEvent(store.db, { type: 'missive.group.created', payload: { group: name, members: ranked } });
  });
  return requireGroup(core, name);
}

export function addMember(core: Core, name: string, alias: string, rank?: number): GroupView {
  const group = requireGroup(core, name);
  requireAgent(core, alias);
  const [ranked] = assignRanks(group.members, [{ alias, ...(rank !== undefined ? { rank } : {}) }]);
  const store = core.store();
  store.transaction(() => {
    upsertMember(store.db, { group: name, alias, rank: ranked!.rank });
    appendEvent(store.db, { type: 'missive.group.member_added', payload: { group: name, alias, rank: ranked!.rank } });
  });
  return requireGroup(core, name);
}

export function removeMember(core: Core, name: string, alias: string): GroupView {
  requireGroup(core, name);
  const store = core.store();
  if (!dropMember(store.db, name, alias)) throw usageError('unknown_member', `"${alias}" is not a member of group "${name}"`);
  appendEvent(store.db, { type: 'missive.group.member_removed', payload: { group: name, alias } });
  return requireGroup(core, name);
}

export const listGroups = (core: Core) => allGroups(core.store().db);

export interface GroupSettings {
  /** `first`, `round-robin` or `capability-match`. */
  routingPolicy?: string;
  /** Free-form notes; null or '' clears them. */
  notes?: string | null;
}

/** Changes a group's routing policy and/or notes (its members are changed with addMember/removeMember). */
export function updateGroup(core: Core, name: string, settings: GroupSettings): GroupView {
  const group = requireGroup(core, name);
  if (settings.routingPolicy === undefined && settings.notes === undefined) throw usageError('nothing_to_update', `nothing to change in group "${name}"`, 'Pass --routing-policy and/or --notes.');
  const policy = settings.routingPolicy ?? group.routing_policy;
  if (settings.routingPolicy !== undefined && !(ROUTE_POLICIES as readonly string[]).includes(policy)) {
    throw usageError('invalid_routing_policy', `unknown routing policy "${policy}"`, `Use one of: ${ROUTE_POLICIES.join(', ')}.`);
  }
  const notes = settings.notes === undefined ? group.notes : settings.notes || null;
  const store = core.store();
  store.transaction(() => {
    updateGroupSettings(store.db, name, { routingPolicy: policy, notes });
    appendEvent(store.db, { type: 'missive.group.updated', payload: { group: name, routing_policy: policy, notes_changed: notes !== group.notes } });
  });
  return requireGroup(core, name);
}

export function deleteGroup(core: Core, name: string) {
  requireGroup(core, name);
  const store = core.store();
  store.transaction(() => {
    dropGroup(store.db, name);
    appendEvent(store.db, { type: 'missive.group.deleted', payload: { group: name } });
  });
  return { group: name, deleted: true as const };
}

/** Each member's capability labels (cached cards unless `refresh`), and the labels every member shares. */
export async function groupCapabilities(core: Core, name: string, refresh = false) {
  const group = requireGroup(core, name);
  const members = [];
  for (const m of group.members) {
    try {
      members.push({ rank: m.rank, ...(await agentCapabilities(core, m.agent_alias, refresh)), error: null });
    } catch (error) {
      members.push({ rank: m.rank, alias: m.agent_alias, labels: [] as string[], error: (error as Error).message });
    }
  }
  const ok = members.filter((m) => m.error === null);
  const common = ok.length ? ok[0]!.labels.filter((l) => ok.every((m) => m.labels.includes(l))) : [];
  const all = [...new Set(members.flatMap((m) => m.labels))].sort();
  return { group: name, members, common_labels: common, all_labels: all };
}
