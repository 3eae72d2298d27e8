/**
 * Each collective step's summary as it is stored: the step's closing event (`missive.<step>.completed`) and the rows
 * the step left in the store — request and response messages, task states, the members' outputs, the reduce result
 * row. A stored summary holds only the fields that have a stored source; replay compares exactly those. Each is a
 * sequence of reads (store/steps.ts), run on either engine.
 */
import { call, type Steps } from '../store/steps.js';
import { memberOutput } from '../collectives/member-output.js';
import { payloadOf, type JournaledOperation, type SendAnswer } from './operations.js';
import { STABLE_STATES, type BarrierSummary, type FanOutSummary, type GatherSummary, type ReduceSummary } from './rebuild.js';

const pick = <K extends string>(source: Record<string, unknown> | undefined, keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, source?.[k] ?? null])) as Record<K, unknown>;

/** bcast / scatter: status and counts from the completion; per member, the request row, the task it is linked to, the answer row. */
export function* storedFanOut(op: JournaledOperation, rebuilt: FanOutSummary, answers: Map<string, SendAnswer>): Steps<Record<string, unknown>> {
  const finished = op.finished ? payloadOf(op.finished) : null;
  const members: Array<Record<string, unknown>> = [];
  for (const m of rebuilt.members) {
    // A member that failed before its request was built has no rows: there is nothing stored to hold it against.
    if (!m.request_message_id) {
      members.push({ alias: m.alias, request_message_id: null, task_id: null, answered: false });
      continue;
    }
    const request = yield* call('getMessageRecord', m.request_message_id);
    const responseId = answers.get(m.request_message_id)?.response_message_id;
    members.push({
      alias: request?.agent_alias ?? null,
      request_message_id: request?.message_id ?? null,
      task_id: request?.task_id ?? null,
      answered: !!responseId && (yield* call('getMessageRecord', responseId)) !== null,
    });
  }
  return { status: finished?.status ?? null, counts: pick(finished?.counts, ['succeeded', 'failed', 'timeout', 'skipped'] as const), members };
}

/** barrier: quorum and counts from the completion; per member whose journaled state is final, the stored task's state. */
export function* storedBarrier(op: JournaledOperation, rebuilt: BarrierSummary, contextId: string): Steps<Record<string, unknown>> {
  const finished = op.finished ? payloadOf(op.finished) : null;
  const members: Array<Record<string, unknown>> = [];
  for (const [i, e] of op.members.entries()) {
    const state = rebuilt.members[i]!.state;
    if (!state || !STABLE_STATES.includes(state)) members.push({ alias: e.agentAlias });
    else if (state === 'message')
      members.push({ alias: e.agentAlias, state: e.agentAlias && (yield* call('directResponsesOf', e.agentAlias, contextId)).length ? 'message' : null });
    else members.push({ alias: e.agentAlias, state: (e.taskId && (yield* call('getTask', e.taskId))?.state) || null });
  }
  return {
    required: finished?.quorum?.required ?? null,
    quorum_met: finished ? finished.status === 'succeeded' : false,
    satisfied: finished?.quorum?.satisfied ?? null,
    counts: pick(finished?.counts, Object.keys(rebuilt.counts) as Array<keyof BarrierSummary['counts']>),
    members,
  };
}

/** gather: counts from the completion; per member, what its stored task and messages give when gathered again. */
export function* storedGather(op: JournaledOperation, rebuilt: GatherSummary, contextId: string): Steps<Record<string, unknown>> {
  const finished = op.finished ? payloadOf(op.finished) : null;
  const members: Array<Record<string, unknown>> = [];
  for (const m of rebuilt.members) {
    if (!m.alias) {
      members.push({ alias: null });
      continue;
    }
    const o = yield* memberOutput({ alias: m.alias, rank: m.rank ?? 0 }, contextId);
    members.push({ alias: o.alias, status: o.status, text_source: o.text_source, artifacts: o.artifacts.length });
  }
  return { counts: pick(finished?.counts, ['gathered', 'missing_task', 'empty_output'] as const), members };
}

interface ReduceRowMetadata {
  group?: string;
  strategy?: string;
  reducer?: string;
  operation_id?: string;
  provenance?: Array<{ agent?: string; rank?: number; status?: string }>;
}

/** reduce: the result row (by the id its completion names, else by operation id): strategy, reducer, group and provenance. */
export function* storedReduce(op: JournaledOperation, rebuilt: ReduceSummary, contextId: string): Steps<Record<string, unknown>> {
  const row = rebuilt.reduced_message_id
    ? yield* call('getMessageRecord', rebuilt.reduced_message_id)
    : ((yield* call('localMessagesOfContext', contextId)).find((m) => (m.metadata as ReduceRowMetadata).operation_id === op.operation_id) ?? null);
  if (!row) return { status: rebuilt.status === 'completed' ? 'missing' : rebuilt.status };
  const meta = row.metadata as ReduceRowMetadata;
  const provenance = Array.isArray(meta.provenance) ? meta.provenance : [];
  return {
    group: meta.group ?? null,
    status: 'completed',
    strategy: meta.strategy ?? null,
    reducer: meta.reducer ?? null,
    inputs: provenance.filter((p) => p.status === 'gathered').length,
    reduced_message_id: row.message_id,
    members: provenance.map((p) => ({ alias: p.agent ?? null, rank: p.rank ?? null, status: p.status ?? null })),
  };
}
