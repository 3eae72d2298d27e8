/**
 * Who took part in the round of a context: the members (alias, rank) of its latest bcast or scatter as the journal
 * recorded them at the start, so a group edited since still diffs the round as it ran; `--group` names them instead.
 * Read from the journal of either engine.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { requireGroup } from '../collectives/groups.js';
import { readableEvent } from '../store/rows/events.js';

export interface RoundMember {
  alias: string;
  rank: number;
}

export async function roundMembers(core: Core, contextId: string, group?: string): Promise<RoundMember[]> {
  if (group) return (await requireGroup(core, group)).members.map((m) => ({ alias: m.agent_alias, rank: m.rank }));
  // The newest (highest sequence) start of each kind, as SQLite's listEvents and PostgreSQL's list both order them.
  const { journalReads } = await core.storage();
  const starts = (
    await Promise.all(['missive.bcast.started', 'missive.scatter.started'].map((type) => journalReads.list({ contextId, type, limit: 1 })))
  ).flat();
  const newest = starts.sort((x, y) => y.sequence - x.sequence)[0];
  const latest = newest && readableEvent(newest);
  const members = (latest?.payload as { members?: Array<{ alias?: unknown; rank?: unknown }> } | undefined)?.members;
  if (!Array.isArray(members) || members.length === 0) {
    throw usageError(
      'no_round_in_context',
      `context ${contextId} has no bcast or scatter in the journal`,
      'Name the members with --group GROUP, or check the context id with: missive context list',
    );
  }
  return members.filter((m) => typeof m.alias === 'string').map((m) => ({ alias: m.alias as string, rank: typeof m.rank === 'number' ? m.rank : 0 }));
}
