/**
 * The engine behind bcast and scatter: one SendMessage per member, one shared contextId, a fresh message id each.
 * Concurrent (p-limit, over the one pooled undici dispatcher) or sequential; every answer is persisted by the send
 * path as it arrives; results are reported in rank order. One deadline (--timeout) bounds the whole run.
 * `--via-jobs`: each member's send is a job on the shared queue instead (`viaJobs`: jobs/fan-out-queue.ts, given by
 * the caller, a layer above), so the gateways, on any hosts, make the sends; the run waits for their jobs and reports
 * the same summary.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { MissiveError, toMissiveError, type ErrorReport } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import { call, journal, type Steps } from '../store/steps.js';
import { buildParts } from '../messaging/parts.js';
import { buildSend, deliverSend, requestSteps, type PreparedSend, type SendInput } from '../messaging/send.js';
import { requireGroup, type GroupView } from './groups.js';
import { openContextId } from '../contexts/service.js';

export type Execution = 'concurrent' | 'sequential';
export type FailurePolicy = 'stop' | 'continue';
export type MemberStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'timeout' | 'skipped';

export interface MemberResult {
  alias: string;
  rank: number;
  /** Scatter: which input this send carried (bcast: null). */
  input_index: number | null;
  status: MemberStatus;
  request_message_id: string | null;
  selected_interface: SelectedInterface | null;
  response_shape: 'message' | 'task' | null;
  task_id: string | null;
  context_id: string;
  state: TaskStateName | null;
  latency_ms: number | null;
  error: ErrorReport | null;
}

export interface FanOutResult {
  operation_id: string;
  kind: 'bcast' | 'scatter';
  group: string;
  status: 'succeeded' | 'partial_failure' | 'failed' | 'timeout';
  execution: Execution;
  max_concurrency: number;
  failure_policy: FailurePolicy;
  request: { context_id: string; context_created: boolean; parts: number | null; bytes: number | null };
  counts: Record<'succeeded' | 'failed' | 'timeout' | 'skipped', number>;
  members: MemberResult[];
  elapsed_ms: number;
  exit_code: number;
}

export interface FanOutInput {
  group: string;
  contextId?: string;
  /**
   * The sends to make, given the members in rank order: bcast makes one per member with the same inputs; scatter one
   * per input, input i to member i mod N.
   */
  plan: (memberCount: number) => Array<{ member: number; inputIndex: number | null; input: Omit<SendInput, 'agent' | 'contextId'> }>;
  execution?: Execution;
  maxConcurrency?: number;
  failurePolicy?: FailurePolicy;
  /** Each member's send goes on the shared job queue, for the gateways to make: jobs/fan-out-queue.ts's `sendThroughQueue`. */
  viaJobs?: QueuedSends;
  /** The collective a context this fan-out creates is named after (`created_by`): a round's bcast says `round`; default its kind. */
  createdBy?: 'round';
  onMember?: (member: MemberResult) => void;
}

/** What a fan-out lends the sends it hands off (`viaJobs`): its member bookkeeping. */
export interface MemberHooks {
  mayStillSend(run: FanOutRun, member: MemberResult): Promise<boolean>;
  finishMember(run: FanOutRun, member: MemberResult, status: MemberStatus, error: MissiveError | null): Promise<void>;
}

/** Makes a run's sends some other way than in this process (through the job queue), reporting each member through `hooks`. */
export type QueuedSends = (run: FanOutRun, hooks: MemberHooks) => Promise<void>;

/** Task states that mean the agent took the message but the work failed. */
const FAILED_STATES = new Set<TaskStateName>(['failed', 'rejected']);

/** A member whose agent answered with a failed or rejected task failed (`orchestration::task_<state>`, exit 80); null otherwise. */
export const failedTask = (state: TaskStateName | null): MissiveError | null =>
  state && FAILED_STATES.has(state) ? new MissiveError('orchestration', `task_${state}`, `the agent answered with a ${state} task`, { exitCode: 80 }) : null;

