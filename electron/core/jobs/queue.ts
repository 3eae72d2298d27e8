/**
 * The operator's side of durable jobs: `job start` records a job and returns at once (the gateway executes it),
 * `job list`, `job show` and `job cancel` read and settle the rows. Views show the summary, never the request.
 */
import { randomUUID } from 'node:crypto';
import { MissiveError, toMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { requireAgent } from '../agents/registry.js';
import { requireGroup } from '../collectives/groups.js';
import { contextIdOf, knownContext } from '../contexts/service.js';
import type { JobState, StoredJob } from '../store/rows/gateway-jobs.js';
import { cancelTask } from '../tasks/service.js';
import { call, jobCall, journal } from '../store/steps.js';
import { storedRequest, summarise, type JobInput, type JobRequest, type JobSummary } from './requests.js';

export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'retrying', 'succeeded', 'failed', 'cancelled'];

/** One job as every view shows it. `result` is what the execution produced (outcome, task, answer text), or its error. */
export interface JobView {
  job_id: string;
  kind: string;
  state: JobState;
  summary: JobSummary | null;
  agent: string | null;
  group: string | null;
  context_id: string | null;
  task_id: string | null;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  next_run_at: string | null;
  locked_by: string | null;
  locked_until: string | null;
  /** The gateway (its id) that claimed the last attempt, running or ended; null before one did. */
  last_run_by: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  outcome: string | null;
  exit_code: number | null;
  result: Record<string, unknown> | null;
}

const parse = (json: string | null | undefined) => (json ? (JSON.parse(json) as Record<string, unknown>) : null);

export function jobView(row: Omit<StoredJob, 'request_json'>): JobView {
  const result = parse(row.result_json);
  const finished = row.state === 'succeeded' || row.state === 'failed' || row.state === 'cancelled';
  return {
    job_id: row.job_id,
    kind: row.kind,
    state: row.state,
    summary: parse(row.summary_json) as JobSummary | null,
    agent: row.agent_alias,
    group: row.group_name,
    context_id: row.context_id,
    task_id: row.target_task_id,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    last_error: row.last_error,
    next_run_at: finished ? null : row.next_run_at,
    locked_by: row.locked_by,
    last_run_by: row.last_run_by ?? null,
    locked_until: row.locked_until,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    outcome: finished ? (typeof result?.outcome === 'string' ? result.outcome : row.state) : null,
    exit_code: typeof result?.exit_code === 'number' ? result.exit_code : row.state === 'cancelled' ? 81 : null,
    result: finished ? result : null,
  };
}

export interface StartJobOptions {
  maxAttempts?: number;
}

function checkedMaxAttempts(given: number | undefined): number {
  const maxAttempts = given ?? 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100)
    throw usageError('invalid_max_attempts', '--max-attempts must be an integer from 1 to 100');
  return maxAttempts;
}

/** Captures the job's local inputs here (requests.ts), then records it: what a job's start comes down to. */
export const startJob = (core: Core, input: JobInput, options: StartJobOptions = {}): Promise<JobView> => recordJob(core, storedRequest(core, input), options);

