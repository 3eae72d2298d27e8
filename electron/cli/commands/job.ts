/**
 * `missive job start send|stream|wait|reduce|bcast`, `job list|show|cancel|wait`: durable jobs the gateway executes.
 * `job start` checks the inputs, records the job and returns at once (`--attach` follows it to the end); the views
 * show each job's summary (kind, agent or group, parts count and bytes), never the request's text or a credential.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command, OptionValues } from 'commander';
import { usageError } from '../../../shared/errors.js';
import { attachJob, attachStoppedError, jobError, jobExitCode } from '../../core/jobs/attach.js';
import { startCheckedJob } from '../../core/jobs/credentials.js';
import { cancelJob, listJobs, showJob, JOB_STATES, type CancelResult, type JobView } from '../../core/jobs/queue.js';
import type { JobInput } from '../../core/jobs/requests.js';
import { startJobsFromFile, type FileJobKind, type StartedFromFile } from '../../core/jobs/job-file.js';
import type { SendInput } from '../../core/messaging/send.js';
import { gatewayRuns } from '../../core/gateway/gateway.js';
import type { Action, CommandContext } from '../command-context.js';
import { keyValues, table } from '../human.js';
import { addMessageInputOptions, messageInputsOf } from '../message-options.js';
import { integer } from '../options.js';
import { addFanOutOptions, addReduceTargetOptions, fanOutFlags, reduceInputOf } from '../collective-options.js';

/** Exit code of `--attach` / `job wait` stopped with Ctrl-C (128 + SIGINT): the job itself keeps running. */
const INTERRUPTED = 130;

const shortId = (id: string) => id.slice(0, 8);

/** What the job works on: its agent, its group, or the task it waits on. */
const targetOf = (j: JobView) => j.group ?? j.agent ?? j.summary?.task_id ?? '-';

const partsOf = (j: JobView) => (j.summary?.parts === undefined ? undefined : `${j.summary.parts} part(s), ${j.summary.bytes ?? 0} B`);

const attemptsOf = (j: JobView) => `${j.attempts} of ${j.max_attempts}`;

/** One line per job: the progress of `--attach` and the first line of `job start`. */
const jobLine = (j: JobView) =>
  `job ${shortId(j.job_id)} ${j.kind} ${targetOf(j)}: ${j.state}${j.attempts ? ` (attempt ${attemptsOf(j)})` : ''}${j.task_id ? ` task ${j.task_id}` : ''}${j.state === 'retrying' && j.last_error ? ` — ${j.last_error}` : ''}`;

/** The answer text an execution recorded, if any (the agent's or the reducer's output, never the request). */
const answerOf = (j: JobView) => {
  const r = j.result;
  const text = typeof r?.reduced_text === 'string' ? r.reduced_text : typeof r?.text === 'string' ? r.text : null;
  return text === null ? undefined : text.length > 200 ? `${text.slice(0, 197)}...` : text;
};

function jobText(j: JobView): string {
  const r = j.result;
  const members = Array.isArray(r?.members) ? (r.members as Array<Record<string, unknown>>) : [];
  const lines = keyValues([
    ['job', j.job_id],
    ['kind', j.kind],
    ['state', j.state],
    ['agent', j.agent ?? undefined],
    ['group', j.group ?? undefined],
    ['context', j.context_id ?? undefined],
    ['task', j.task_id ?? undefined],
    ['message id', j.summary?.message_id],
    ['input', partsOf(j)],
    ['strategy', j.summary?.strategy ?? undefined],
    ['reducer', j.summary?.reducer],
    ['attempts', attemptsOf(j)],
    ['next run', j.next_run_at ?? undefined],
    ['claimed by', j.locked_by ? `${j.locked_by}${j.locked_until ? ` until ${j.locked_until}` : ''}` : undefined],
    ['last run by', j.last_run_by && j.last_run_by !== j.locked_by ? j.last_run_by : undefined],
    ['last error', j.last_error ?? undefined],
    ['created', j.created_at],
    ['updated', j.updated_at],
    ['completed', j.completed_at ?? undefined],
    ['outcome', j.outcome ?? undefined],
    ['exit code', j.exit_code ?? undefined],
    ['answer', answerOf(j)],
  ]);
  if (members.length === 0) return lines;
  const rows = members.map((m) => [String(m.rank ?? '-'), String(m.agent ?? '-'), String(m.status ?? '-'), String(m.task_id ?? '-'), String(m.state ?? '-')]);
  return `${lines}\n\n${table(['RANK', 'AGENT', 'STATUS', 'TASK', 'STATE'], rows)}`;
}

