/**
 * Collectives over groups as tools: list_groups, bcast, round (bcast → barrier → gather → reduce), gather and reduce.
 * They call the collective services as `missive bcast|round|gather|reduce` and the desktop app do; each member's
 * settling is sent as a progress notification when the client asked for progress.
 */
import { z } from 'zod';
import type { Core } from '../../handle.js';
import { listGroups, requireGroup } from '../../collectives/groups.js';
import { bcast } from '../../collectives/bcast.js';
import { round, roundError, type RoundResult } from '../../collectives/round.js';
import { gather } from '../../collectives/gather.js';
import { reduce, type ReduceResult } from '../../collectives/reduce.js';
import { STRATEGIES } from '../../collectives/reduce-strategies.js';
import { MissiveError } from '../../../../shared/errors.js';
import type { FanOutResult, MemberResult } from '../../collectives/fan-out.js';
import { defineTool, type ToolContext, type ToolSpec } from '../tool-spec.js';
import { answersContent, answersData, readMemberAnswers } from '../collective-answers.js';
import type { ContentBlock } from '../parts.js';

const group = z.string().min(1).describe("The group's name, as list_groups shows it.");
const text = z.string().min(1).describe('The message text every member receives.');
const contextId = z.string().min(1).describe('The A2A context (its id, or a local context name) the collective ran in, as bcast or round answered it.');
const failurePolicy = z
  .enum(['stop', 'continue'])
  .optional()
  .describe('stop: members not yet sent are skipped once one fails or times out; continue (default): every member is sent to.');
const timeoutSeconds = z
  .number()
  .int()
  .min(1)
  .max(3600)
  .optional()
  .describe("One deadline, in seconds, for every member's answer (default: missive's --timeout).");
const strategy = z
  .enum(STRATEGIES)
  .optional()
  .describe(
    'How the answers become one: summarise (default: every answer, in rank order), vote (the most common answer), merge (data parts merged), rank (by a score the agents gave), custom (needs template).',
  );
const reducerAgent = z
  .string()
  .min(1)
  .optional()
  .describe("An agent's alias: the prompt built from the answers is sent to it and its reply is the result (else missive reduces locally).");
const template = z
  .string()
  .min(1)
  .optional()
  .describe(
    "The reduction's text (with strategy custom), or the reducer agent's prompt: placeholders {{group}}, {{context_id}}, {{strategy}}, {{input_count}}, {{inputs}} (every answer, rank by rank) and {{default_reduction}} (the strategy's own result).",
  );

/** The core with the call's own deadline, as the desktop app's collectives take it. */
const timed = (core: Core, seconds: number | undefined): Core => (seconds ? { ...core, timeoutMs: seconds * 1000 } : core);

/**
 * Progress notifications in the order they were reported, each sent after the one before; `flush` waits for them all,
 * so none arrives after the result (a client drops progress that follows its call's answer).
 */
function progressQueue(ctx: ToolContext) {
  let chain = Promise.resolve();
  return {
    report: (message: string, progress?: number, total?: number) =>
      void (chain = chain.then(() => ctx.progress(message, progress, total)).catch(() => undefined)),
    flush: () => chain,
  };
}

/** Reports each member as its send settles: `echo: succeeded (completed)`, counted out of the group's size. */
function memberProgress(report: ReturnType<typeof progressQueue>['report'], total: number) {
  let settled = 0;
  return (m: MemberResult) => {
    if (m.status === 'running' || m.status === 'pending') return;
    settled++;
    const detail = m.error ? `: ${m.error.message}` : m.state ? ` (${m.state})` : '';
    report(`${m.alias}: ${m.status}${detail}`, settled, total);
  };
}

const countsText = (r: FanOutResult) =>
  `${r.counts.succeeded} of ${r.members.length} member(s) answered${r.counts.failed ? `, ${r.counts.failed} failed` : ''}${r.counts.timeout ? `, ${r.counts.timeout} timed out` : ''}${r.counts.skipped ? `, ${r.counts.skipped} skipped` : ''}`;

const reducedText = (r: ReduceResult) =>
  `Reduced (${r.strategy}, ${r.reducer.method === 'agent' ? `by agent ${r.reducer.agent}` : r.reducer.method}; ${r.counts.inputs} input(s)):\n${r.reduced_text}`;

