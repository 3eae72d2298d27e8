/**
 * `missive diff`: what changed between two outputs of gathered members — each member's output in round A against
 * round B (`--context A --context B`), or two members of one round against each other (`--members a,b`). The text
 * (what gather shows) is diffed line by line, the data parts as JSON, both redacted first. Read from the store only (no
 * agent is called), whichever engine holds it.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { contextIdOf } from '../contexts/service.js';
import { requireAgent } from '../agents/registry.js';
import { redactText, redactValue } from '../security/redact.js';

import { memberOutput, type GatherStatus } from '../collectives/member-output.js';
import { diffJson, type JsonChange } from './json-diff.js';
import { diffText, type TextDiff } from './text-diff.js';
import { roundMembers, type RoundMember } from './round-members.js';

export interface DiffSide {
  context_id: string;
  alias: string;
  rank: number | null;
  /** `absent`: the member was not in this round. */
  status: GatherStatus | 'absent';
  task_id: string | null;
  text_source: 'message' | 'status' | 'artifact' | null;
  text: string | null;
  data: unknown[];
}

export interface DiffPair {
  label: string;
  a: DiffSide;
  b: DiffSide;
  changed: boolean;
  text: TextDiff;
  data: { changed: boolean; changes: JsonChange[] };
}

export interface DiffResult {
  mode: 'rounds' | 'members';
  a: { context_id: string; member: string | null };
  b: { context_id: string; member: string | null };
  counts: { pairs: number; changed: number; unchanged: number };
  pairs: DiffPair[];
}

export interface DiffInput {
  contexts: string[];
  /** Rounds mode: only this member. */
  member?: string;
  /** Members mode: exactly two aliases of one round. */
  members?: string[];
  /** Whose members a round has, when its journal has no bcast or scatter. */
  group?: string;
}

async function sideOf(core: Core, contextId: string, member: RoundMember | null, alias: string): Promise<DiffSide> {
  if (!member) return { context_id: contextId, alias, rank: null, status: 'absent', task_id: null, text_source: null, text: null, data: [] };
  const o = await (await core.storage()).read(memberOutput(member, contextId));
  // Redacted before diffing: a secret under a secret-looking key shows as [REDACTED] on both sides, never as a change's value.
  return {
    context_id: contextId,
    alias,
    rank: member.rank,
    status: o.status,
    task_id: o.task_id,
    text_source: o.text_source,
    text: o.text === null ? null : redactText(o.text),
    data: redactValue(o.data),
  };
}

function pairOf(label: string, a: DiffSide, b: DiffSide): DiffPair {
  const text = diffText(a.text, b.text);
  const changes = diffJson(a.data, b.data);
  return { label, a, b, changed: text.changed || changes.length > 0 || a.status !== b.status, text, data: { changed: changes.length > 0, changes } };
}

export async function diffOutputs(core: Core, input: DiffInput): Promise<DiffResult> {
  const contexts: string[] = [];
  for (const c of input.contexts) contexts.push(await contextIdOf(core, c));
  let result: Omit<DiffResult, 'counts'>;
  if (input.members?.length) {
    if (contexts.length !== 1) throw usageError('diff_members_one_context', '--members compares two members of one round: give exactly one --context');
    if (input.members.length !== 2) throw usageError('diff_members_two', `--members takes exactly two aliases (a,b), not ${input.members.length}`);
    if (input.member) throw usageError('diff_conflicting_members', 'use --member (two rounds) or --members (one round), not both');
    const [x, y] = input.members as [string, string];
    for (const alias of [x, y]) await requireAgent(core, alias);
    const ranked = await roundMembersOrEmpty(core, contexts[0]!, input.group);
    const find = (alias: string) => ranked.find((m) => m.alias === alias) ?? { alias, rank: 0 };
    const pair = pairOf(`${x} vs ${y}`, await sideOf(core, contexts[0]!, find(x), x), await sideOf(core, contexts[0]!, find(y), y));
    if (!ranked.some((m) => m.alias === x)) pair.a.rank = null;
    if (!ranked.some((m) => m.alias === y)) pair.b.rank = null;
    result = { mode: 'members', a: { context_id: contexts[0]!, member: x }, b: { context_id: contexts[0]!, member: y }, pairs: [pair] };
  } else {
    if (contexts.length !== 2)
      throw usageError(
        'diff_needs_two_contexts',
        `diff compares two rounds: give --context A --context B (or one --context with --members a,b), not ${contexts.length} context(s)`,
      );
    const [ca, cb] = contexts as [string, string];
    const ma = await roundMembers(core, ca, input.group);
    const mb = await roundMembers(core, cb, input.group);
    const aliases = [...new Set([...ma, ...mb].map((m) => m.alias))];
    const chosen = input.member ? aliases.filter((a) => a === input.member) : aliases;
    if (input.member && chosen.length === 0)
      throw usageError('diff_member_not_in_rounds', `"${input.member}" took part in neither round`, `Members: ${aliases.join(', ')}`);
    const pairs: DiffPair[] = [];
    for (const alias of chosen) {
      const a = await sideOf(core, ca, ma.find((m) => m.alias === alias) ?? null, alias);
      pairs.push(pairOf(alias, a, await sideOf(core, cb, mb.find((m) => m.alias === alias) ?? null, alias)));
    }
    result = { mode: 'rounds', a: { context_id: ca, member: input.member ?? null }, b: { context_id: cb, member: input.member ?? null }, pairs };
  }
  const changed = result.pairs.filter((p) => p.changed).length;
  return { ...result, counts: { pairs: result.pairs.length, changed, unchanged: result.pairs.length - changed } };
}

/** Members mode needs ranks only for display: a context without a bcast still diffs its two members. */
async function roundMembersOrEmpty(core: Core, contextId: string, group?: string): Promise<RoundMember[]> {
  if (group) return roundMembers(core, contextId, group);
  try {
    return await roundMembers(core, contextId, group);
  } catch {
    return [];
  }
}