function listText(jobs: JobView[], state: string | undefined): string {
  if (jobs.length === 0) return state ? `No ${state} jobs.` : 'No jobs yet. Start one with `missive job start send <agent> <message>`.';
  return table(
    ['JOB', 'KIND', 'STATE', 'TARGET', 'TASK', 'ATTEMPTS', 'OUTCOME', 'RUN BY', 'CREATED'],
    jobs.map((j) => [
      shortId(j.job_id),
      j.kind,
      j.state,
      targetOf(j),
      j.task_id ?? '-',
      `${j.attempts}/${j.max_attempts}`,
      j.outcome ? `${j.outcome} (${jobExitCode(j)})` : '-',
      j.last_run_by ?? '-',
      j.created_at,
    ]),
  );
}

function cancelText(r: CancelResult): string {
  const head = r.cancelled ? `cancelled job ${r.job.job_id}` : `job ${r.job.job_id} is ${r.job.state}`;
  return r.remote ? `${head}\nCancelTask sent for task ${r.remote.task_id}: ${r.remote.state}` : head;
}

/** The options of every `job start`: how often the gateway may execute the job, and whether to follow it. */
const startOptions = (cmd: Command) =>
  cmd
    .option('--max-attempts <n>', 'executions before the job fails, 1 to 100 (default 1; retried with backoff)', integer('--max-attempts', 1, 100))
    .option('--attach', 'follow the job until it finishes and exit with its exit code (Ctrl-C stops following, not the job)');

/** The message inputs of a send or stream job: as `missive send` takes them (read here at start), the message id fixed now. */
async function sendJobInput(ctx: CommandContext, agent: string, message: string | undefined, o: OptionValues): Promise<SendInput & { messageId: string }> {
  const { wire: _wire, deadline: _deadline, ...input } = await messageInputsOf(agent, message, o, ctx.deps);
  // Fixed at start, so a gateway that resumes the job finds the send it already made instead of sending again.
  return { ...input, messageId: input.messageId ?? randomUUID() };
}

/** Ctrl-C / SIGTERM while following: stop following (the job keeps running); the listeners go when following ends. */
function interruptible(): { signal: AbortSignal; release: () => void } {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  return {
    signal: stop.signal,
    release: () => {
      process.off('SIGINT', abort);
      process.off('SIGTERM', abort);
    },
  };
}

/** Follows a job to its end: progress events, then the final view; returns the job's exit code. */
async function follow(ctx: CommandContext, jobId: string, kind: string): Promise<number> {
  const { core, out, flags } = ctx;
  const stop = interruptible();
  try {
    const result = await attachJob(core, jobId, {
      signal: stop.signal,
      deadline: flags.timeout ? Date.now() + core.timeoutMs : undefined,
      onChange: (job, previous) => {
        if (previous) out.event('job_progress', job, jobLine);
      },
    });
    out.result(kind, { ...result.job, attach: { finished: result.finished, stopped: result.stopped } }, jobText);
    if (result.stopped === 'signal') {
      out.warning(
        `stopped following job ${result.job.job_id}; it keeps running in the gateway (\`missive job wait ${shortId(result.job.job_id)}\` follows it again, \`missive job cancel\` stops it)`,
      );
      return INTERRUPTED;
    }
    if (result.stopped === 'deadline') {
      const error = attachStoppedError(result);
      out.error(error);
      return error.exitCode;
    }
    const error = jobError(result.job);
    if (error) out.error(error);
    return jobExitCode(result.job);
  } finally {
    stop.release();
  }
}

/** Records the job; prints it, or follows it with `--attach`. A profile without a running gateway gets a warning. */
async function start(ctx: CommandContext, request: JobInput, o: OptionValues): Promise<number | void> {
  const { core, out } = ctx;
  if (ctx.flags.header.length > 0 || ctx.flags.bearerTokenEnv)
    out.warning("--header and --bearer-token-env are not stored with a job: the gateway authenticates with the agent's auth ref");
  const job = await startCheckedJob(core, request, { maxAttempts: o.maxAttempts });
  if (!(await gatewayRuns(core)))
    out.warning('no gateway runs for this profile: the job waits until `missive gateway run` (or the installed service) executes it');
  if (!o.attach) {
    return out.result(
      'job_started',
      job,
      (j: JobView) =>
        `${jobLine(j)}\n${keyValues([
          ['job', j.job_id],
          ['follow', `missive job wait ${shortId(j.job_id)}`],
        ])}`,
    );
  }
  out.event('job_started', job, jobLine);
  return follow(ctx, job.job_id, 'job_finished');
}

