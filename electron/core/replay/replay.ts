/**
 * `missive events replay --context ID`: rebuilds every bcast / scatter / barrier / gather / reduce summary of a context
 * from its journal alone and holds each against what is stored (the step's completion event and the task, message
 * and result rows). Exit 0 when every step matches, 65 (`missive::data::replay_mismatch`) when one does not.
 */
import { MissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { contextIdOf } from '../contexts/service.js';
import { call, type Steps } from '../store/steps.js';
import type { Actor } from '../store/actor.js';
import { compareSummaries, type FieldDifference } from './compare.js';
import { operationsOf, sendAnswersOf, type StepKind } from './operations.js';
import { rebuildBarrier, rebuildFanOut, rebuildGather, rebuildReduce } from './rebuild.js';
import { storedBarrier, storedFanOut, storedGather, storedReduce } from './stored.js';

export const REPLAY_MISMATCH_EXIT = 65;

export interface ReplayStep {
  step: StepKind;
  operation_id: string;
  group: string | null;
  started_at: string | null;
  /** Who ran the step (host, OS user, actor id) as its journal records it; null for a step journaled before missive recorded it. */
  actor: Actor | null;
  /** False when the journal lacks the step's start or completion (a crash mid-step). */
  complete: boolean;
  rebuilt: Record<string, unknown>;
  stored: Record<string, unknown>;
  match: boolean;
  differences: FieldDifference[];
}

export interface ReplayResult {
  context_id: string;
  status: 'matched' | 'mismatched';
  exit_code: number;
  counts: { steps: number; matched: number; mismatched: number };
  steps: ReplayStep[];
}

/** Replays a context (an id or a name) on the core's store, whichever engine holds it. */
export async function replayContext(core: Core, input: { contextId: string }): Promise<ReplayResult> {
  return (await core.storage()).read(replaySteps(await contextIdOf(core, input.contextId)));
}

function* replaySteps(contextId: string): Steps<ReplayResult> {
  const events = yield* call('contextJournal', contextId);
  const answers = sendAnswersOf(events);
  const steps: ReplayStep[] = [];
  for (const op of operationsOf(events)) {
    let rebuilt: { group: string | null } & Record<string, unknown>;
    let stored: Record<string, unknown>;
    if (op.kind === 'bcast' || op.kind === 'scatter') {
      const r = rebuildFanOut(op, answers);
      rebuilt = { ...r };
      stored = yield* storedFanOut(op, r, answers);
    } else if (op.kind === 'barrier') {
      const r = rebuildBarrier(op);
      rebuilt = { ...r };
      stored = yield* storedBarrier(op, r, contextId);
    } else if (op.kind === 'gather') {
      const r = rebuildGather(op);
      rebuilt = { ...r };
      stored = yield* storedGather(op, r, contextId);
    } else {
      const r = rebuildReduce(op);
      rebuilt = { ...r };
      stored = yield* storedReduce(op, r, contextId);
    }
    const differences = compareSummaries(rebuilt, stored);
    steps.push({
      step: op.kind,
      operation_id: op.operation_id,
      group: rebuilt.group,
      started_at: op.started?.timestamp ?? null,
      actor: (op.started ?? op.finished)?.actor ?? null,
      complete: op.started !== null && op.finished !== null,
      rebuilt,
      stored,
      match: differences.length === 0,
      differences,
    });
  }
  if (steps.length === 0) {
    throw usageError(
      'nothing_to_replay',
      `context ${contextId} has no bcast, scatter, barrier, gather or reduce in the journal`,
      'List contexts with: missive context list',
    );
  }
  const matched = steps.filter((s) => s.match).length;
  const mismatched = steps.length - matched;
  return {
    context_id: contextId,
    status: mismatched ? 'mismatched' : 'matched',
    exit_code: mismatched ? REPLAY_MISMATCH_EXIT : 0,
    counts: { steps: steps.length, matched, mismatched },
    steps,
  };
}

/** The error that goes with a mismatched replay (the report itself is still printed). */
export const replayError = (r: ReplayResult): MissiveError =>
  new MissiveError(
    'data',
    'replay_mismatch',
    `${r.counts.mismatched} of ${r.counts.steps} step(s) in context ${r.context_id} do not match what is stored: ${r.steps
      .filter((s) => !s.match)
      .map((s) => `${s.step} ${s.operation_id}`)
      .join(', ')}`,
    {
      exitCode: REPLAY_MISMATCH_EXIT,
      help: "The stored rows were changed after the step ran, or the step did not finish; see each step's differences.",
    },
  );
