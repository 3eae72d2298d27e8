/**
 * round: bcast → barrier → gather → reduce in one context, each step journaled as if run alone. It stops after a
 * bcast that reached nobody; after a barrier short of quorum it still gathers and reduces what finished, and exits
 * with the barrier's code.
 */
import type { Core } from '../handle.js';
import { barrier, type BarrierResult } from './barrier.js';
import { bcast, type FanOutOptions, type MessageInputs } from './bcast.js';
import type { FanOutResult } from './fan-out.js';
import { gather, type GatherResult } from './gather.js';
import { reduce, type ReduceResult } from './reduce.js';
import { MissiveError, toMissiveError, type ErrorReport } from '../../../shared/errors.js';

export interface RoundInput extends FanOutOptions {
  inputs: MessageInputs;
  reduce?: { strategy?: string; reducerAgent?: string; template?: string; command?: string };
  barrier?: { states?: string[]; required?: number; intervalMs?: number };
  cwd: string;
  onStep?: (step: 'bcast' | 'barrier' | 'gather' | 'reduce', result: unknown) => void;
}

export interface RoundResult {
  group: string;
  context_id: string;
  status: 'succeeded' | 'partial' | 'failed';
  exit_code: number;
  bcast: FanOutResult;
  barrier: BarrierResult | null;
  gather: GatherResult | null;
  reduce: ReduceResult | null;
  error: ErrorReport | null;
}

export async function round(core: Core, input: RoundInput): Promise<RoundResult> {
  // The context is the round's: the Contexts view names it "round over group <g>".
  const sent = await bcast(core, input.inputs, { ...input, createdBy: 'round' });
  input.onStep?.('bcast', sent);
  const contextId = sent.request.context_id;
  const base = { group: sent.group, context_id: contextId, bcast: sent, barrier: null, gather: null, reduce: null, error: null };
  if (sent.counts.succeeded === 0) return { ...base, status: 'failed', exit_code: sent.exit_code || 70 };

  const waited = await barrier(core, {
    group: input.group,
    fromBcast: sent,
    failurePolicy: 'continue',
    states: input.barrier?.states,
    // Unset: the barrier waits for the members the bcast reached (its --from-bcast default).
    required: input.barrier?.required,
    intervalMs: input.barrier?.intervalMs ?? 250,
  });
  input.onStep?.('barrier', waited);
  const gathered = await gather(core, { group: input.group, contextId, cwd: input.cwd });
  input.onStep?.('gather', gathered);
  let reduced: ReduceResult | null = null;
  let error: MissiveError | null = null;
  try {
    reduced = await reduce(core, { group: input.group, contextId, cwd: input.cwd, ...input.reduce });
    input.onStep?.('reduce', reduced);
  } catch (e) {
    error = toMissiveError(e);
  }
  const exit = error?.exitCode ?? (waited.exit_code || sent.exit_code);
  const clean = !error && waited.exit_code === 0 && sent.status === 'succeeded';
  return {
    ...base,
    barrier: waited,
    gather: gathered,
    reduce: reduced,
    error: error?.toReport() ?? null,
    status: clean ? 'succeeded' : reduced ? 'partial' : 'failed',
    exit_code: exit,
  };
}

export const roundError = (r: RoundResult): MissiveError =>
  new MissiveError(
    'orchestration',
    `round_${r.status}`,
    r.error?.message ?? `round on "${r.group}" ${r.status}: bcast ${r.bcast.status}, barrier ${r.barrier?.status ?? 'not run'}`,
    {
      exitCode: r.exit_code,
    },
  );