type PlannedSend = ReturnType<FanOutInput['plan']>[number];

/** One fan-out in progress: what was decided before the first send, and the members' results as they come in. */
export interface FanOutRun {
  core: Core;
  kind: FanOutResult['kind'];
  /** The collective the context is named after when this run creates it. */
  createdBy: FanOutResult['kind'] | 'round';
  group: GroupView;
  operationId: string;
  contextId: string;
  contextCreated: boolean;
  execution: Execution;
  failurePolicy: FailurePolicy;
  maxConcurrency: number;
  started: number;
  /** Epoch ms that bounds the whole run (--timeout). */
  deadline: number;
  /** The sends, in rank order (then input order); `members[i]` is the result of `plan[i]`. */
  plan: PlannedSend[];
  members: MemberResult[];
  /** Parts and bytes of the first request built, for the summary. */
  request: { parts: number | null; bytes: number | null };
  /** Set once a member failed or timed out under `--failure-policy stop`: members not sent yet are skipped. */
  stopped: boolean;
  viaJobs: QueuedSends | undefined;
  onMember?: (member: MemberResult) => void;
}

export async function fanOut(core: Core, kind: FanOutResult['kind'], input: FanOutInput): Promise<FanOutResult> {
  const run = await planRun(core, kind, input);
  checkInputsOnce(run);
  await journalStart(run);
  if (run.viaJobs) await run.viaJobs(run, { mayStillSend, finishMember });
  else if (run.execution === 'sequential') await sendOneByOne(run);
  else await sendConcurrently(run);
  return collectOutcome(run);
}

/** The group (never empty), the options with their defaults, the shared context and the sends in rank order. */
async function planRun(core: Core, kind: FanOutResult['kind'], input: FanOutInput): Promise<FanOutRun> {
  const group = await requireGroup(core, input.group);
  if (group.members.length === 0)
    throw new MissiveError('validation', 'empty_group', `group "${group.group_name}" has no members`, {
      help: `Add one with: missive group add ${group.group_name} <alias>`,
    });
  const started = Date.now();
  const execution = input.execution ?? 'concurrent';
  const contextId = input.contextId ? await openContextId(core, input.contextId) : randomUUID();
  const contextCreated = !input.contextId || !(await (await core.storage()).conversation.getContext(contextId));
  const plan = input.plan(group.members.length).sort((a, b) => a.member - b.member || (a.inputIndex ?? 0) - (b.inputIndex ?? 0));
  return {
    core,
    kind,
    createdBy: input.createdBy ?? kind,
    group,
    operationId: randomUUID(),
    contextId,
    contextCreated,
    execution,
    failurePolicy: input.failurePolicy ?? 'stop',
    maxConcurrency: execution === 'sequential' ? 1 : Math.max(1, input.maxConcurrency ?? 16),
    started,
    deadline: started + core.timeoutMs,
    plan,
    members: plan.map((p) => pendingMember(group, p, contextId)),
    request: { parts: null, bytes: null },
    stopped: false,
    viaJobs: input.viaJobs,
    onMember: input.onMember,
  };
}

function pendingMember(group: GroupView, planned: PlannedSend, contextId: string): MemberResult {
  const member = group.members[planned.member]!;
  return {
    alias: member.agent_alias,
    rank: member.rank,
    input_index: planned.inputIndex,
    status: 'pending',
    request_message_id: null,
    selected_interface: null,
    response_shape: null,
    task_id: null,
    context_id: contextId,
    state: null,
    latency_ms: null,
    error: null,
  };
}

/** Bad input (a missing file, an oversized message) is the user's error once, not every member's failure. */
function checkInputsOnce(run: FanOutRun): void {
  for (const inputs of new Set(run.plan.map((p) => p.input))) buildParts(inputs, inputs.cwd, run.core.config.qos.maxRequestBytes);
}

