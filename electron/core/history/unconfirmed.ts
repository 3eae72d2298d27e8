/**
 * The end of an unconfirmed request's trail. A job whose request left without a recorded answer is not sent again
 * (`job_dispatch_unconfirmed`); its request then gets an end in the journal, so `history` says `unconfirmed` instead
 * of `running` forever. The end is an `a2a.<op>.failed` event carrying that error (the journal's request index holds
 * the started, completed and failed events only), once per request (a dedupe key). Whether the agent acted is not
 * known: asking it (`missive task list --remote --agent A`) records its task on the request (tasks/persist.ts).
 */
import type { MissiveError } from '../../../shared/errors.js';
import type { JournalRow } from '../store/rows/history.js';
import type { Storage } from '../store/storage.js';

export const UNCONFIRMED_CODE = 'missive::orchestration::job_dispatch_unconfirmed';

/** The command that finds an unconfirmed request's task on its agent (and records it here). */
export const findTaskCommand = (agent: string | null) => `missive task list --remote --agent ${agent ?? '<alias>'}`;

/** True for the end event `endUnconfirmed` journals. */
export const isUnconfirmedEnd = (end: JournalRow | undefined): boolean =>
  Boolean(end?.type.endsWith('.failed') && (end.payload.error as { code?: unknown } | undefined)?.code === UNCONFIRMED_CODE);

/**
 * Journals the end of the request sent under `messageId` as unconfirmed, unless it already has one (its answer was
 * recorded after all, or another gateway ended it); returns `error` for the caller to throw.
 */
export async function endUnconfirmed(storage: Storage, messageId: string, error: MissiveError): Promise<MissiveError> {
  const events = await storage.history.requestEvents([messageId]);
  const start = events.find((e) => e.type.endsWith('.started'));
  if (!start || events.some((e) => !e.type.endsWith('.started'))) return error;
  await storage.journal.append({
    type: start.type.replace(/\.started$/, '.failed'),
    agentAlias: start.agentAlias,
    contextId: start.contextId,
    dedupeKey: `unconfirmed:${messageId}`,
    payload: { message_id: messageId, error: error.toReport() },
  });
  return error;
}
