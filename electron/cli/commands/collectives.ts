/** bcast, scatter, barrier, gather, reduce and round: presentation of the collective services. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command, type OptionValues } from 'commander';
import { usageError } from '../../../shared/errors.js';
import { bcast, readScatterInputs, scatter } from '../../core/collectives/bcast.js';
import { barrier, barrierError } from '../../core/collectives/barrier.js';
import { fanOutError } from '../../core/collectives/fan-out.js';
import { gather, gatherMarkdown, type GatherResult } from '../../core/collectives/gather.js';
import { reduce } from '../../core/collectives/reduce.js';
import { round, roundError, type RoundResult } from '../../core/collectives/round.js';
import { parseDuration } from '../../core/config/duration.js';
import type { Action, CommandContext } from '../command-context.js';
import { collect, integer } from '../options.js';
import { barrierText, fanOutText, reduceText, stepText } from '../collective-text.js';
import { MemberProgress } from '../progress.js';
import { addMessageInputOptions, messageInputsOf } from '../message-options.js';
import {
  addContextTargetOptions,
  addFanOutOptions,
  addReduceOptions,
  addReduceTargetOptions,
  addViaJobsOption,
  fanOutFlags,
  checkViaJobs,
  reduceInputOf,
} from '../collective-options.js';
import { collectiveContextId } from '../../core/collectives/bcast-document.js';

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

/** The context of a gather or reduce: `--from-bcast`'s document (read from a file or stdin) or `--context`. */
async function targetContext(ctx: CommandContext, command: string, group: string, o: { context?: string; fromBcast?: string }): Promise<string> {
  const doc = o.fromBcast ? await readBcastDoc(o.fromBcast, ctx) : undefined;
  return collectiveContextId(ctx.core, command, group, { contextId: o.context, fromBcast: doc });
}

export function registerCollectiveCommands(program: Command, action: Action): void {
  addViaJobsOption(
    addFanOutOptions(
      addMessageInputOptions(
        program.command('bcast <group> [message]').description('send one message to every member (one shared context, a fresh message id each)'),
      ),
    ),
  ).action(
    action(async (ctx, name: string, message: string | undefined, o: OptionValues) => {
      await checkViaJobs(ctx.core, 'bcast', o);
      const run = fanOutRun(ctx);
      const { agent: _, contextId, ...inputs } = await messageInputsOf('', message, o, ctx.deps);
      const result = await bcast(ctx.core, inputs, { group: name, contextId, ...fanOutFlags(o), onMember: run.onMember }).finally(run.done);
      return ctx.out.outcome('bcast_result', result, fanOutText, fanOutError);
    }),
  );

  addViaJobsOption(
    addFanOutOptions(
      program
        .command('scatter <group>')
        .description('deal inputs out: input i goes to member i mod N, one shared context')
        .requiredOption('--inputs <file>', 'JSON array (strings → text, other values → data parts) or one input per line')
        .option('--context <id>', 'A2A contextId to continue')
        .option('--metadata <k=v>', 'non-secret message metadata (repeatable)', collect, [])
        .option('--accepted-output-mode <mime>', 'acceptable output media type (repeatable)', collect, []),
    ),
  ).action(
    action(async (ctx, name: string, o: OptionValues) => {
      await checkViaJobs(ctx.core, 'scatter', o);
      const run = fanOutRun(ctx);
      const items = readScatterInputs(o.inputs, ctx.deps.cwd, ctx.core.config.qos.maxRequestBytes);
      const result = await scatter(
        ctx.core,
        items,
        { cwd: ctx.deps.cwd, metadata: o.metadata, acceptedOutputModes: o.acceptedOutputMode },
        { group: name, contextId: o.context, ...fanOutFlags(o), onMember: run.onMember },
      ).finally(run.done);
      return ctx.out.outcome('scatter_result', result, fanOutText, fanOutError);
    }),
  );

  program
    .command('barrier <group>')
    .description("wait until the members' tasks in a context reach the target states; exit 0 quorum, 80 failed, 81 cancelled, 82 timeout")
    .option('--context <id>', 'the context to wait on')
    .option('--from-bcast <path|->', 'take task ids from a `bcast --json` document')
    .option('--state <state>', 'target and success state (repeatable; default: terminal states, only completed succeeds)', collect, [])
    .option('--required <n>', 'quorum, 1 to 10000 (default: every member; with --from-bcast, the members it reached)', integer('--required', 1, 10_000))
    .addOption(
      new Option('--failure-policy <policy>', 'stop: any failure decides; continue: only the quorum does').choices(['stop', 'continue']).default('stop'),
    )
    .option('--interval <duration>', 'poll interval, at most 5s (default 1s)')
    .option('--history-length <n>', 'history messages to ask for on GetTask (0 to 1000000)', integer('--history-length', 0, 1_000_000))
    .option('--local', 'read the store only, no GetTask')
    .action(
      action(async (ctx, name: string, o: OptionValues) => {
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

  addContextTargetOptions(
    program.command('gather <group>').description("collect each member's latest output in a context from the local journal (no network)"),
    'gather',
    { fromBcast: true },
  )
    .option('--output-dir <dir>', 'also export the artifacts, rank-prefixed')
    .option('--force', 'overwrite existing files in --output-dir')
    .action(
      action(async (ctx, name: string, o: { context?: string; fromBcast?: string; outputDir?: string; force?: boolean }) => {
        const contextId = await targetContext(ctx, 'gather', name, o);
        return ctx.out.result(
          'gather_result',
          await gather(ctx.core, { group: name, contextId, outputDir: o.outputDir, force: o.force, cwd: ctx.deps.cwd }),
          (r: GatherResult) => gatherMarkdown(r),
        );
      }),
    );

  addReduceTargetOptions(program.command('reduce <group>').description("reduce the members' outputs in a context to one result, recorded as a local message"), {
    fromBcast: true,
  }).action(
    action(async (ctx, name: string, o: OptionValues) => {
      const contextId = await targetContext(ctx, 'reduce', name, o);
      return ctx.out.result('reduce_result', await reduce(ctx.core, { ...reduceInputOf(name, o, ctx.deps.cwd), contextId }), reduceText);
    }),
  );

  addReduceOptions(
    addViaJobsOption(
      addFanOutOptions(
        addMessageInputOptions(program.command('round <group> [message]').description('bcast → barrier → gather → reduce in one context, with one summary')),
      ),
    ),
  ).action(
    action(async (ctx, name: string, message: string | undefined, o: OptionValues) => {
      await checkViaJobs(ctx.core, 'round', o);
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
      return ctx.out.outcome(
        'round_result',
        result,
        (r: RoundResult) => `round ${r.status} in context ${r.context_id}${r.error ? `: ${r.error.message}` : ''}`,
        roundError,
      );
    }),
  );
}
