/**
 * Groups: named, ordered sets of registered agents. Ranks are unique per group and deterministic: an explicit
 * `alias@rank` keeps its rank; the others take the smallest free ranks in the order given.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { agentCapabilities } from '../agents/discovery.js';
import { requireAgent } from '../agents/registry.js';
import { validateAlias } from '../validation/alias.js';
import { storedText } from '../validation/stored-text.js';
import { ROUTE_POLICIES } from '../../../shared/route-policies.js';
import type { GroupRow, MemberRow } from '../store/rows/groups.js';
import type { Repositories } from '../store/storage.js';

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
  if (!match || (match[2] !== undefined && Number(match[2]) > MAX_RANK))
    throw usageError('invalid_member', `member "${spec}" is not ALIAS or ALIAS@RANK (rank an integer from 0 to ${MAX_RANK})`);
  return { alias: match[1]!, ...(match[2] !== undefined ? { rank: Number(match[2]) } : {}) };
}

export async function requireGroup(core: Core, name: string): Promise<GroupView> {
  return groupIn(await core.storage(), name);
}

/** The group and its members as `repos` (the store, or a transaction) sees them. */
async function groupIn(repos: Repositories, name: string): Promise<GroupView> {
  const group = await repos.groups.get(name);
  if (!group) throw usageError('unknown_group', `no group named "${name}"`, 'List groups with: missive group list');
  return { ...group, members: await repos.groups.members(name) };
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
    if (holder !== undefined && holder !== s.alias)
      throw usageError('rank_taken', `rank ${s.rank} is already held by "${holder}"`, 'Pick another --rank, or remove that member first.');
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

export async function createGroup(core: Core, name: string, options: { members?: string[]; notes?: string; routingPolicy?: string } = {}): Promise<GroupView> {
  validateAlias(name, 'group name');
  storedText(options.notes, '--notes');
  const storage = await core.storage();
  await refuseExistingGroup(storage, name);
  const specs = (options.members ?? []).map(parseMemberSpec);
  for (const s of specs) await requireAgent(core, s.alias);
  const ranked = assignRanks([], specs);
  return storage.transaction(async (tx) => {
    // Again in the transaction: another host may have created it meanwhile.
    await refuseExistingGroup(tx, name);
    await tx.groups.insert({ name, routingPolicy: options.routingPolicy ?? core.config.routing.defaultPolicy, notes: options.notes ?? null, metadata: {} });
    for (const m of ranked) await tx.groups.upsertMember({ group: name, alias: m.alias, rank: m.rank });
    await tx.journal.append({ type: 'missive.group.created', payload: { group: name, members: ranked } });
    return groupIn(tx, name);
  });
}

async function refuseExistingGroup(repos: Repositories, name: string): Promise<void> {
  if (await repos.groups.get(name)) throw usageError('group_exists', `group "${name}" already exists`, `Add members with: missive group add ${name} <alias>`);
}

export async function addMember(core: Core, name: string, alias: string, rank?: number): Promise<GroupView> {
  const storage = await core.storage();
  await requireAgent(core, alias);
  return storage.transaction(async (tx) => {
    // Ranks are assigned against the members as this transaction sees them.
    const group = await groupIn(tx, name);
    const [ranked] = assignRanks(group.members, [{ alias, ...(rank !== undefined ? { rank } : {}) }]);
    await tx.groups.upsertMember({ group: name, alias, rank: ranked!.rank });
    await tx.journal.append({ type: 'missive.group.member_added', payload: { group: name, alias, rank: ranked!.rank } });
    return groupIn(tx, name);
  });
}

export async function removeMember(core: Core, name: string, alias: string): Promise<GroupView> {
  const storage = await core.storage();
  return storage.transaction(async (tx) => {
    await groupIn(tx, name);
    if (!(await tx.groups.removeMember(name, alias))) throw usageError('unknown_member', `"${alias}" is not a member of group "${name}"`);
    await tx.journal.append({ type: 'missive.group.member_removed', payload: { group: name, alias } });
    return groupIn(tx, name);
  });
}

export const listGroups = async (core: Core) => (await core.storage()).groups.list();

export interface GroupSettings {
  /** `first`, `round-robin` or `capability-match`. */
  routingPolicy?: string;
  /** Free-form notes; null or '' clears them. */
  notes?: string | null;
}

/** Changes a group's routing policy and/or notes (its members are changed with addMember/removeMember). */
export async function updateGroup(core: Core, name: string, settings: GroupSettings): Promise<GroupView> {
  const group = await requireGroup(core, name);
  if (settings.routingPolicy === undefined && settings.notes === undefined)
    throw usageError('nothing_to_update', `nothing to change in group "${name}"`, 'Pass --routing-policy and/or --notes.');
  const policy = settings.routingPolicy ?? group.routing_policy;
  if (settings.routingPolicy !== undefined && !(ROUTE_POLICIES as readonly string[]).includes(policy)) {
    throw usageError('invalid_routing_policy', `unknown routing policy "${policy}"`, `Use one of: ${ROUTE_POLICIES.join(', ')}.`);
  }
  const notes = settings.notes === undefined ? group.notes : storedText(settings.notes, '--notes') || null;
  const storage = await core.storage();
  return storage.transaction(async (tx) => {
    await tx.groups.updateSettings(name, { routingPolicy: policy, notes });
    await tx.journal.append({ type: 'missive.group.updated', payload: { group: name, routing_policy: policy, notes_changed: notes !== group.notes } });
    return groupIn(tx, name);
  });
}

export async function deleteGroup(core: Core, name: string) {
  const storage = await core.storage();
  await storage.transaction(async (tx) => {
    await groupIn(tx, name);
    await tx.groups.remove(name);
    await tx.journal.append({ type: 'missive.group.deleted', payload: { group: name } });
  });
  return { group: name, deleted: true as const };
}

/** Each member's capability labels (cached cards unless `refresh`), and the labels every member shares. */
export async function groupCapabilities(core: Core, name: string, refresh = false) {
  const group = await requireGroup(core, name);
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
