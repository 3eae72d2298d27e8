/**
 * Each collective step's summary as it is stored: the step's closing event (`missive.<step>.completed`) and the rows
 * the step left in SQLite — request and response messages, task states, the members' outputs, the reduce result row.
 * A stored summary holds only the fields that have a stored source; replay compares exactly those.
 */
import type { Db } from '../store/db.js';
import { directResponsesOf, getTask } from '../store/repos/conversation.js';
import { getMessageRecord, localMessagesOfContext } from '../store/repos/collective-records.js';
import { runStepsSync } from '../store/steps.js';
import { memberOutput } from '../collectives/member-output.js';
import { payloadOf, type JournaledOperation, type SendAnswer } from './operations.js';
import { STABLE_STATES, type BarrierSummary, type FanOutSummary, type GatherSummary, type ReduceSummary } from './rebuild.js';

const pick = <K extends string>(source: Record<string, unknown> | undefined, keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, source?.[k] ?? null])) as Record<K, unknown>;

/** bcast / scatter: status and counts from the completion; per member, the request row, the task it is linked to, the answer row. */
export function storedFanOut(db: Db, op: JournaledOperation, rebuilt: FanOutSummary, answers: Map<string, SendAnswer>) {
  const finished = op.finished ? payloadOf(op.finished) : null;
  return {
    status: finished?.status ?? null,
    counts: pick(finished?.counts, ['succeeded', 'failed', 'timeout', 'skipped'] as const),
    members: rebuilt.members.map((m) => {
      // A member that failed before its request was built has no rows: there is nothing stored to hold it against.
      if (!m.request_message_id) return { alias: m.alias, request_message_id: null, task_id: null, answered: false };
      const request = getMessageRecord(db, m.request_message_id);
      const responseId = answers.get(m.request_message_id)?.response_message_id;
      return {
        alias: request?.agent_alias ?? null,
        request_message_id: request?.message_id ?? null,
        task_id: request?.task_id ?? null,
        answered: !!responseId && getMessageRecord(db, responseId) !== null,
      };
    }),
  };
}

/** barrier: quorum and counts from the completion; per member whose journaled state is final, the stored task's state. */
export function storedBarrier(db: Db, op: JournaledOperation, rebuilt: BarrierSummary, contextId: string) {
  const finished = op.finished ? payloadOf(op.finished) : null;
  return {
    required: finished?.quorum?.required ?? null,
    quorum_met: finished ? finished.status === 'succeeded' : false,
    satisfied: finished?.quorum?.satisfied ?? null,
    counts: pick(finished?.counts, Object.keys(rebuilt.counts) as Array<keyof BarrierSummary['counts']>),
    members: op.members.map((e, i) => {
      const state = rebuilt.members[i]!.state;
      if (!state || !STABLE_STATES.includes(state)) return { alias: e.agentAlias };
      if (state === 'message') return { alias: e.agentAlias, state: e.agentAlias && directResponsesOf(db, e.agentAlias, contextId).length ? 'message' : null };
      return { alias: e.agentAlias, state: (e.taskId && getTask(db, e.taskId)?.state) || null };
    }),
  };
}

/** gather: counts from the completion; per member, what its stored task and messages give when gathered again. */
export function storedGather(db: Db, op: JournaledOperation, rebuilt: GatherSummary, contextId: string) {
  const finished = op.finished ? payloadOf(op.finished) : null;
  return {
    counts: pick(finished?.counts, ['gathered', 'missing_task', 'empty_output'] as const),
    members: rebuilt.members.map((m) => {
      if (!m.alias) return { alias: null };
      const o = runStepsSync(db, memberOutput({ alias: m.alias, rank: m.rank ?? 0 }, contextId));
      return { alias: o.alias, status: o.status, text_source: o.text_source, artifacts: o.artifacts.length };
    }),
  };
}

interface ReduceRowMetadata {
  group?: string;
  strategy?: string;
  reducer?: string;
  operation_id?: string;
  provenance?: Array<{ agent?: string; rank?: number; status?: string }>;
}

/** reduce: the result row (by the id its completion names, else by operation id): strategy, reducer, group and provenance. */
export function storedReduce(db: Db, op: JournaledOperation, rebuilt: ReduceSummary, contextId: string) {
  const row = rebuilt.reduced_message_id
    ? getMessageRecord(db, rebuilt.reduced_message_id)
    : (localMessagesOfContext(db, contextId).find((m) => (m.metadata as ReduceRowMetadata).operation_id === op.operation_id) ?? null);
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