/** Checks a stored request against the registry (agent, group, context, parts) and records it, queued to run at once. */
export async function recordJob(core: Core, request: JobRequest, options: StartJobOptions = {}): Promise<JobView> {
  const maxAttempts = checkedMaxAttempts(options.maxAttempts);
  const summary = await summarise(core, request);
  let agent: string | null = null;
  let group: string | null = null;
  let contextId: string | null = null;
  let target: string | null = null;
  if (request.kind === 'send' || request.kind === 'stream') {
    agent = (await requireAgent(core, request.input.agent)).alias;
    if (request.input.contextId) request.input.contextId = contextId = await contextIdOf(core, request.input.contextId);
  } else if (request.kind === 'wait') {
    if (request.agent) agent = (await requireAgent(core, request.agent)).alias;
    target = request.taskId;
  } else if (request.kind === 'reduce') {
    group = (await requireGroup(core, request.input.group)).group_name;
    // A reduce reads the context's outputs from the journal: it must be known here.
    request.input.contextId = contextId = (await knownContext(core, request.input.contextId)).context_id;
    if (request.input.reducerAgent) agent = (await requireAgent(core, request.input.reducerAgent)).alias;
  } else {
    group = (await requireGroup(core, request.group)).group_name;
    if (request.contextId) request.contextId = contextId = await contextIdOf(core, request.contextId);
  }
  // Random (v4), not time-ordered: the 8-character short ids `job list` prints must tell jobs of the same minute apart.
  const jobId = randomUUID();
  const recorded = await (
    await core.storage()
  ).transaction(async (tx) => {
    // A send may open a context of the caller's choosing: known from now on, as `missive send --context` makes it.
    if (contextId && request.kind !== 'reduce') await tx.conversation.ensureContext(contextId, agent);
    await tx.jobs.insertOperator({
      jobId,
      kind: request.kind,
      agentAlias: agent,
      groupName: group,
      contextId,
      targetTaskId: target,
      request,
      summary: { ...summary },
      maxAttempts,
    });
    await tx.journal.append({
      type: 'missive.job.started',
      source: 'cli',
      agentAlias: agent,
      contextId,
      payload: { job_id: jobId, ...summary, max_attempts: maxAttempts },
    });
    // The job as recorded, read in the same transaction: once it commits, a gateway may claim it at once (PostgreSQL
    // wakes one by NOTIFY), and a read after would show it running, or done, instead of queued.
    return (await tx.jobs.findOperator(jobId))[0]!;
  });
  return jobView(recorded);
}

/** A job checked and captured (job-file.ts), ready to record: its stored request and its summary. */
export interface PlannedJob {
  request: JobRequest;
  summary: JobSummary;
}

/** Jobs recorded per transaction by recordJobs: one multi-row INSERT and the jobs' `missive.job.started` events. */
export const JOBS_PER_COMMIT = 500;

/**
 * Records many checked jobs (agents, groups and contexts already resolved in their requests), queued to run at once,
 * a transaction per JOBS_PER_COMMIT of them; their ids, in order. A store failing part way leaves the batches before
 * it queued: the error says how many.
 */
export async function recordJobs(core: Core, jobs: readonly PlannedJob[], options: StartJobOptions = {}): Promise<string[]> {
  const maxAttempts = checkedMaxAttempts(options.maxAttempts);
  const storage = await core.storage();
  const rows = jobs.map(({ request, summary }) => {
    const target = targetOf(request);
    return { jobId: randomUUID(), kind: request.kind, ...target, targetTaskId: null, request, summary: { ...summary }, maxAttempts };
  });
  let queued = 0;
  try {
    for (let i = 0; i < rows.length; i += JOBS_PER_COMMIT) {
      const batch = rows.slice(i, i + JOBS_PER_COMMIT);
      await storage.write(function* () {
        // A send may open a context of the caller's choosing (as recordJob does): each once, with its first agent.
        const contexts = new Map<string, string | null>();
        for (const r of batch) if (r.contextId && r.kind !== 'reduce' && !contexts.has(r.contextId)) contexts.set(r.contextId, r.agentAlias);
        for (const [contextId, agent] of contexts) yield* call('ensureContext', contextId, agent);
        yield* jobCall('insertOperators', batch);
        for (const r of batch)
          yield* journal({
            type: 'missive.job.started',
            source: 'cli',
            agentAlias: r.agentAlias,
            contextId: r.contextId,
            payload: { job_id: r.jobId, ...r.summary, max_attempts: maxAttempts },
          });
      });
      queued += batch.length;
    }
  } catch (error) {
    const err = toMissiveError(error);
    if (queued === 0) throw err;
    throw new MissiveError(err.category, err.code.split('::').at(-1)!, `${err.message} (${queued} of ${rows.length} jobs were queued before it failed)`, {
      exitCode: err.exitCode,
      help: `\`missive job list --state queued\` lists those queued; queue the others again (the lines after the first ${queued}).`,
    });
  }
  return rows.map((r) => r.jobId);
}

