/** The flags of fan-outs (bcast, scatter, round, `job start bcast`) and of reductions (reduce, round, `job start reduce`). */
import { sendThroughQueue } from '../core/jobs/fan-out-queue.js';
import { Option, type Command, type OptionValues } from 'commander';
import { collect, integer } from './options.js';

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
  cmd.option('--via-jobs', "put each member's send on the job queue: the running gateways (any host) send, this command waits and prints the same summary");

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
