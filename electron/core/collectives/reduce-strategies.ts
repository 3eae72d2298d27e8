/**
 * The deterministic local reductions. Same inputs, same text, every time.
 *   summarise  one line per member: `- <rank> (<agent>, task <id>): <text>`
 *   vote       texts normalised (whitespace collapsed, lowercased); most votes wins; a tie goes to the
 *              lexicographically smallest normalised text
 *   merge      when every member produced JSON data parts: a deep merge in rank order (objects merged key by key,
 *              arrays concatenated, later ranks win on scalars); otherwise the texts, one `## rank (agent)` section each
 *   rank       by score descending, then rank: score is a numeric `score` in the member's message or task metadata,
 *              else its state (completed 3, input/auth-required 2, working/submitted 1, anything else 0)
 */
import { usageError } from '../../../shared/errors.js';
import type { MemberOutput } from './member-output.js';

export const STRATEGIES = ['summarise', 'vote', 'merge', 'rank', 'custom'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface ReduceContext {
  group: string;
  contextId: string;
  inputs: MemberOutput[];
}

const shown = (m: MemberOutput) =>
  m.text ??
  (m.artifacts.length
    ? `[artifact output: ${m.artifacts.map((a) => a.artifact_id).join(', ')}]`
    : m.data.length
      ? `[data] ${JSON.stringify(m.data.length === 1 ? m.data[0] : m.data)}`
      : '[no text output]');
const who = (m: MemberOutput) => `${m.rank} (${m.alias}${m.task_id ? `, task ${m.task_id}` : ''})`;

export function summarise(c: ReduceContext): string {
  return [`Summary for group '${c.group}' in context '${c.contextId}':`, ...c.inputs.map((m) => `- ${who(m)}: ${shown(m).replace(/\s*\n\s*/g, ' ')}`)].join(
    '\n',
  );
}

export const normaliseVote = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

export function vote(c: ReduceContext): string {
  const tallies = new Map<string, { original: string; voters: MemberOutput[] }>();
  for (const m of c.inputs) {
    if (!m.text) continue;
    const key = normaliseVote(m.text);
    const entry = tallies.get(key) ?? { original: m.text.trim(), voters: [] };
    entry.voters.push(m);
    tallies.set(key, entry);
  }
  if (tallies.size === 0)
    throw usageError('no_votes', 'vote needs at least one member with text output', 'Use --strategy merge or summarise for artifact-only outputs.');
  const ordered = [...tallies.entries()].sort(([ka, a], [kb, b]) => b.voters.length - a.voters.length || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const [, winner] = ordered[0]!;
  const total = [...tallies.values()].reduce((n, t) => n + t.voters.length, 0);
  return [
    `Vote result: "${winner.original}" received ${winner.voters.length} of ${total} vote(s).`,
    ...ordered.map(([, t]) => `- "${t.original}": ${t.voters.length} (${t.voters.map((v) => `${v.rank} ${v.alias}`).join(', ')})`),
  ].join('\n');
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function deepMerge(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isPlainObject(a) && isPlainObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? deepMerge(out[k], v) : v;
    return out;
  }
  return b;
}

export function merge(c: ReduceContext): string {
  if (c.inputs.length > 0 && c.inputs.every((m) => m.data.length > 0)) {
    const merged = c.inputs.flatMap((m) => m.data).reduce((acc, d) => deepMerge(acc, d));
    return JSON.stringify(merged, null, 2);
  }
  return [`Merged outputs for group '${c.group}' in context '${c.contextId}':`, ...c.inputs.map((m) => `\n## ${m.rank} (${m.alias})\n\n${shown(m)}`)].join(
    '\n',
  );
}

const STATE_SCORE: Record<string, number> = { completed: 3, input_required: 2, auth_required: 2, working: 1, submitted: 1 };
export const scoreOf = (m: MemberOutput) => m.score ?? (m.task_id ? (STATE_SCORE[m.state ?? ''] ?? 0) : 3);

export function rank(c: ReduceContext): string {
  const ordered = [...c.inputs].sort((a, b) => scoreOf(b) - scoreOf(a) || a.rank - b.rank || a.alias.localeCompare(b.alias));
  return [
    `Ranking for group '${c.group}' in context '${c.contextId}':`,
    ...ordered.map((m, i) => `${i + 1}. ${m.rank} (${m.alias}) — score ${scoreOf(m)} — ${shown(m).replace(/\s*\n\s*/g, ' ')}`),
  ].join('\n');
}

export function localReduction(strategy: Strategy, c: ReduceContext): string {
  switch (strategy) {
    case 'vote':
      return vote(c);
    case 'merge':
      return merge(c);
    case 'rank':
      return rank(c);
    default:
      return summarise(c);
  }
}

/** `{{inputs}}`: one block per member with its status, task, counts and text. */
export function inputsBlock(c: ReduceContext): string {
  return c.inputs
    .map((m) =>
      [
        `### ${m.rank} (${m.alias})`,
        `status: ${m.status}; task: ${m.task_id ?? 'none'}; state: ${m.state ?? '-'}; messages: ${m.message_count}; artifacts: ${m.artifacts.length}`,
        '',
        shown(m),
      ].join('\n'),
    )
    .join('\n\n');
}

export function renderTemplate(template: string, c: ReduceContext & { strategy: Strategy; defaultReduction: string }): string {
  const values: Record<string, string> = {
    group: c.group,
    context_id: c.contextId,
    strategy: c.strategy,
    input_count: String(c.inputs.filter((m) => m.status === 'gathered').length),
    inputs: inputsBlock(c),
    default_reduction: c.defaultReduction,
  };
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (m, key: string) => values[key] ?? m);
}

const INSTRUCTIONS: Record<Strategy, string> = {
  summarise: 'Summarise what the members said in a few sentences.',
  vote: 'Decide which answer most members agree on and say so.',
  merge: 'Merge the outputs into one coherent result without losing information.',
  rank: 'Rank the outputs from most to least useful, with a reason for each.',
  custom: 'Reduce the outputs as instructed.',
};

export const defaultPrompt = (c: ReduceContext & { strategy: Strategy; defaultReduction: string }) =>
  [
    `You are reducing outputs for missive group '${c.group}' in context '${c.contextId}'.`,
    `Strategy: ${c.strategy}. ${INSTRUCTIONS[c.strategy]}`,
    '',
    'Inputs:',
    '',
    inputsBlock(c),
    '',
    'Local baseline:',
    '',
    c.defaultReduction,
  ].join('\n');
