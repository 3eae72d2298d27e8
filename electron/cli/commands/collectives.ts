/** bcast, scatter, barrier, gather, reduce and round: presentation of the collective services. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { usageError } from '../../../shared/errors.js';
import { bcast, readScatterInputs, scatter } from '../../core/collectives/bcast.js';
import { barrier, barrierError, type BarrierResult } from '../../core/collectives/barrier.js';
import { fanOutError, type FanOutResult } from '../../core/collectives/fan-out.js';
import { gather, gatherMarkdown, type GatherResult } from '../../core/collectives/gather.js';
import { reduce, type ReduceResult } from '../../core/collectives/reduce.js';
import { round, roundError, type RoundResult } from '../../core/collectives/round.js';
import { parseDuration } from '../../core/config/duration.js';
import { collect, integer, type Action, type CommandContext } from '../program.js';
import { table } from '../human.js';
import { MemberProgress } from '../progress.js';
import { addMessageInputOptions, messageInputsOf } from './send.js';

const fanOutOptions = (cmd: Command) =>
  cmd
    .addOption(new Option('--execution <mode>', 'send to members concurrently or one by one').choices(['concurrent', 'sequential']).default('concurrent'))
    .option('--max-concurrency <n>', 'members in flight at once, 1 to 10000 (default 16)', integer('--max-concurrency', 1, 10_000))
    .addOption(new Option('--failure-policy <policy>', 'stop: no new sends after a failure (exit 70); continue: send to all, exit 0 if any succeeded').choices(['stop', 'continue']).default('stop'));

export const fanOutText = (r: FanOutResult) =>
  [
    table(
      ['RANK', 'AGENT', ...(r.kind === 'scatter' ? ['INPUT'] : []), 'STATUS', 'STATE', 'LATENCY', 'TASK / ERROR'],
      r.members.map((m) => [
        String(m.rank),
        m.alias,
        ...(r.kind === 'scatter' ? [String(m.input_index)] : []),
        m.status,
        m.state ?? (m.response_shape === 'message' ? 'message' : '-'),
        m.latency_ms === null ? '-' : `${m.latency_ms} ms`,
        m.error ? m.error.message : (m.task_id ?? '-'),
      ]),
    ),
    '',
    `${r.kind} ${r.status}: ${r.counts.succeeded} succeeded, ${r.counts.failed} failed, ${r.counts.timeout} timed out, ${r.counts.skipped} skipped in ${r.elapsed_ms} ms`,
    `context ${r.request.context_id}${r.request.context_created ? ' (new)' : ''}`,
  ].join('\n');

const barrierText = (r: BarrierResult) =>
  [
    table(['RANK', 'AGENT', 'STATUS', 'STATE', 'TASK', 'POLLS'], r.members.map((m) => [String(m.rank), m.alias, m.status, m.state ?? '-', m.task_id ?? '-', String(m.polls)])),
    '',
    `barrier ${r.status}: ${r.quorum.satisfied} of ${r.quorum.required} required satisfied after ${r.attempts} round(s), ${r.elapsed_ms} ms`,
  ].join('\n');

const reduceText = (r: ReduceResult) =>
  [r.reduced_text, '', `— ${r.strategy} by ${r.reducer.method}${r.reducer.agent ? ` (${r.reducer.agent})` : ''} over ${r.counts.inputs} of ${r.counts.members} member(s); recorded as message ${r.persistence.reduced_message_id}`].join('\n');

function fanOutRun(ctx: CommandContext) {
  const progress = MemberProgress.enabled(ctx.deps.io, ctx.out.mode) ? new MemberProgress(ctx.deps.io) : null;
  return {
    onMember: (m: Parameters<MemberProgress['update']>[0]) => {
      progress?.update(m);
      // NDJSON consumers (and the GUI) get every member transition; human output shows the summary table instead.
      ctx.out.event('member_progress', m, () => '');
    },
    done: () => progress?.finish(),
  };
}

const fanOutFlags = (o: Record<string, any>) => ({ execution: o.execution, maxConcurrency: o.maxConcurrency, failurePolicy: o.failurePolicy });

async function readBcastDoc(path: string, ctx: CommandContext): Promise<unknown> {
  let text: string;
  if (path === '-') {
    if (!ctx.deps.stdin) throw usageError('no_stdin', 'standard input is not available here');
    text = await ctx.deps.stdin();
  } else {
    try {
      text = readFileSync(resolve(ctx.deps.cwd, path), 'utf8');
    } catch (error) {
      throw usageError('bcast_unreadable', `cannot read --from-bcast ${path}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw usageError('invalid_bcast_document', `--from-bcast ${path} is not JSON; pass the output of \`missive bcast --json\``);
  }
}

export function registerCollectiveCommands(program: Command, action: Action): void {
  fanOutOptions(addMessageInputOptions(program.command('bcast <group> [message]').description('send one message to every member (one shared context, a fresh message id each)'))).action(
    action(async (ctx, name: string, message: string | undefined, o: Record<string, any>) => {
      const run = fanOutRun(ctx);
      const { agent: _, contextId, ...inputs } = await messageInputsOf('', message, o, ctx.deps);
      const result = await bcast(ctx.core, inputs, { group: name, contextId, ...fanOutFlags(o), onMember: run.onMember }).finally(run.done);
      return ctx.out.outcome('bcast_result', result, fanOutText, fanOutError);
    }),
  );

  fanOutOptions(
    program
      .command('scatter <group>')
      .description('deal inputs out: input i goes to member i mod N, one shared context')
      .requiredOption('--inputs <file>', 'JSON array (strings → text, other values → data parts) or one input per line')
      .option('--context <id>', 'A2A contextId to continue')
      .option('--metadata <k=v>', 'non-secret message metadata (repeatable)', collect, [])
      .option('--accepted-output-mode <mime>', 'acceptable output media type (repeatable)', collect, []),
  ).action(
    action(async (ctx, name: string, o: Record<string, any>) => {
      const run = fanOutRun(ctx);
      const items = readScatterInputs(o.inputs, ctx.deps.cwd, ctx.core.config.qos.maxRequestBytes);
      const result = await scatter(ctx.core, items, { cwd: ctx.deps.cwd, metadata: o.metadata, acceptedOutputModes: o.acceptedOutputMode }, { group: name, contextId: o.context, ...fanOutFlags(o), onMember: run.onMember }).finally(run.done);
      return ctx.out.outcome('scatter_result', result, fanOutText, fanOutError);
    }),
  );

  program
    .command('barrier <group>')
    .description("wait until the members' tasks in a context reach the target states; exit 0 quorum, 80 failed, 81 cancelled, 82 timeout")
    .option('--context <id>', 'the context to wait on')
    .option('--from-bcast <path|->', 'take task ids from a `bcast --json` document')
    .option('--state <state>', 'target and success state (repeatable; default: terminal states, only completed succeeds)', collect, [])
    .option('--required <n>', 'quorum, 1 to 10000 (default: every member)', integer('--required', 1, 10_000))
    .addOption(new Option('--failure-policy <policy>', 'stop: any failure decides; continue: only the quorum does').choices(['stop', 'continue']).default('stop'))
    .option('--interval <duration>', 'poll interval, at most 5s (default 1s)')
    .option('--history-length <n>', 'history messages to ask for on GetTask (0 to 1000000)', integer('--history-length', 0, 1_000_000))
    .option('--local', 'read SQLite only, no GetTask')
    .action(
      action(async (ctx, name: string, o: Record<string, any>) => {
        const doc = o.fromBcast ? await readBcastDoc(o.fromBcast, ctx) : undefined;
        const result = await barrier(ctx.core, {
          group: name,
          contextId: o.context,
          fromBcast: doc,
          states: o.state,
          required: o.required,
          failurePolicy: o.failurePolicy,
          intervalMs: o.interval ? parseDuration(o.interval, '--interval') : undefined,
          local: o.local,
          historyLength: o.historyLength,
        });
        return ctx.out.outcome('barrier_result', result, barrierText, barrierError);
      }),
    );

  program
    .command('gather <group>')
    .description("collect each member's latest output in a context from the local journal (no network)")
    .requiredOption('--context <id>', 'the context to gather')
    .option('--output-dir <dir>', 'also export the artifacts, rank-prefixed')
    .option('--force', 'overwrite existing files in --output-dir')
    .action(
      action(async ({ core, out, deps }, name: string, o: { context: string; outputDir?: string; force?: boolean }) =>
        out.result('gather_result', gather(core, { group: name, contextId: o.context, outputDir: o.outputDir, force: o.force, cwd: deps.cwd }), (r: GatherResult) => gatherMarkdown(r)),
      ),
    );

  const reduceOptions = (cmd: Command) =>
    cmd
      .addOption(new Option('--strategy <strategy>', 'local reduction or the instruction for a reducer').choices(['summarise', 'summarize', 'vote', 'merge', 'rank', 'custom']).default('summarise'))
      .option('--template <text>', 'prompt/result template: {{group}} {{context_id}} {{strategy}} {{input_count}} {{inputs}} {{default_reduction}}')
      .option('--reducer-agent <alias>', 'send the prompt to this agent (normal send path)')
      .option('--command <cmd>', 'pipe the prompt to this local command (sh -c) and use its stdout');

  reduceOptions(
    program
      .command('reduce <group>')
      .description("reduce the members' outputs in a context to one result, recorded as a local message")
      .requiredOption('--context <id>', 'the context to reduce')
      .option('--metadata <k=v>', 'extra non-secret metadata for --reducer-agent (repeatable)', collect, [])
      .option('--accepted-output-mode <mime>', 'for --reducer-agent (repeatable; default text/plain)', collect, []),
  ).action(
    action(async ({ core, out, deps }, name: string, o: Record<string, any>) =>
      out.result(
        'reduce_result',
        await reduce(core, { group: name, contextId: o.context, strategy: o.strategy, template: o.template, reducerAgent: o.reducerAgent, command: o.command, metadata: o.metadata, acceptedOutputModes: o.acceptedOutputMode, cwd: deps.cwd }),
        reduceText,
      ),
    ),
  );

  reduceOptions(fanOutOptions(addMessageInputOptions(program.command('round <group> [message]').description('bcast → barrier → gather → reduce in one context, with one summary')))).action(
    action(async (ctx, name: string, message: string | undefined, o: Record<string, any>) => {
      const run = fanOutRun(ctx);
      const { agent: _, contextId, ...inputs } = await messageInputsOf('', message, o, ctx.deps);
      const result = await round(ctx.core, {
        group: name,
        contextId,
        inputs,
        ...fanOutFlags(o),
        cwd: ctx.deps.cwd,
        reduce: { strategy: o.strategy, template: o.template, reducerAgent: o.reducerAgent, command: o.command },
        onMember: run.onMember,
        onStep: (step, r) => {
          if (step === 'bcast') run.done();
          ctx.out.event('round_step', { step, result: r }, (d) => `== ${d.step} ==\n${stepText(d.step, d.result)}\n`);
        },
      }).finally(run.done);
      return ctx.out.outcome('round_result', result, (r: RoundResult) => `round ${r.status} in context ${r.context_id}${r.error ? `: ${r.error.message}` : ''}`, roundError);
    }),
  );
}

export function stepText(step: string, r: unknown): string {
  if (step === 'bcast') return fanOutText(r as FanOutResult);
  if (step === 'barrier') return barrierText(r as BarrierResult);
  if (step === 'gather') return gatherMarkdown(r as GatherResult);
  return reduceText(r as ReduceResult);
}
