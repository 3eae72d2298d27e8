/**
 * The runs of narrow update rows (schema v14, journal_runs): what one run holds, as the update sink builds it during a
 * tick and as both engines store it. A run is the updates of one agent and context written in one tick; the journal's
 * filters other than the task find narrow rows through it. Neither engine owns this module.
 */
import { UPDATE_EVENT_TYPES } from './update-rows.js';
import type { NewEvent } from './events.js';

export interface UpdateRun {
  first: number;
  last: number;
  agentAlias: string | null;
  contextId: string | null;
  /** A bit per UPDATE_EVENT_TYPES entry the run holds. */
  types: number;
  count: number;
}

/** The bit of an update event type in `UpdateRun.types` (0 for a type that is not an update's). */
export function updateTypeBit(type: string): number {
  const at = UPDATE_EVENT_TYPES.indexOf(type);
  return at < 0 ? 0 : 1 << at;
}

/** The bits of the update types `matches` keeps (a `--type` filter: exact, or a prefix). */
export const updateTypeBits = (matches: (type: string) => boolean): number =>
  UPDATE_EVENT_TYPES.reduce((bits, type, i) => (matches(type) ? bits | (1 << i) : bits), 0);

/** The run key of an update's agent and context within a tick. */
export const runKey = (agentAlias: string | null | undefined, contextId: string | null | undefined): string =>
  `run ${agentAlias ?? ''}\u0000${contextId ?? ''}`;

/** `run` with one more update, `event` appended as `sequence` (a new run of its agent and context when there is none yet). */
export function extendRun(run: UpdateRun | null, sequence: number, event: Pick<NewEvent, 'type' | 'agentAlias' | 'contextId'>): UpdateRun {
  const bit = updateTypeBit(event.type);
  if (!run) return { first: sequence, last: sequence, agentAlias: event.agentAlias ?? null, contextId: event.contextId ?? null, types: bit, count: 1 };
  return { ...run, last: sequence, types: run.types | bit, count: run.count + 1 };
}
