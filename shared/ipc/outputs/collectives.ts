/** What `groups.*` and `collectives.*` answer: groups, and the outcome of bcast, barrier, gather, reduce and round. */
import { z } from 'zod';
import { artifactFile, count, loose, maybeText, reportedError, selectedInterface, taskState, text } from './common.js';

/** A group and its members in rank order (core/collectives/groups.ts `GroupView`). */
const groupFields = {
  group_name: text,
  routing_policy: text,
  notes: maybeText,
  metadata: z.record(z.string(), z.unknown()),
  created_at: text,
  updated_at: text,
};
export const groupRow = loose({ ...groupFields, members: count });
export const groupView = loose({
  ...groupFields,
  members: z.array(loose({ group_name: text, agent_alias: text, rank: count, tags: z.array(text), weight: count })),
});

/** One member's outcome of a bcast (core/collectives/fan-out.ts `MemberResult`). */
const fanOutMember = loose({
  alias: text,
  rank: count,
  input_index: count.nullable(),
  status: z.enum(['pending', 'running', 'succeeded', 'failed', 'timeout', 'skipped']),
  request_message_id: maybeText,
  selected_interface: selectedInterface.nullable(),
  response_shape: z.enum(['message', 'task']).nullable(),
  task_id: maybeText,
  context_id: text,
  state: taskState.nullable(),
  latency_ms: count.nullable(),
  error: reportedError.nullable(),
});
export const fanOutResult = loose({
  operation_id: text,
  kind: z.enum(['bcast', 'scatter']),
  group: text,
  status: z.enum(['succeeded', 'partial_failure', 'failed', 'timeout']),
  execution: z.enum(['concurrent', 'sequential']),
  max_concurrency: count,
  failure_policy: z.enum(['stop', 'continue']),
  request: loose({ context_id: text, context_created: z.boolean(), parts: count.nullable(), bytes: count.nullable() }),
  counts: loose({ succeeded: count, failed: count, timeout: count, skipped: count }),
  members: z.array(fanOutMember),
  elapsed_ms: count,
  exit_code: count,
});

/** core/collectives/barrier.ts `BarrierResult`. */
export const barrierResult = loose({
  operation_id: text,
  group: text,
  context_id: text,
  status: z.enum(['succeeded', 'failed', 'cancelled', 'timeout']),
  exit_code: count,
  /** `from`: where `required` came from: --required, every member, or the members a `--from-bcast` bcast reached. */
  quorum: loose({ required: count, members: count, satisfied: count, from: z.enum(['option', 'members', 'bcast']).optional() }),
  counts: z.record(z.string(), count),
  target_states: z.array(taskState),
  success_states: z.array(taskState),
  attempts: count,
  elapsed_ms: count,
  source: z.enum(['local', 'remote']),
  members: z.array(
    loose({
      alias: text,
      rank: count,
      task_id: maybeText,
      state: z.union([taskState, z.literal('message')]).nullable(),
      status: z.enum(['satisfied', 'pending', 'failed', 'cancelled', 'missing', 'error', 'terminal_unmatched']),
      interface: selectedInterface.nullable(),
      polls: count,
      error: reportedError.nullable(),
      /** Why the member is not satisfied, in words (missing, an error such as a task the agent no longer knows, an unmatched final state). */
      reason: maybeText.optional(),
    }),
  ),
});

const gatherStatus = z.enum(['gathered', 'missing_task', 'empty_output']);

/** What a member produced in a context (core/collectives/member-output.ts `MemberOutput`): gather's and `collectives.answers`' rows. */
export const memberOutput = loose({
  alias: text,
  rank: count,
  status: gatherStatus,
  task_id: maybeText,
  state: taskState.nullable(),
  text: maybeText,
  text_source: z.enum(['message', 'status', 'artifact']).nullable(),
  source_message_id: maybeText,
  artifacts: z.array(loose({ artifact_id: text, name: maybeText, kind: text, version: count })),
  message_count: count,
  score: count.nullable(),
  data: z.array(z.unknown()),
});

/** core/collectives/gather.ts `GatherResult`. */
export const gatherResult = loose({
  operation_id: text,
  group: text,
  context_id: text,
  counts: z.record(z.string(), count),
  members: z.array(memberOutput),
  export: loose({ directory: text, files: z.array(artifactFile) }).nullable(),
});

/** core/collectives/reduce.ts `ReduceResult`. */
export const reduceResult = loose({
  operation_id: text,
  group: text,
  context_id: text,
  strategy: z.enum(['summarise', 'vote', 'merge', 'rank', 'custom']),
  counts: loose({ members: count, inputs: count, missing_task: count, empty_output: count }),
  reducer: loose({ method: z.enum(['local', 'agent', 'command']), agent: maybeText, prompt_bytes: count, template_applied: z.boolean(), task_id: maybeText }),
  reduced_text: text,
  /** Which member's output went in, from which task and artifacts. */
  provenance: z.array(
    loose({
      agent: text,
      rank: count,
      status: gatherStatus,
      task_id: maybeText,
      state: maybeText,
      text: maybeText,
      source_message_id: maybeText,
      artifacts: z.array(loose({ artifact_id: text, version: count })),
    }),
  ),
  persistence: loose({ reduced_message_id: text }),
});

/** core/collectives/round.ts `RoundResult`: bcast, then barrier, gather and reduce (null when the round stopped before). */
export const roundResult = loose({
  group: text,
  context_id: text,
  status: z.enum(['succeeded', 'partial', 'failed']),
  exit_code: count,
  bcast: fanOutResult,
  barrier: barrierResult.nullable(),
  gather: gatherResult.nullable(),
  reduce: reduceResult.nullable(),
  error: reportedError.nullable(),
});
