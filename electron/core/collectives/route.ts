/**
 * `route explain`: which member(s) a policy would choose and why. A dry run from cached Agent Cards (refreshed only
 * with `refresh`); nothing is sent.
 *   first            the lowest-ranked candidate with a usable card
 *   round-robin      candidate `cursor % n` (cursor from --cursor, else the group's stored cursor), reporting the next
 *   capability-match every candidate holding all --need labels, in rank order, with what each lacks
 * Each candidate names the interface a call would use and why (the negotiation `agent inspect` makes); one whose card
 * has no interface missive can call is never chosen.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { capabilityView } from '../a2a/capabilities.js';
import { parseCard } from '../a2a/card.js';
import type { NegotiatedInterface } from '../a2a/interfaces.js';
import { cachedSelection, loadCard, selectInterface } from '../agents/discovery.js';
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
  /** The interface a call would use and why, or null (no usable card, or `interface_error`). */
  interface: NegotiatedInterface | null;
  /** Why no interface of the card can be called, when it has none. */
  interface_error: string | null;
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

type CardFacts = Pick<RouteCandidate, 'card' | 'labels' | 'interface' | 'interface_error'>;

/** What the candidate's card offers, and the interface a call would use (selectInterface, as every call). */
async function labelsOf(core: Core, alias: string, refresh: boolean): Promise<CardFacts> {
  const agent = await requireAgent(core, alias);
  const none = { interface: null, interface_error: null };
  const negotiate = (pick: () => NegotiatedInterface): Pick<CardFacts, 'interface' | 'interface_error'> => {
    try {
      return { interface: pick(), interface_error: null };
    } catch (error) {
      return { interface: null, interface_error: error instanceof Error ? error.message : String(error) };
    }
  };
  try {
    if (refresh) {
      const result = await loadCard(core, alias, true);
      return { card: 'fetched', labels: capabilityView(result.card, result.agent.metadata).labels, ...negotiate(() => selectInterface(core, result)) };
    }
    if (!agent.card) return { card: 'missing', labels: capabilityView(null, agent.metadata).labels, ...none };
    const { selected_interface, interface_error } = cachedSelection(core, agent);
    const labels = capabilityView(parseCard(agent.card.json), agent.metadata).labels;
    return { card: 'cached', labels, interface: selected_interface, interface_error: interface_error?.message ?? null };
  } catch {
    return { card: 'error', labels: [], ...none };
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
    const facts = await labelsOf(core, m.alias, input.refresh === true);
    const { card, labels } = facts;
    const matched = needs.filter((n) => labels.includes(n));
    const missing = needs.filter((n) => !labels.includes(n)).map((n) => (card === 'missing' || card === 'error' ? `${n}:unknown` : n));
    candidates.push({ alias: m.alias, rank: m.rank, ...facts, matched, missing, chosen: false, reason: '' });
  }

  let cursor: number | null = null;
  let next: number | null = null;
  const hasCard = (c: RouteCandidate) => c.card === 'cached' || c.card === 'fetched';
  // A card whose interfaces missive cannot call is no usable card: a call to it would fail.
  const usable = (c: RouteCandidate) => hasCard(c) && !c.interface_error;
  const unusable = (c: RouteCandidate) => (hasCard(c) ? `no interface missive can call (${c.interface_error})` : `no usable card (${c.card})`);
  if (policy === 'first') {
    const pick = candidates.find(usable);
    for (const c of candidates)
      c.reason = !usable(c) ? unusable(c) : c === pick ? 'lowest rank with a usable card' : `rank ${c.rank} comes after rank ${pick?.rank}`;
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
      c.chosen = c.missing.length === 0 && !c.interface_error;
      c.reason = c.missing.length ? `lacks ${c.missing.join(', ')}` : c.interface_error ? unusable(c) : `has ${c.matched.join(', ')}`;
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
