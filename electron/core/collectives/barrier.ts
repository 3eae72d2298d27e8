/**
 * barrier: wait until enough members' tasks in one context reach the target states. Each round refreshes the
 * undecided members concurrently with GetTask (or reads SQLite with --local); decided members are not polled again.
 * A member that answered with a direct Message (no task) is final: it counts as completed. A member whose task is
 * already known final (journaled, or in the `--from-bcast` document) is decided without a call: terminal states never
 * change, and agents may forget tasks. An agent answering TaskNotFound to the poll is a final member error.
 * The quorum defaults to every member, or after `--from-bcast` to the members the bcast reached (as round's does).
 *
 * Decision, every round: satisfied ≥ required → succeeded (0); under `stop`, any failed/error/unmatched → failed (80),
 * else any cancelled → cancelled (81); quorum impossible → cancelled (81) when only cancellations disqualify, else
 * failed (80); deadline → timeout (82).
 */
import { randomUUID } from 'node:crypto';
import { MissiveError, toMissiveError, usageError, type ErrorReport } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import { TERMINAL_STATES, type TaskStateName } from '../store/rows/conversation.js';
import { call, journal } from '../store/steps.js';
import { refreshTask } from '../tasks/service.js';
import { SELECTABLE_TASK_STATES } from '../../../shared/task-states.js';
import { requireGroup } from './groups.js';
import { contextIdOf } from '../contexts/service.js';
import type { FailurePolicy } from './fan-out.js';
import { readBcastDocument } from './bcast-document.js';

export type BarrierMemberStatus = 'satisfied' | 'pending' | 'failed' | 'cancelled' | 'missing' | 'error' | 'terminal_unmatched';

export interface BarrierMember {
  alias: string;
  rank: number;
  task_id: string | null;
  state: TaskStateName | 'message' | null;
  status: BarrierMemberStatus;
  interface: SelectedInterface | null;
  polls: number;
  error: ErrorReport | null;
  /** Why the member is not satisfied, in words (missing, error, unmatched final state); null otherwise. */
  reason: string | null;
}

export interface BarrierResult {
  operation_id: string;
  group: string;
  context_id: string;
  status: 'succeeded' | 'failed' | 'cancelled' | 'timeout';
  exit_code: number;
  /** `from`: where `required` came from: --required, every member, or the members the `--from-bcast` bcast reached. */
  quorum: { required: number; members: number; satisfied: number; from: 'option' | 'members' | 'bcast' };
  counts: Record<BarrierMemberStatus, number>;
  target_states: TaskStateName[];
  success_states: TaskStateName[];
  attempts: number;
  elapsed_ms: number;
  source: 'local' | 'remote';
  members: BarrierMember[];
}

export interface BarrierInput {
  group: string;
  contextId?: string;
  /** A `bcast --json` document (the envelope or its data). */
  fromBcast?: unknown;
  states?: string[];
  required?: number;
  failurePolicy?: FailurePolicy;
  intervalMs?: number;
  local?: boolean;
  historyLength?: number;
  onRound?: (result: BarrierResult) => void;
}

const DECIDED: BarrierMemberStatus[] = ['satisfied', 'failed', 'cancelled', 'missing', 'terminal_unmatched'];

/** The error an agent answers for a task it does not know (any binding): the task is gone, asking again cannot help. */
const TASK_NOT_FOUND = 'missive::protocol::task_not_found';
/** Whether a member's error is final whatever the failure policy (the agent no longer knows its task). */
const finalError = (m: BarrierMember) => m.status === 'error' && m.error?.code === TASK_NOT_FOUND;

function parseStates(states: string[] | undefined): { targets: TaskStateName[]; successes: TaskStateName[] } {
  if (!states?.length) return { targets: ['completed', 'failed', 'cancelled'], successes: ['completed'] };
  const parsed = states.map((s) => {
    const n = s
      .toLowerCase()
      .replace(/-/g, '_')
      .replace(/^canceled$/, 'cancelled') as TaskStateName;
    if (!SELECTABLE_TASK_STATES.includes(n)) throw usageError('invalid_state', `unknown task state "${s}"`, `Use: ${SELECTABLE_TASK_STATES.join(', ')}.`);
    return n;
  });
  return { targets: [...new Set(parsed)], successes: [...new Set(parsed)] };
}

