/**
 * Each member's answer where it arrived: what a bcast, scatter or barrier already holds in the journal for each
 * member, read without a gather (nothing is journaled: a read, not an operation). A member named by its task reads
 * that task as gather reads a member's task (text, its source, artifacts); one named by the request a bcast sent it
 * reads that request's answer as History does (its direct reply, or the task it opened); one named by neither reads
 * what gather would (its latest task or reply in the context). Here, above both, since it joins collectives' reading
 * of a member's output with History's reading of a request's answer.
 */
import { isMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { getHistoryEntry } from '../history/service.js';
import { memberOutput, type MemberOutput } from '../collectives/member-output.js';

export interface MemberRef {
  alias: string;
  rank: number;
  contextId: string;
  /** The task the operation reported for the member. */
  taskId?: string;
  /** The request the bcast or scatter sent the member (its answer may be a direct message). */
  requestMessageId?: string;
}

/** The answers of `members`, in the order given. */
export async function memberAnswers(core: Core, members: readonly MemberRef[]): Promise<{ members: MemberOutput[] }> {
  const answers: MemberOutput[] = [];
  for (const m of members) answers.push(await answerOf(core, m));
  return { members: answers };
}

async function answerOf(core: Core, m: MemberRef): Promise<MemberOutput> {
  const member = { alias: m.alias, rank: m.rank };
  let taskId = m.taskId;
  if (!taskId && m.requestMessageId) {
    const entry = await requestEntry(core, m.requestMessageId);
    if (entry?.task_id) taskId = entry.task_id;
    else if (entry) return directAnswer(member, entry.outcome === 'completed' ? entry.answer_text : null, entry.outcome === 'completed');
  }
  const { stored_artifacts: _, ...output } = await (await core.storage()).read(memberOutput(member, m.contextId, taskId));
  return output;
}

/** The request's History entry; null when the journal holds no send of that id (the member failed before it was sent). */
async function requestEntry(core: Core, messageId: string) {
  try {
    return (await getHistoryEntry(core, messageId, () => null)).entry;
  } catch (error) {
    if (isMissiveError(error) && error.code.endsWith('::unknown_request')) return null;
    throw error;
  }
}

/** A member that answered its request with a Message (no task); `answered` false: its send got no answer. */
function directAnswer(member: { alias: string; rank: number }, text: string | null, answered: boolean): MemberOutput {
  const shown = text?.trim() || null;
  return {
    ...member,
    status: !answered ? 'missing_task' : shown ? 'gathered' : 'empty_output',
    task_id: null,
    state: null,
    text: shown,
    text_source: shown ? 'message' : null,
    source_message_id: null,
    artifacts: [],
    message_count: answered ? 1 : 0,
    score: null,
    data: [],
  };
}
