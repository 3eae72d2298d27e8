/**
 * `route explain`: which member(s) a policy would choose and why. A dry run from cached Agent Cards (refreshed only
 * with `refresh`); nothing is sent.
 *   first            the lowest-ranked candidate with a usable card
 *   round-robin      candidate `cursor % n` (cursor from --cursor, else the group's stored cursor), reporting the next
 *   capability-match every candidate holding all --need labels, in rank order, with what each lacks
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { capabilityView } from '../a2a/capabilities.js';
import { parseCard } from '../a2a/card.js';
import { loadCard } from '../agents/discovery.js';
import { requireAgent } from '../agents/registry.js';
import { requireGroup } from './groups.js';

import { ROUTE_POLICIES, type RoutePolicy } from '../../../shared/route-policies.js';

export { ROUTE_POLICIES, type RoutePolicy };

export interface RouteInput {
  group?: string;
  agents?: string[];
  policy?: string;
  needs?: string[];
  refresh?: boolean;
  cursor?: number;
}

export interface RouteCandidate {
  alias: string;
  rank: number;
  card: 'cached' | 'fetched' | 'missing' | 'error';
  labels: string[];
  matched: string[];
  missing: string[];
  chosen: boolean;
  reason: string;
}

export interface RouteExplanation {
  policy: RoutePolicy;
  policy_source: 'flag' | 'group' | 'config' | 'default';
  group: string | null;
  needs: string[];
  chosen: string[];
  candidates: RouteCandidate[];
  cursor: number | null;
  next_round_robin_cursor: number | null;
  refreshed: boolean;
}

const normaliseLabel = (l: string) => l.trim().toLowerCase().replace(/\s+/g, '-');

function pickPolicy(core: Core, input: RouteInput, groupPolicy: string | null): Pick<RouteExplanation, 'policy' | 'policy_source'> {
  const sources: Array<[string | null | undefined, RouteExplanation['policy_source']]> = [
    [input.policy, 'flag'],
    [groupPolicy && groupPolicy !== 'direct' ? groupPolicy : null, 'group'],
    [core.config.routing.defaultPolicy !== 'direct' ? core.config.routing.defaultPolicy : null, 'config'],
  ];
  for (const [value, source] of sources) {
    if (!value) continue;
    if (!(ROUTE_POLICIES as readonly string[]).includes(value))
      throw usageError('invalid_policy', `unknown routing policy "${value}"`, `Use one of: ${ROUTE_POLICIES.join(', ')}.`);
    return { policy: value as RoutePolicy, policy_source: source };
  }
  return { policy: 'first', policy_source: 'default' };
}

async function labelsOf(core: Core, alias: string, refresh: boolean): Promise<Pick<RouteCandidate, 'card' | 'labels'>> {
  const agent = await requireAgent(core, alias);
  try {
    if (refresh) {
      const result = await loadCard(core, alias, true);
      return { card: 'fetched', labels: capabilityView(result.card, result.agent.metadata).labels };
    }
    if (!agent.card) return { card: 'missing', labels: capabilityView(null, agent.metadata).labels };
    return { card: 'cached', labels: capabilityView(parseCard(agent.card.json), agent.metadata).labels };
  } catch {
    return { card: 'error', labels: [] };
  }
}

export async function explainRoute(core: Core, input: RouteInput): Promise<RouteExplanation> {
  if (!!input.group === !!input.agents?.length) throw usageError('route_candidates', 'give either a group or --agents a,b (not both)');
  const group = input.group ? await requireGroup(core, input.group) : null;
  const members = group ? group.members.map((m) => ({ alias: m.agent_alias, rank: m.rank })) : input.agents!.map((alias, rank) => ({ alias, rank }));
  if (members.length === 0) throw usageError('empty_group', `group "${input.group}" has no members`, `Add one with: missive group add ${input.group} <alias>`);
  const { policy, policy_source } = pickPolicy(core, input, group?.routing_policy ?? null);
  const needs = [...new Set((input.needs ?? []).map(normaliseLabel))];
  if (policy === 'capability-match' && needs.length === 0) throw usageError('need_required', 'capability-match needs at least one --need LABEL');

  const candidates: RouteCandidate[] = [];
  for (const m of members) {
    const { card, labels } = await labelsOf(core, m.alias, input.refresh === true);
    const matched = needs.filter((n) => labels.includes(n));
    const missing = needs.filter((n) => !labels.includes(n)).map((n) => (card === 'missing' || card === 'error' ? `${n}:unknown` : n));
    candidates.push({ alias: m.alias, rank: m.rank, card, labels, matched, missing, chosen: false, reason: '' });
  }

  let cursor: number | null = null;
  let next: number | null = null;
  const usable = (c: RouteCandidate) => c.card === 'cached' || c.card === 'fetched';
  if (policy === 'first') {
    const pick = candidates.find(usable);
    for (const c of candidates)
      c.reason = !usable(c) ? `no usable card (${c.card})` : c === pick ? 'lowest rank with a usable card' : `rank ${c.rank} comes after rank ${pick?.rank}`;
    if (pick) pick.chosen = true;
  } else if (policy === 'round-robin') {
    cursor = input.cursor ?? Number(group?.metadata.round_robin_cursor ?? 0);
    const index = cursor % candidates.length;
    next = cursor + 1;
    candidates.forEach((c, i) => {
      c.chosen = i === index;
      c.reason = c.chosen ? `cursor ${cursor} % ${candidates.length} members = position ${index}` : `position ${i}, not ${index}`;
    });
  } else {
    for (const c of candidates) {
      c.chosen = c.missing.length === 0;
      c.reason = c.chosen ? `has ${c.matched.join(', ')}` : `lacks ${c.missing.join(', ')}`;
    }
  }
  return {
    policy,
    policy_source,
    group: group?.group_name ?? null,
    needs,
    chosen: candidates.filter((c) => c.chosen).map((c) => c.alias),
    candidates,
    cursor,
    next_round_robin_cursor: next,
    refreshed: input.refresh === true,
  };
}