export async function barrier(core: Core, input: BarrierInput): Promise<BarrierResult> {
  const group = await requireGroup(core, input.group);
  if (input.contextId) input = { ...input, contextId: await contextIdOf(core, input.contextId) };
  if (!input.contextId && input.fromBcast === undefined) throw usageError('context_required', 'barrier needs --context ID or --from-bcast PATH|-');
  const fromBcast = input.fromBcast !== undefined ? readBcastDocument(input.fromBcast, group.group_name, input.contextId) : null;
  const contextId = fromBcast?.contextId ?? input.contextId!;
  const { targets, successes } = parseStates(input.states);
  const total = group.members.length;
  const from: BarrierResult['quorum']['from'] = input.required !== undefined ? 'option' : fromBcast ? 'bcast' : 'members';
  const required = input.required ?? (fromBcast ? Math.min(Math.max(fromBcast.reached, 1), total) : total);
  if (!Number.isInteger(required) || required < 1 || required > total)
    throw usageError('invalid_required', `--required must be from 1 to ${total} (the member count), not ${required}`);
  const failurePolicy = input.failurePolicy ?? 'stop';
  const interval = Math.min(Math.max(input.intervalMs ?? 1000, 10), 5000);
  const started = Date.now();
  const operationId = randomUUID();
  const storage = await core.storage();
  const { conversation } = storage;
  await (
    await core.storage()
  ).write(function* () {
    yield* call('ensureContext', contextId, null);
    yield* journal({
      type: 'missive.barrier.started',
      contextId,
      payload: { operation_id: operationId, group: group.group_name, required, target_states: targets, success_states: successes, local: input.local === true },
    });
  });

  /** The task's last known state: the journal's, else the bcast document's when that one is final. */
  const knownState = async (taskId: string, inDocument: string | null | undefined): Promise<TaskStateName | null> => {
    const journaled = (await conversation.getTask(taskId))?.state ?? null;
    if (journaled && TERMINAL_STATES.includes(journaled)) return journaled;
    if (inDocument && TERMINAL_STATES.includes(inDocument as TaskStateName)) return inDocument as TaskStateName;
    return journaled ?? ((inDocument as TaskStateName | null | undefined) || null);
  };
  const missingReason = (alias: string) =>
    fromBcast
      ? fromBcast.unreached.has(alias)
        ? `the bcast did not reach it: ${fromBcast.unreached.get(alias)}`
        : 'not in the bcast document'
      : 'no task or reply from it in this context';

  const members: BarrierMember[] = await Promise.all(
    group.members.map(async (m): Promise<BarrierMember> => {
      const known = fromBcast?.tasks.get(m.agent_alias);
      const taskId = fromBcast ? (known?.taskId ?? null) : ((await conversation.latestTaskOf(m.agent_alias, contextId))?.task_id ?? null);
      const direct = fromBcast ? known?.message === true : !taskId && (await conversation.directResponsesOf(m.agent_alias, contextId)).length > 0;
      return {
        alias: m.agent_alias,
        rank: m.rank,
        task_id: taskId,
        state: direct ? 'message' : taskId ? await knownState(taskId, known?.state) : null,
        status: 'pending',
        interface: null,
        polls: 0,
        error: null,
        reason: null,
      };
    }),
  );

  const classify = (m: BarrierMember, state: TaskStateName): BarrierMemberStatus => {
    if (successes.includes(state)) return 'satisfied';
    if (targets.includes(state)) return state === 'cancelled' ? 'cancelled' : 'failed';
    if (TERMINAL_STATES.includes(state)) return 'terminal_unmatched';
    return 'pending';
  };
  const decided = (m: BarrierMember) => DECIDED.includes(m.status) || (m.status === 'error' && failurePolicy === 'stop') || finalError(m);
  const unmatched = (state: string) => `ended ${state}, not a target state (${targets.join(', ')})`;

  const observe = async (m: BarrierMember) => {
    if (m.state === 'message') {
      m.status = successes.includes('completed') ? 'satisfied' : 'terminal_unmatched';
      if (m.status === 'terminal_unmatched') m.reason = unmatched('completed (a direct reply)');
      return;
    }
    if (!m.task_id) {
      m.status = 'missing';
      m.reason = missingReason(m.alias);
      return;
    }
    if (m.state && TERMINAL_STATES.includes(m.state)) {
      // Known final: a terminal state never changes, so the agent (which may have forgotten the task) is not asked.
      m.status = classify(m, m.state);
      if (m.status === 'terminal_unmatched') m.reason = unmatched(m.state);
      return;
    }
    m.polls++;
    try {
      if (input.local) {
        m.state = (await conversation.getTask(m.task_id))?.state ?? null;
      } else {
        const refreshed = await refreshTask(core, m.task_id, m.alias, 'GetTask', 'barrier', { historyLength: input.historyLength });
        m.state = refreshed.state;
        m.interface = refreshed.interface;
      }
      m.error = null;
      m.reason = null;
      m.status = m.state ? classify(m, m.state) : 'missing';
      if (m.status === 'missing') m.reason = 'not in the local journal';
      if (m.status === 'terminal_unmatched') m.reason = unmatched(m.state!);
    } catch (error) {
      m.status = 'error';
      m.error = toMissiveError(error).toReport();
      m.reason = finalError(m) ? `task not found: the agent no longer knows task ${m.task_id}` : m.error.message;
    }
  };

  let attempts = 0;
  const snapshot = (status: BarrierResult['status'] | null): BarrierResult => {
    const counts = { satisfied: 0, pending: 0, failed: 0, cancelled: 0, missing: 0, error: 0, terminal_unmatched: 0 };
    for (const m of members) counts[m.status]++;
    const final = status ?? 'timeout';
    return {
      operation_id: operationId,
      group: group.group_name,
      context_id: contextId,
      status: final,
      exit_code: { succeeded: 0, failed: 80, cancelled: 81, timeout: 82 }[final],
      quorum: { required, members: total, satisfied: counts.satisfied, from },
      counts,
      target_states: targets,
      success_states: successes,
      attempts,
      elapsed_ms: Date.now() - started,
      source: input.local ? 'local' : 'remote',
      members,
    };
  };

  const decide = (): BarrierResult['status'] | null => {
    const c = snapshot(null).counts;
    if (c.satisfied >= required) return 'succeeded';
    if (failurePolicy === 'stop') {
      if (c.failed + c.error + c.terminal_unmatched > 0) return 'failed';
      if (c.cancelled > 0) return 'cancelled';
    }
    const disqualified = c.failed + c.cancelled + c.missing + c.terminal_unmatched + (failurePolicy === 'stop' ? c.error : members.filter(finalError).length);
    if (total - disqualified < required) return c.cancelled > 0 && c.failed + c.error + c.terminal_unmatched === 0 ? 'cancelled' : 'failed';
    return null;
  };

  let outcome: BarrierResult['status'] | null = null;
  for (;;) {
    attempts++;
    const before = new Map(members.map((m) => [m.alias, m.status]));
    await Promise.all(members.filter((m) => !decided(m)).map(observe));
    for (const m of members) {
      if (m.status !== before.get(m.alias) && decided(m)) {
        await storage.journal.append({
          type: `missive.barrier.member.${m.status}`,
          agentAlias: m.alias,
          contextId,
          taskId: m.task_id,
          payload: { operation_id: operationId, rank: m.rank, state: m.state, polls: m.polls, error: m.error, reason: m.reason },
        });
      }
    }
    outcome = decide();
    input.onRound?.(snapshot(outcome));
    if (outcome) break;
    if (Date.now() - started + interval >= core.timeoutMs) break;
    await new Promise((r) => setTimeout(r, interval));
  }
  const result = snapshot(outcome);
  await storage.journal.append({
    type: 'missive.barrier.completed',
    contextId,
    payload: { operation_id: operationId, status: result.status, quorum: result.quorum, counts: result.counts, attempts },
  });
  return result;
}