/** The shared context and `missive.<kind>.started`, in one transaction. */
async function journalStart(run: FanOutRun): Promise<void> {
  await (
    await run.core.storage()
  ).write(function* () {
    yield* call('ensureContext', run.contextId, null, { created_by: run.createdBy, group: run.group.group_name });
    yield* journal({
      type: `missive.${run.kind}.started`,
      contextId: run.contextId,
      payload: {
        operation_id: run.operationId,
        group: run.group.group_name,
        members: run.group.members.map((m) => ({ alias: m.agent_alias, rank: m.rank })),
        execution: run.execution,
        max_concurrency: run.maxConcurrency,
        failure_policy: run.failurePolicy,
        via_jobs: run.viaJobs !== undefined,
      },
    });
  });
}

/** Sequential: each member is built, recorded and sent before the next one starts. */
async function sendOneByOne(run: FanOutRun): Promise<void> {
  for (let i = 0; i < run.members.length; i++) {
    if (!(await mayStillSend(run, run.members[i]!))) continue;
    const prepared = await prepareMember(run, i);
    if (!prepared) continue;
    await (await run.core.storage()).write(() => requestSteps(prepared));
    await deliverToMember(run, i, prepared);
  }
}

/** Concurrent: build every member (at most `maxConcurrency` at once), record every request in one transaction, then send them all. */
async function sendConcurrently(run: FanOutRun): Promise<void> {
  const limit = pLimit(run.maxConcurrency);
  const prepared = await Promise.all(run.members.map((m, i) => limit(async () => ((await mayStillSend(run, m)) ? prepareMember(run, i) : null))));
  await (
    await run.core.storage()
  ).write(function* () {
    for (const p of prepared) if (p) yield* requestSteps(p);
  });
  await Promise.all(prepared.map((p, i) => (p ? limit(() => deliverToMember(run, i, p)) : undefined)));
}

/** Resolves card, interface and auth and builds the member's request; null when the member already failed. */
async function prepareMember(run: FanOutRun, index: number): Promise<PreparedSend | null> {
  const member = run.members[index]!;
  try {
    const prepared = await buildSend(run.core, { ...run.plan[index]!.input, agent: member.alias, contextId: run.contextId, deadline: run.deadline }, 'send');
    member.request_message_id = prepared.messageId;
    member.selected_interface = prepared.iface;
    run.request.parts ??= prepared.parts;
    run.request.bytes ??= prepared.requestBytes;
    return prepared;
  } catch (error) {
    await failMember(run, member, error);
    return null;
  }
}

/**
 * Sends one recorded request. The answer and the member's journal row are written in the same savepoint of the
 * send path's group commit (`deliverSend`), so they commit together.
 */
async function deliverToMember(run: FanOutRun, index: number, prepared: PreparedSend): Promise<void> {
  const member = run.members[index]!;
  if (!(await mayStillSend(run, member))) return;
  member.status = 'running';
  run.onMember?.(member);
  const t0 = performance.now();
  try {
    await deliverSend(run.core, prepared, (result) => {
      member.latency_ms = Math.round(performance.now() - t0);
      member.response_shape = result.response_shape;
      member.task_id = result.task?.task_id ?? null;
      member.state = result.task?.state ?? null;
      const failed = failedTask(member.state);
      return outcomeSteps(run, member, failed ? 'failed' : 'succeeded', failed);
    });
    run.onMember?.(member);
  } catch (error) {
    member.latency_ms = Math.round(performance.now() - t0);
    await failMember(run, member, error);
  }
}

/** False (and the member finished as skipped or timed out) once the run stopped or its deadline passed. */
async function mayStillSend(run: FanOutRun, member: MemberResult): Promise<boolean> {
  if (run.stopped) await finishMember(run, member, 'skipped', null);
  else if (Date.now() >= run.deadline)
    await finishMember(run, member, 'timeout', new MissiveError('transport', 'timeout', 'the deadline passed before this member was sent'));
  else return true;
  return false;
}

