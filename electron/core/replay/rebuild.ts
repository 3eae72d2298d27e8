/**
 * Each collective step's summary rebuilt from the journal alone: the per-member events and the sends' completions,
 * counted and decided with the same rules the step itself used. Nothing here reads tasks or messages.
 */
import { memberStatusOf, payloadOf, type JournaledOperation, type SendAnswer } from './operations.js';
import { TERMINAL_TASK_STATES } from '../../../shared/task-states.js';

/** States that never change again (a terminal task state, or a direct message): a barrier member's state in one of these must still be the stored task's. */
export const STABLE_STATES: readonly string[] = [...TERMINAL_TASK_STATES, 'message'];

export interface FanOutSummary {
  group: string | null;
  status: string | null;
  counts: Record<'succeeded' | 'failed' | 'timeout' | 'skipped', number>;
  members: Array<{
    alias: string | null;
    rank: number | null;
    input_index: number | null;
    status: string;
    request_message_id: string | null;
    task_id: string | null;
    answered: boolean;
  }>;
}

export interface BarrierSummary {
  group: string | null;
  required: number | null;
  quorum_met: boolean;
  satisfied: number;
  counts: Record<'satisfied' | 'failed' | 'cancelled' | 'missing' | 'terminal_unmatched', number>;
  members: Array<{ alias: string | null; status: string; state: string | null }>;
}

export interface GatherSummary {
  group: string | null;
  counts: Record<'gathered' | 'missing_task' | 'empty_output', number>;
  members: Array<{ alias: string | null; rank: number | null; status: string; text_source: string | null; artifacts: number }>;
}

export interface ReduceSummary {
  group: string | null;
  status: 'completed' | 'failed' | 'incomplete';
  strategy: string | null;
  reducer: string | null;
  inputs: number;
  reduced_message_id: string | null;
  members: Array<{ alias: string | null; rank: number | null; status: string }>;
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** bcast / scatter: member outcomes (rank order), the answers their sends journaled, and the run's status by fan-out's rule. */
export function rebuildFanOut(op: JournaledOperation, answers: Map<string, SendAnswer>): FanOutSummary {
  const started = op.started ? payloadOf(op.started) : {};
  const counts = { succeeded: 0, failed: 0, timeout: 0, skipped: 0 };
  const members = op.members.map((e) => {
    const p = payloadOf(e);
    const status = memberStatusOf(e);
    if (status in counts) counts[status as keyof typeof counts]++;
    const answer = typeof p.request_message_id === 'string' ? answers.get(p.request_message_id) : undefined;
    return {
      alias: e.agentAlias,
      rank: num(p.rank),
      input_index: num(p.input_index),
      status,
      request_message_id: str(p.request_message_id),
      task_id: answer?.task_id ?? e.taskId ?? null,
      answered: !!answer?.response_message_id,
    };
  });
  // The fan-out reports its members in rank order, then input order (scatter), whatever order they finished in.
  members.sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0) || (a.input_index ?? 0) - (b.input_index ?? 0));
  const policy = started.failure_policy ?? 'stop';
  const status = !op.finished
    ? null
    : counts.timeout > 0
      ? 'timeout'
      : counts.failed + counts.skipped === 0
        ? 'succeeded'
        : policy === 'continue' && counts.succeeded > 0
          ? 'partial_failure'
          : 'failed';
  return { group: str(started.group), status, counts, members };
}

/** barrier: the members' decisions as journaled, and whether they reach the quorum the barrier started with. */
export function rebuildBarrier(op: JournaledOperation): BarrierSummary {
  const started = op.started ? payloadOf(op.started) : {};
  const counts = { satisfied: 0, failed: 0, cancelled: 0, missing: 0, terminal_unmatched: 0 };
  const members = op.members.map((e) => {
    const status = memberStatusOf(e);
    if (status in counts) counts[status as keyof typeof counts]++;
    return { alias: e.agentAlias, status, state: str(payloadOf(e).state) };
  });
  const required = num(started.required);
  return { group: str(started.group), required, quorum_met: required !== null && counts.satisfied >= required, satisfied: counts.satisfied, counts, members };
}

/** gather: what each member's event says was gathered, and the counts. */
export function rebuildGather(op: JournaledOperation): GatherSummary {
  const started = op.started ? payloadOf(op.started) : {};
  const counts = { gathered: 0, missing_task: 0, empty_output: 0 };
  const members = op.members.map((e) => {
    const p = payloadOf(e);
    const status = memberStatusOf(e);
    if (status in counts) counts[status as keyof typeof counts]++;
    return { alias: e.agentAlias, rank: num(p.rank), status, text_source: str(p.text_source), artifacts: num(p.artifacts) ?? 0 };
  });
  return { group: str(started.group), counts, members };
}

/** reduce: strategy and reducer from its start, the inputs it took, and the result row its completion names. */
export function rebuildReduce(op: JournaledOperation): ReduceSummary {
  const started = op.started ? payloadOf(op.started) : {};
  const finished = op.finished ? payloadOf(op.finished) : null;
  const members = op.members.map((e) => ({ alias: e.agentAlias, rank: num(payloadOf(e).rank), status: memberStatusOf(e) }));
  return {
    group: str(started.group),
    status: !op.finished ? 'incomplete' : op.finished.type === 'missive.reduce.failed' ? 'failed' : 'completed',
    strategy: str(started.strategy),
    reducer: str(started.reducer),
    inputs: members.filter((m) => m.status === 'gathered').length,
    reduced_message_id: str(finished?.reduced_message_id),
    members,
  };
}