const listGroupsTool = defineTool({
  name: 'list_groups',
  title: 'List agent groups',
  description:
    "Lists the groups of agents (named, ranked sets of registered agents) that bcast, round, gather and reduce run over, with each group's members in rank order.",
  input: z.strictObject({}),
  annotations: { title: 'List agent groups', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(_args, { core }) {
    const groups = [];
    for (const row of (await listGroups(core)).slice(0, 500)) {
      const full = await requireGroup(core, row.group_name);
      groups.push({ group: full.group_name, notes: full.notes, members: full.members.map((m) => ({ alias: m.agent_alias, rank: m.rank })) });
    }
    const lines = groups.map(
      (g) => `${g.group}: ${g.members.map((m) => `#${m.rank} ${m.alias}`).join(', ') || '(no members)'}${g.notes ? ` — ${g.notes}` : ''}`,
    );
    return {
      content: [{ type: 'text', text: lines.join('\n') || 'No groups. The user creates one with: missive group create <name> --member <alias> …' }],
      structuredContent: { groups },
    };
  },
});

const bcastTool = defineTool({
  name: 'bcast',
  title: 'Broadcast to a group',
  description: [
    'Sends the same message to every member of a group at once, in one shared A2A context, and answers with each',
    "member's state and answer text (and artifacts). Members that answer with a task still running show its state: use",
    'gather later with the same context_id, or round to wait for everyone and reduce the answers to one.',
  ].join(' '),
  input: z.strictObject({
    group,
    text,
    context_id: z.string().min(1).optional().describe('Continue this A2A context (id or local name); default: a new context for this broadcast.'),
    failure_policy: failurePolicy,
    execution: z
      .enum(['concurrent', 'sequential'])
      .optional()
      .describe('concurrent (default): all members at once; sequential: one after another, in rank order.'),
    timeout_seconds: timeoutSeconds,
  }),
  annotations: { title: 'Broadcast to a group', readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  taskSupport: true,
  async run(args, ctx) {
    const { core, cwd } = ctx;
    const size = (await requireGroup(core, args.group)).members.length;
    const progress = progressQueue(ctx);
    const result = await bcast(
      timed(core, args.timeout_seconds),
      { text: args.text, cwd },
      {
        group: args.group,
        contextId: args.context_id,
        execution: args.execution,
        failurePolicy: args.failure_policy,
        onMember: memberProgress(progress.report, size),
      },
    );
    await progress.flush();
    const contextId = result.request.context_id;
    const answers = await readMemberAnswers(core, contextId, result.members);
    const content: ContentBlock[] = [
      { type: 'text', text: `bcast to group ${result.group}: ${result.status}; ${countsText(result)}. context_id: ${contextId}` },
      ...answersContent(answers, result.members),
    ];
    const failed = result.counts.succeeded === 0;
    const error = failed
      ? new MissiveError('orchestration', `bcast_${result.status}`, `no member of "${result.group}" answered`, { exitCode: result.exit_code || 70 })
      : null;
    return {
      ...(failed ? { isError: true } : {}),
      content,
      structuredContent: { bcast: result, answers: answersData(answers), ...(error ? { error: error.toReport() } : {}) },
    };
  },
});

function roundContent(r: RoundResult, answers: Awaited<ReturnType<typeof readMemberAnswers>>): ContentBlock[] {
  const barrier = r.barrier ? `; barrier ${r.barrier.status} (${r.barrier.quorum.satisfied} of ${r.barrier.quorum.required} required)` : '';
  const content: ContentBlock[] = [
    { type: 'text', text: `round over group ${r.group}: ${r.status}; ${countsText(r.bcast)}${barrier}. context_id: ${r.context_id}` },
    ...answersContent(answers, r.bcast.members),
  ];
  if (r.reduce) content.push({ type: 'text', text: reducedText(r.reduce) });
  else if (r.error) content.push({ type: 'text', text: `Not reduced: ${r.error.message}` });
  return content;
}

const roundTool = defineTool({
  name: 'round',
  title: 'Run a round over a group',
  description: [
    'Asks every member of a group the same question and gives one combined answer: broadcasts the message (bcast),',
    "waits until the members' tasks settle or the quorum is met (barrier), collects each member's answer (gather) and",
    "reduces them to one result (reduce: locally, or by a reducer agent). Answers with each member's answer and the",
    'reduced result. Use it for "ask them all and summarise / vote".',
  ].join(' '),
  input: z.strictObject({
    group,
    text,
    context_id: z.string().min(1).optional().describe('Continue this A2A context (id or local name); default: a new context for this round.'),
    strategy,
    reducer_agent: reducerAgent,
    template,
    quorum: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('How many members must settle before gathering (default: every member the broadcast reached).'),
    failure_policy: failurePolicy,
    timeout_seconds: timeoutSeconds,
  }),
  annotations: { title: 'Run a round over a group', readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  taskSupport: true,
  async run(args, ctx) {
    const { core, cwd } = ctx;
    const size = (await requireGroup(core, args.group)).members.length;
    const progress = progressQueue(ctx);
    const result = await round(timed(core, args.timeout_seconds), {
      group: args.group,
      contextId: args.context_id,
      inputs: { text: args.text, cwd },
      failurePolicy: args.failure_policy,
      reduce: { strategy: args.strategy, reducerAgent: args.reducer_agent, template: args.template },
      barrier: args.quorum !== undefined ? { required: args.quorum } : undefined,
      cwd,
      onMember: memberProgress(progress.report, size),
      onStep: (step, value) => {
        const status = (value as { status?: string }).status;
        if (step !== 'bcast') progress.report(`${step}${status ? `: ${status}` : ` done`}`);
      },
    });
    await progress.flush();
    const members = result.gather?.members ?? result.bcast.members;
    const answers = await readMemberAnswers(core, result.context_id, members);
    const failed = result.status === 'failed';
    return {
      ...(failed ? { isError: true } : {}),
      content: roundContent(result, answers),
      structuredContent: { round: result, answers: answersData(answers), ...(failed ? { error: roundError(result).toReport() } : {}) },
    };
  },
});

const gatherTool = defineTool({
  name: 'gather',
  title: "Gather a group's answers",
  description: [
    "Collects each member's latest answer in a context (after a bcast, or a round) from missive's local journal, without",
    'contacting the agents: per member its state, answer text and artifacts, or that it has none yet. Use it after bcast',
    "once the members' tasks have had time to finish.",
  ].join(' '),
  input: z.strictObject({ group, context_id: contextId }),
  annotations: { title: "Gather a group's answers", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { core, cwd }) {
    const result = await gather(core, { group: args.group, contextId: args.context_id, cwd });
    const answers = await readMemberAnswers(core, result.context_id, result.members);
    const counts = `${result.counts.gathered} gathered, ${result.counts.missing_task} without an answer, ${result.counts.empty_output} empty`;
    return {
      content: [{ type: 'text', text: `gather of group ${result.group} in context ${result.context_id}: ${counts}` }, ...answersContent(answers)],
      structuredContent: { gather: result, answers: answersData(answers) },
    };
  },
});

const reduceTool = defineTool({
  name: 'reduce',
  title: "Reduce a group's answers to one",
  description: [
    "Combines the members' answers in a context (after a bcast or a round) into one result: locally by a strategy",
    '(summarise, vote, merge, rank, custom with a template), or by sending them to a reducer agent. The result is',
    'recorded in the context with which member contributed what.',
  ].join(' '),
  input: z.strictObject({
    group,
    context_id: contextId,
    strategy,
    reducer_agent: reducerAgent,
    template,
  }),
  annotations: { title: "Reduce a group's answers to one", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, { core, cwd }) {
    const result = await reduce(core, {
      group: args.group,
      contextId: args.context_id,
      strategy: args.strategy,
      reducerAgent: args.reducer_agent,
      template: args.template,
      cwd,
    });
    const sources = result.provenance.map((p) => `#${p.rank} ${p.agent}: ${p.status}`).join(', ');
    return {
      content: [{ type: 'text', text: `${reducedText(result)}\n\nfrom: ${sources}` }],
      structuredContent: { reduce: result },
    };
  },
});

export const COLLECTIVE_TOOLS: readonly ToolSpec[] = [listGroupsTool, bcastTool, roundTool, gatherTool, reduceTool];
