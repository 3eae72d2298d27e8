/**
 * The engine behind bcast and scatter: one SendMessage per member, one shared contextId, a fresh message id each.
 * Concurrent (p-limit, over the one pooled undici dispatcher) or sequential; every answer is persisted by the send
 * path as it arrives; results are reported in rank order. One deadline (--timeout) bounds the whole run.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { MissiveError, toMissiveError, type ErrorReport } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import { appendEvent } from '../store/repos/events.js';
import { ensureContext, type TaskStateName } from '../store/repos/conversation.js';
import { buildParts } from '../messaging/parts.js';
import { buildSend, deliverSend, recordRequest, type PreparedSend, type SendInput } from '../messaging/send.js';
import { requireGroup } from './groups.js';
import { assertContextOpen, resolveContextId } from '../contexts/service.js';

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
  onMember?: (member: MemberResult) => void;
}

/** Task states that mean the agent took the message but the work failed. */
const FAILED_STATES = new Set<TaskStateName>(['failed', 'rejected']);

export async function fanOut(core: Core, kind: FanOutResult['kind'], input: FanOutInput): Promise<FanOutResult> {
  const group = requireGroup(core, input.group);
  if (group.members.length === 0) throw new MissiveError('validation', 'empty_group', `group "${group.group_name}" has no members`, { help: `Add one with: missive group add ${group.group_name} <alias>` });
  const started = Date.now();
  const deadline = started + core.timeoutMs;
  const execution = input.execution ?? 'concurrent';
  const failurePolicy = input.failurePolicy ?? 'stop';
  const maxConcurrency = execution === 'sequential' ? 1 : Math.max(1, input.maxConcurrency ?? 16);
  const operationId = randomUUID();
  const store = core.store();
  const contextId = input.contextId ? resolveContextId(store.db, input.contextId) : randomUUID();
  assertContextOpen(store.db, contextId);
  const contextCreated = !input.contextId || !store.db.prepare(`SELECT 1 FROM contexts WHERE context_id = ?`).get(contextId);
  const plan = input.plan(group.members.length).sort((a, b) => a.member - b.member || (a.inputIndex ?? 0) - (b.inputIndex ?? 0));
  // Bad input (a missing file, an oversized message) is the user's error once, not every member's failure.
  for (const inputs of new Set(plan.map((p) => p.input))) buildParts(inputs, inputs.cwd, core.config.qos.maxRequestBytes);
  store.transaction(() => {
    ensureContext(store.db, contextId, null, { created_by: kind, group: group.group_name });
    appendEvent(store.db, {
      type: `missive.${kind}.started`,
      contextId,
      payload: { operation_id: operationId, group: group.group_name, members: group.members.map((m) => ({ alias: m.agent_alias, rank: m.rank })), execution, max_concurrency: maxConcurrency, failure_policy: failurePolicy },
    });
  });

  const members: MemberResult[] = plan.map((p) => ({
    alias: group.members[p.member]!.agent_alias,
    rank: group.members[p.member]!.rank,
    input_index: p.inputIndex,
    status: 'pending',
    request_message_id: null,
    selected_interface: null,
    response_shape: null,
    task_id: null,
    context_id: contextId,
    state: null,
    latency_ms: null,
    error: null,
  }));
  let stopped = false;
  let parts: number | null = null;
  let bytes: number | null = null;

  const record = (member: MemberResult, status: MemberStatus, error: MissiveError | null) => {
    member.status = status;
    member.error = error ? error.toReport() : null;
    appendEvent(store.db, {
      type: `missive.${kind}.member.${status}`,
      agentAlias: member.alias,
      contextId,
      taskId: member.task_id,
      payload: { operation_id: operationId, rank: member.rank, input_index: member.input_index, state: member.state, latency_ms: member.latency_ms, request_message_id: member.request_message_id, error: member.error },
    });
    if ((status === 'failed' || status === 'timeout') && failurePolicy === 'stop') stopped = true;
  };
  const finish = (member: MemberResult, status: MemberStatus, error: MissiveError | null) => {
    record(member, status, error);
    input.onMember?.(member);
  };
  const fail = (member: MemberResult, error: unknown) => {
    const err = toMissiveError(error);
    finish(member, err.code === 'missive::transport::timeout' ? 'timeout' : 'failed', err);
  };
  const gate = (member: MemberResult): boolean => {
    if (stopped) finish(member, 'skipped', null);
    else if (Date.now() >= deadline) finish(member, 'timeout', new MissiveError('transport', 'timeout', 'the deadline passed before this member was sent'));
    else return true;
    return false;
  };

  /** Resolves card, interface and auth and builds the request; null when the member already failed. */
  const build = async (index: number): Promise<PreparedSend | null> => {
    const member = members[index]!;
    try {
      const prepared = await buildSend(core, { ...plan[index]!.input, agent: member.alias, contextId, deadline }, 'send');
      member.request_message_id = prepared.messageId;
      member.selected_interface = prepared.iface;
      parts ??= prepared.parts;
      bytes ??= prepared.requestBytes;
      return prepared;
    } catch (error) {
      fail(member, error);
      return null;
    }
  };

  /** Sends one recorded request; the answer and the member's journal row commit in one transaction. */
  const deliver = async (index: number, prepared: PreparedSend) => {
    const member = members[index]!;
    if (!gate(member)) return;
    member.status = 'running';
    input.onMember?.(member);
    const t0 = performance.now();
    try {
      await deliverSend(core, prepared, (result) => {
        member.latency_ms = Math.round(performance.now() - t0);
        member.response_shape = result.response_shape;
        member.task_id = result.task?.task_id ?? null;
        member.state = result.task?.state ?? null;
        if (member.state && FAILED_STATES.has(member.state)) {
          record(member, 'failed', new MissiveError('orchestration', `task_${member.state}`, `the agent answered with a ${member.state} task`, { exitCode: 80 }));
        } else record(member, 'succeeded', null);
      });
      input.onMember?.(member);
    } catch (error) {
      member.latency_ms = Math.round(performance.now() - t0);
      fail(member, error);
    }
  };

  const limit = pLimit(maxConcurrency);
  if (execution === 'sequential') {
    for (let i = 0; i < members.length; i++) {
      if (!gate(members[i]!)) continue;
      const prepared = await build(i);
      if (!prepared) continue;
      store.transaction(() => recordRequest(core, prepared));
      await deliver(i, prepared);
    }
  } else {
    // Resolve every member first, record every request in one transaction, then send them all.
    const prepared = await Promise.all(members.map((m, i) => limit(async () => (gate(m) ? build(i) : null))));
    store.transaction(() => prepared.forEach((p) => p && recordRequest(core, p)));
    await Promise.all(prepared.map((p, i) => (p ? limit(() => deliver(i, p)) : undefined)));
  }

  const counts = { succeeded: 0, failed: 0, timeout: 0, skipped: 0 };
  for (const m of members) if (m.status in counts) counts[m.status as keyof typeof counts]++;
  const status: FanOutResult['status'] =
    counts.timeout > 0 ? 'timeout' : counts.failed + counts.skipped === 0 ? 'succeeded' : failurePolicy === 'continue' && counts.succeeded > 0 ? 'partial_failure' : 'failed';
  const exitCode = status === 'timeout' ? 82 : status === 'failed' ? 70 : 0;
  const result: FanOutResult = {
    operation_id: operationId,
    kind,
    group: group.group_name,
    status,
    execution,
    max_concurrency: maxConcurrency,
    failure_policy: failurePolicy,
    request: { context_id: contextId, context_created: contextCreated, parts, bytes },
    counts,
    members,
    elapsed_ms: Date.now() - started,
    exit_code: exitCode,
  };
  appendEvent(store.db, { type: `missive.${kind}.completed`, contextId, payload: { operation_id: operationId, status, counts, elapsed_ms: result.elapsed_ms } });
  return result;
}

/** The error that goes with a non-zero fan-out outcome (the summary itself is still printed). */
export const fanOutError = (r: FanOutResult): MissiveError =>
  r.status === 'timeout'
    ? new MissiveError('orchestration', `${r.kind}_timeout`, `${r.kind} to "${r.group}" hit the deadline: ${r.counts.succeeded} succeeded, ${r.counts.timeout} timed out`, { exitCode: 82, help: 'Raise --timeout; finished members are kept.' })
    : new MissiveError('orchestration', `${r.kind}_failed`, `${r.kind} to "${r.group}" failed: ${r.counts.failed} failed, ${r.counts.skipped} skipped, ${r.counts.succeeded} succeeded`, {
        exitCode: 70,
        help: r.failure_policy === 'stop' ? 'Use --failure-policy continue to send to every member regardless.' : undefined,
      });