/** A member's failure: a timeout when the error is one, else failed. */
async function failMember(run: FanOutRun, member: MemberResult, error: unknown): Promise<void> {
  const err = toMissiveError(error);
  await finishMember(run, member, err.code === 'missive::transport::timeout' ? 'timeout' : 'failed', err);
}

/** Records the member's final status and reports it to `onMember`. */
async function finishMember(run: FanOutRun, member: MemberResult, status: MemberStatus, error: MissiveError | null): Promise<void> {
  await (await run.core.storage()).write(() => outcomeSteps(run, member, status, error));
  run.onMember?.(member);
}

/** Sets the member's status, journals `missive.<kind>.member.<status>`, and stops the run on a failure under `stop`. */
function* outcomeSteps(run: FanOutRun, member: MemberResult, status: MemberStatus, error: MissiveError | null): Steps<void> {
  member.status = status;
  member.error = error ? error.toReport() : null;
  yield* journal({
    type: `missive.${run.kind}.member.${status}`,
    agentAlias: member.alias,
    contextId: run.contextId,
    taskId: member.task_id,
    payload: {
      operation_id: run.operationId,
      rank: member.rank,
      input_index: member.input_index,
      state: member.state,
      latency_ms: member.latency_ms,
      request_message_id: member.request_message_id,
      error: member.error,
    },
  });
  if ((status === 'failed' || status === 'timeout') && run.failurePolicy === 'stop') run.stopped = true;
}

/** Counts the members' outcomes into the run's status and exit code, and journals `missive.<kind>.completed`. */
async function collectOutcome(run: FanOutRun): Promise<FanOutResult> {
  const counts = { succeeded: 0, failed: 0, timeout: 0, skipped: 0 };
  for (const m of run.members) if (m.status in counts) counts[m.status as keyof typeof counts]++;
  const status: FanOutResult['status'] =
    counts.timeout > 0
      ? 'timeout'
      : counts.failed + counts.skipped === 0
        ? 'succeeded'
        : run.failurePolicy === 'continue' && counts.succeeded > 0
          ? 'partial_failure'
          : 'failed';
  const result: FanOutResult = {
    operation_id: run.operationId,
    kind: run.kind,
    group: run.group.group_name,
    status,
    execution: run.execution,
    max_concurrency: run.maxConcurrency,
    failure_policy: run.failurePolicy,
    request: { context_id: run.contextId, context_created: run.contextCreated, parts: run.request.parts, bytes: run.request.bytes },
    counts,
    members: run.members,
    elapsed_ms: Date.now() - run.started,
    exit_code: status === 'timeout' ? 82 : status === 'failed' ? 70 : 0,
  };
  await (
    await run.core.storage()
  ).journal.append({
    type: `missive.${run.kind}.completed`,
    contextId: run.contextId,
    payload: { operation_id: run.operationId, status, counts, elapsed_ms: result.elapsed_ms },
  });
  return result;
}

/** The error that goes with a non-zero fan-out outcome (the summary itself is still printed). */
export const fanOutError = (r: FanOutResult): MissiveError =>
  r.status === 'timeout'
    ? new MissiveError(
        'orchestration',
        `${r.kind}_timeout`,
        `${r.kind} to "${r.group}" hit the deadline: ${r.counts.succeeded} succeeded, ${r.counts.timeout} timed out`,
        { exitCode: 82, help: 'Raise --timeout; finished members are kept.' },
      )
    : new MissiveError(
        'orchestration',
        `${r.kind}_failed`,
        `${r.kind} to "${r.group}" failed: ${r.counts.failed} failed, ${r.counts.skipped} skipped, ${r.counts.succeeded} succeeded`,
        {
          exitCode: 70,
          help: r.failure_policy === 'stop' ? 'Use --failure-policy continue to send to every member regardless.' : undefined,
        },
      );
