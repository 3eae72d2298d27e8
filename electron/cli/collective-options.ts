/** The flags of fan-outs (bcast, scatter, round, `job start bcast`) and of reductions (reduce, round, `job start reduce`). */
import { sendThroughQueue } from '../core/jobs/fan-out-queue.js';
import { Option, type Command, type OptionValues } from 'commander';
import { collect, integer } from './options.js';
import type { Core } from '../core/handle.js';
import { MissiveError } from '../../shared/errors.js';

export const addFanOutOptions = (cmd: Command) =>
  cmd
    .addOption(new Option('--execution <mode>', 'send to members concurrently or one by one').choices(['concurrent', 'sequential']).default('concurrent'))
    .option('--max-concurrency <n>', 'members in flight at once, 1 to 10000 (default 16)', integer('--max-concurrency', 1, 10_000))
    .addOption(
      new Option('--failure-policy <policy>', 'stop: no new sends after a failure (exit 70); continue: send to all, exit 0 if any succeeded')
        .choices(['stop', 'continue'])
        .default('stop'),
    );

/** `--via-jobs`: the members' sends go on the shared job queue, for the gateways (on any host) to make. */
export const addViaJobsOption = (cmd: Command) =>
  cmd.option(
    '--via-jobs',
    "put each member's send on the job queue: the running gateways (any host) send, this command waits and prints the same summary; refused (exit 70) when no gateway runs",
  );

/**
 * `--via-jobs` hands the sends to the gateways: with none running for the profile nothing would make them, and the
 * command would wait out its whole deadline. It is refused before anything is queued or journaled (exit 70), by the
 * check `job start` warns with (gateway.ts's `gatewayRuns`: SQLite's lease holder, a shared store's pool).
 */
export async function checkViaJobs(core: Core, command: string, o: OptionValues): Promise<void> {
  if (!o.viaJobs) return;
  const { gatewayRuns } = await import('../core/gateway/gateway.js');
  if (await gatewayRuns(core)) return;
  throw new MissiveError(
    'orchestration',
    'no_gateway',
    `${command} --via-jobs needs a running gateway, and none runs for profile "${core.config.profile}": nothing was queued or sent`,
    {
      help: 'Start one: `missive gateway run` (or `missive gateway install` for a service), on this host or any host of the shared store; `missive gateway status` lists those that run. Or leave out --via-jobs to send from this process.',
    },
  );
}

/** The fan-out settings the parsed options hold. */
export const fanOutFlags = (o: OptionValues) => ({
  execution: o.execution,
  maxConcurrency: o.maxConcurrency,
  failurePolicy: o.failurePolicy,
  viaJobs: o.viaJobs ? sendThroughQueue : undefined,
});

export const addReduceOptions = (cmd: Command) =>
  cmd
    .addOption(
      new Option('--strategy <strategy>', 'local reduction or the instruction for a reducer')
        .choices(['summarise', 'summarize', 'vote', 'merge', 'rank', 'custom'])
        .default('summarise'),
    )
    .option('--template <text>', 'prompt/result template: {{group}} {{context_id}} {{strategy}} {{input_count}} {{inputs}} {{default_reduction}}')
    .option('--reducer-agent <alias>', 'send the prompt to this agent (normal send path)')
    .option('--command <cmd>', 'pipe the prompt to this local command (sh -c) and use its stdout');

/** `--context ID` (required) or, with `fromBcast`, `--context ID` or `--from-bcast PATH|-`: the context a gather or reduce reads. */
export const addContextTargetOptions = (cmd: Command, verb: string, { fromBcast = false } = {}) =>
  fromBcast
    ? cmd
        .option('--context <id>', `the context to ${verb} (or --from-bcast)`)
        .option('--from-bcast <path|->', 'the context of a `bcast --json` document, as barrier takes it')
    : cmd.requiredOption('--context <id>', `the context to ${verb}`);

/** `reduce <group> --context ID` (`--from-bcast PATH|-` too with `fromBcast`) and what a reducer agent is sent with. */
export const addReduceTargetOptions = (cmd: Command, options: { fromBcast?: boolean } = {}) =>
  addContextTargetOptions(addReduceOptions(cmd), 'reduce', options)
    .option('--metadata <k=v>', 'extra non-secret metadata for --reducer-agent (repeatable)', collect, [])
    .option('--accepted-output-mode <mime>', 'for --reducer-agent (repeatable; default text/plain)', collect, []);

/** The core's ReduceInput from `reduce`'s parsed options. */
export const reduceInputOf = (group: string, o: OptionValues, cwd: string) => ({
  group,
  contextId: o.context as string,
  strategy: o.strategy as string | undefined,
  template: o.template as string | undefined,
  reducerAgent: o.reducerAgent as string | undefined,
  command: o.command as string | undefined,
  metadata: o.metadata as string[] | undefined,
  acceptedOutputModes: o.acceptedOutputMode as string[] | undefined,
  cwd,
});