/** The option that queues one job per line of a file (send, stream, bcast). */
const fromFileOption = (cmd: Command) =>
  cmd.option(
    '--from-file <file>',
    'queue one job per line of FILE (- reads standard input): a message per line, or NDJSON {"agent"|"group", "text"|"message", "context_id"}; every line is checked first, and one bad line queues nothing',
  );

/** Options that give the message: the file gives each job's instead. */
const MESSAGE_OPTIONS: Array<[key: string, flag: string]> = [
  ['stdin', '--stdin'],
  ['part', '--part'],
  ['file', '--file'],
  ['fileUrl', '--file-url'],
  ['fileBytes', '--file-bytes'],
  ['jsonPart', '--json-part'],
];

/** The file's text: FILE, or standard input for `-`. */
async function jobFileText(ctx: CommandContext, path: string): Promise<string> {
  if (path === '-') {
    if (!ctx.deps.stdin) throw usageError('no_stdin', 'standard input is not available here');
    return ctx.deps.stdin();
  }
  try {
    return readFileSync(resolve(ctx.deps.cwd, path), 'utf8');
  } catch (error) {
    throw usageError('job_file_unreadable', `cannot read --from-file ${path}: ${(error as Error).message}`, 'Give a readable file, or - for standard input.');
  }
}

/** `job start send|stream|bcast --from-file`: every line checked, then one job per line, queued in batches. */
async function startFromFile(ctx: CommandContext, kind: FileJobKind, target: string | undefined, message: string | undefined, o: OptionValues) {
  const { core, out } = ctx;
  if (message !== undefined)
    throw usageError('conflicting_options', `--from-file gives each job's message: drop the message argument "${message}"`, 'Put it in the file as a line.');
  const given = MESSAGE_OPTIONS.filter(([key]) => (Array.isArray(o[key]) ? o[key].length > 0 : o[key] !== undefined && o[key] !== false));
  if (given.length > 0) throw usageError('conflicting_options', `--from-file gives each job's message: drop ${given.map(([, flag]) => flag).join(', ')}`);
  if (o.attach) throw usageError('conflicting_options', '--attach follows one job: with --from-file, follow them with `missive job wait <id>`');
  if (ctx.flags.header.length > 0 || ctx.flags.bearerTokenEnv)
    out.warning("--header and --bearer-token-env are not stored with a job: the gateway authenticates with the agent's auth ref");
  const text = await jobFileText(ctx, o.fromFile);
  const {
    agent: _agent,
    text: _text,
    stdin: _stdin,
    parts: _parts,
    files: _files,
    fileUrls: _fileUrls,
    fileBytes: _fileBytes,
    jsonParts: _jsonParts,
    wire: _wire,
    deadline: _deadline,
    ...input
  } = await messageInputsOf('', undefined, { ...o, stdin: false }, ctx.deps);
  const started = await startJobsFromFile(
    core,
    text,
    o.fromFile === '-' ? 'standard input' : o.fromFile,
    { kind, target, input, force: o.force === true, ...(kind === 'bcast' ? { fanOut: fanOutFlags(o) } : {}) },
    { maxAttempts: o.maxAttempts },
  );
  if (!(await gatewayRuns(core)))
    out.warning('no gateway runs for this profile: the jobs wait until `missive gateway run` (or the installed service) executes them');
  return out.result('jobs_started', started, (d: StartedFromFile) => `queued ${d.count} ${kind} job(s)\n${d.job_ids.join('\n')}`);
}

/** The agent a single `job start send|stream` needs (optional with --from-file, whose lines may name theirs). */
const requiredAgent = (agent: string | undefined, kind: string): string => {
  if (agent) return agent;
  throw usageError(
    'missing_agent',
    `job start ${kind} needs an agent`,
    `missive job start ${kind} <agent> <message>, or --from-file FILE whose lines name theirs.`,
  );
};