/** The members that kept the barrier from its quorum, by status: `missing: a, b; error: c`. */
export const unsatisfiedNames = (r: BarrierResult): string =>
  (['missing', 'failed', 'cancelled', 'error', 'terminal_unmatched'] as const)
    .map((status) => [status, r.members.filter((m) => m.status === status).map((m) => m.alias)] as const)
    .filter(([, aliases]) => aliases.length > 0)
    .map(([status, aliases]) => `${status}: ${aliases.join(', ')}`)
    .join('; ');

/** The help for a failed barrier: when members without a task or reply put the quorum out of reach, the --required that would work. */
function barrierHelp(r: BarrierResult): string | undefined {
  if (r.status === 'timeout') return 'Raise --timeout, or lower --required.';
  const waitable = r.quorum.members - r.counts.missing;
  if (r.counts.missing > 0 && waitable >= 1 && r.quorum.required > waitable)
    return `Only ${waitable} member(s) have a task or reply to wait on: pass --required ${waitable}, or send to the missing member(s) first.`;
  return undefined;
}

export const barrierError = (r: BarrierResult) => {
  const names = unsatisfiedNames(r);
  return new MissiveError(
    'orchestration',
    `barrier_${r.status}`,
    `barrier on "${r.group}" ${r.status}: ${r.quorum.satisfied} of ${r.quorum.required} required satisfied after ${r.attempts} round(s)${names ? `; ${names}` : ''}`,
    { exitCode: r.exit_code, help: barrierHelp(r) },
  );
};