/** The agent, group and context columns of a recorded request (resolved already). */
function targetOf(request: JobRequest): { agentAlias: string | null; groupName: string | null; contextId: string | null } {
  switch (request.kind) {
    case 'send':
    case 'stream':
      return { agentAlias: request.input.agent, groupName: null, contextId: request.input.contextId ?? null };
    case 'bcast':
      return { agentAlias: null, groupName: request.group, contextId: request.contextId ?? null };
    case 'reduce':
      return { agentAlias: request.input.reducerAgent ?? null, groupName: request.input.group, contextId: request.input.contextId };
    case 'wait':
      return { agentAlias: request.agent ?? null, groupName: null, contextId: null };
  }
}

/** The job `id` names: a full id or an unambiguous prefix (the short ids `job list` prints). */
export async function findJob(core: Core, id: string): Promise<StoredJob> {
  const matches = await (await core.storage()).jobs.findOperator(id.trim());
  if (matches.length === 0 || !id.trim()) throw usageError('unknown_job', `no job "${id}"`, 'See `missive job list`.');
  if (matches.length > 1 && matches[0]!.job_id !== id) throw usageError('ambiguous_job', `"${id}" names more than one job`, 'Give more of the job id.');
  return matches[0]!;
}

export const showJob = async (core: Core, id: string): Promise<JobView> => jobView(await findJob(core, id));

export async function listJobs(core: Core, options: { state?: string; limit?: number } = {}): Promise<JobView[]> {
  if (options.state && !(JOB_STATES as readonly string[]).includes(options.state))
    throw usageError('invalid_state', `unknown job state "${options.state}"`, `Use one of: ${JOB_STATES.join(', ')}.`);
  return (await (await core.storage()).jobs.listOperator({ state: options.state as JobState | undefined, limit: options.limit ?? 50 })).map(jobView);
}

export interface CancelResult {
  job: JobView;
  cancelled: boolean;
  remote: { task_id: string; state: string } | null;
}

/**
 * Cancels an unfinished job: the row says `cancelled` at once, a gateway running it stops at its next claim renewal.
 * `remote` also sends CancelTask for the job's task (from this process, with the agent's auth). A finished job is
 * refused with `validation::job_finished`, with or without `remote`, and nothing is sent.
 */
export async function cancelJob(core: Core, id: string, options: { remote?: boolean } = {}): Promise<CancelResult> {
  const storage = await core.storage();
  const row = await findJob(core, id);
  const cancelled = await storage.transaction(async (tx) => {
    const changed = await tx.jobs.cancel(row.job_id);
    if (changed)
      await tx.journal.append({
        type: 'missive.job.cancelled',
        source: 'cli',
        agentAlias: row.agent_alias,
        contextId: row.context_id,
        payload: { job_id: row.job_id, kind: row.kind, remote: options.remote === true },
      });
    return changed;
  });
  if (!cancelled) {
    const now = await showJob(core, row.job_id);
    const task = options.remote && now.task_id ? ` To ask the agent to cancel its task anyway: missive task cancel ${now.task_id}` : '';
    throw usageError('job_finished', `job ${row.job_id} already ${now.state}`, `Only queued, retrying and running jobs can be cancelled.${task}`);
  }
  let remote: CancelResult['remote'] = null;
  if (options.remote) {
    const taskId = row.target_task_id ?? (await storage.jobs.getOperator(row.job_id))?.target_task_id ?? null;
    if (!taskId)
      throw new MissiveError('orchestration', 'job_without_task', `job ${row.job_id} has no task to cancel remotely (the job itself is cancelled)`, {
        help: 'It has not reached an agent yet, or its agent answered with a message.',
      });
    const view = await cancelTask(core, taskId, row.agent_alias ?? undefined);
    remote = { task_id: taskId, state: view.task.state };
  }
  return { job: await showJob(core, row.job_id), cancelled, remote };
}
