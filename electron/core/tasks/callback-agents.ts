/**
 * Push callbacks that beat their send: the receiver journals a callback whose task has no row yet unlinked, without an
 * agent (`payload.linked: false`). The journal is append-only, so such an event is never rewritten once the send
 * lands; its readers resolve the agent instead, from the task row the send wrote since (its owner, as a callback
 * that arrived later is linked to). A callback whose task never got a row stays without an agent.
 */
import type { EventRow } from '../store/rows/events.js';
import type { Storage } from '../store/storage.js';

const unlinkedCallback = (row: EventRow) =>
  row.agentAlias === null && row.taskId !== null && row.type.startsWith('a2a.push.') && (row.payload as { linked?: unknown } | null)?.linked === false;

/** `rows` with each unlinked callback's agent taken from its task's row (one read per task named), in order. */
export async function withCallbackAgents<R extends EventRow>(storage: Storage, rows: R[]): Promise<R[]> {
  const taskIds = new Set(rows.filter(unlinkedCallback).map((r) => r.taskId!));
  if (taskIds.size === 0) return rows;
  const owners = new Map<string, string>();
  for (const taskId of taskIds) {
    const owner = (await storage.conversation.getTask(taskId))?.agent_alias;
    if (owner) owners.set(taskId, owner);
  }
  return rows.map((r) => (unlinkedCallback(r) && owners.has(r.taskId!) ? { ...r, agentAlias: owners.get(r.taskId!)! } : r));
}