export function registerJobCommands(program: Command, action: Action): void {
  const job = program.command('job').description('durable jobs the gateway executes: start send|stream|wait|reduce|bcast, list, show, cancel, wait');
  const begin = job.command('start').description('record a job and return at once (the gateway executes it; --attach follows it)');

  fromFileOption(
    startOptions(
      addMessageInputOptions(
        begin.command('send [agent] [message]').description('a send (SendMessage) executed by the gateway, then waited on until its task settles'),
      ),
    ),
  ).action(
    action(async (ctx, agent: string | undefined, message: string | undefined, o: OptionValues) =>
      o.fromFile !== undefined
        ? startFromFile(ctx, 'send', agent, message, o)
        : start(ctx, { kind: 'send', input: await sendJobInput(ctx, requiredAgent(agent, 'send'), message, o) }, o),
    ),
  );

  fromFileOption(
    startOptions(
      addMessageInputOptions(
        begin
          .command('stream [agent] [message]')
          .description('a stream (SendStreamingMessage) executed by the gateway, every event recorded')
          .option('--force', 'stream even when the Agent Card does not advertise streaming'),
      ),
    ),
  ).action(
    action(async (ctx, agent: string | undefined, message: string | undefined, o: OptionValues) =>
      o.fromFile !== undefined
        ? startFromFile(ctx, 'stream', agent, message, o)
        : start(ctx, { kind: 'stream', input: await sendJobInput(ctx, requiredAgent(agent, 'stream'), message, o), ...(o.force ? { force: true } : {}) }, o),
    ),
  );

  startOptions(
    begin
      .command('wait <task-id>')
      .description('wait on a task with GetTask until it settles')
      .option('--agent <alias>', 'agent to ask when the task is not in the journal'),
  ).action(action(async (ctx, taskId: string, o: OptionValues) => start(ctx, { kind: 'wait', taskId, ...(o.agent ? { agent: o.agent } : {}) }, o)));

  startOptions(
    addReduceTargetOptions(begin.command('reduce <group>').description("reduce the members' outputs in a context, as `missive reduce` does")).option(
      '--gateway-command <name>',
      "pipe the prompt to the gateway's own command NAME ([gateway.commands] in the gateway's config); --command is refused for jobs",
    ),
  ).action(
    action(async (ctx, group: string, o: OptionValues) =>
      start(ctx, { kind: 'reduce', input: { ...reduceInputOf(group, o, ctx.deps.cwd), ...(o.gatewayCommand ? { gatewayCommand: o.gatewayCommand } : {}) } }, o),
    ),
  );

  fromFileOption(
    startOptions(
      addFanOutOptions(
        addMessageInputOptions(begin.command('bcast <group> [message]').description('send one message to every member, as `missive bcast` does')),
      ),
    ),
  ).action(
    action(async (ctx, group: string, message: string | undefined, o: OptionValues) => {
      if (o.fromFile !== undefined) return startFromFile(ctx, 'bcast', group, message, o);
      const { agent: _agent, contextId, wire: _wire, deadline: _deadline, ...inputs } = await messageInputsOf('', message, o, ctx.deps);
      return start(ctx, { kind: 'bcast', group, contextId, inputs, ...fanOutFlags(o) }, o);
    }),
  );

  job
    .command('list')
    .description('operator jobs, newest first')
    .option('--state <state>', `only jobs in this state (${JOB_STATES.join(', ')})`)
    .option('--limit <n>', 'at most this many, 1 to 10000 (default 50)', integer('--limit', 1, 10_000))
    .action(
      action(async ({ core, out }, o: { state?: string; limit?: number }) =>
        out.result('job_list', { jobs: await listJobs(core, { state: o.state, limit: o.limit }) }, (d: { jobs: JobView[] }) => listText(d.jobs, o.state)),
      ),
    );

  job
    .command('show <id>')
    .description('one job (full id or an unambiguous prefix): its summary, attempts, claim, outcome')
    .action(action(async ({ core, out }, id: string) => out.result('job_show', await showJob(core, id), jobText)));

  job
    .command('cancel <id>')
    .description('cancel a queued, retrying or running job; --remote also sends CancelTask for its task')
    .option('--remote', "also ask the agent to cancel the job's task (CancelTask)")
    .action(
      action(async ({ core, out }, id: string, o: { remote?: boolean }) =>
        out.result('job_cancel', await cancelJob(core, id, { remote: o.remote }), cancelText),
      ),
    );

  job
    .command('wait <id>')
    .description("follow a job until it finishes; exit with its exit code (0, 80–85, or its error's)")
    .action(action(async (ctx, id: string) => follow(ctx, id, 'job_finished')));
}
