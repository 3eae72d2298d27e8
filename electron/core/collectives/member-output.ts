/**
 * What one member produced in a context, read from the local journal: its latest task (or direct Message answer),
 * the text to show, and the artifacts. Shared by gather and reduce.
 *
 * Text order: the latest non-request message with text, then the task's status message, then the first text
 * artifact. A member with no task and no direct answer is `missing_task`; one with nothing to show is `empty_output`.
 */
import { textOfParts } from '../a2a/part-text.js';
import { artifactText } from '../../../shared/artifact-text.js';
import { call, type Steps } from '../store/steps.js';
import type { ArtifactSummary, StoredArtifact, StoredMessage, TaskStateName } from '../store/rows/conversation.js';

export type GatherStatus = 'gathered' | 'missing_task' | 'empty_output';

export interface MemberOutput {
  alias: string;
  rank: number;
  status: GatherStatus;
  task_id: string | null;
  state: TaskStateName | null;
  text: string | null;
  text_source: 'message' | 'status' | 'artifact' | null;
  source_message_id: string | null;
  artifacts: Array<Pick<ArtifactSummary, 'artifact_id' | 'name' | 'kind' | 'version'>>;
  message_count: number;
  /** A numeric `score` from the source message's or the task's metadata, when the agent gave one (reduce --strategy rank). */
  score: number | null;
  /** Data parts of the member's output (artifacts first, then the source message), for reduce --strategy merge. */
  data: unknown[];
}

const PREVIEW_CHARS = 4000;

/** Gathered text is shown trimmed; whitespace-only output counts as none. */
const textOf = (parts: unknown): string | null => textOfParts(parts)?.trim() || null;

/** Where a stored row's content may carry message parts: a Message, a stream event, a task snapshot. */
type StatusHolder = { status?: { message?: { parts?: unknown } } };
type StoredContent = { parts?: unknown; message?: { parts?: unknown }; statusUpdate?: StatusHolder; task?: StatusHolder };

/** Text of a stored message row, whatever its shape (Message, stream event, synthetic). */
export function textOfStoredContent(stored: object): string | null {
  const content = stored as StoredContent;
  return (
    textOf(content.parts) ??
    textOf(content.message?.parts) ??
    textOf(content.statusUpdate?.status?.message?.parts) ??
    textOf(content.task?.status?.message?.parts) ??
    null
  );
}

const firstWithText = (rows: StoredMessage[]) => {
  for (const row of rows) {
    const text = textOfStoredContent(row.content);
    if (text) return { row, text };
  }
  return null;
};

/**
 * What `member` produced in `contextId` (reads only: run it with `Storage.read`, on either store). `taskId`: the task
 * a bcast or barrier reported for the member, read instead of the member's latest task in the context.
 */
export function* memberOutput(
  member: { alias: string; rank: number },
  contextId: string,
  taskId?: string,
): Steps<MemberOutput & { stored_artifacts: StoredArtifact[] }> {
  const base = { alias: member.alias, rank: member.rank, artifacts: [], stored_artifacts: [], message_count: 0, score: null, data: [] };
  const task = taskId ? yield* call('getTask', taskId) : yield* call('latestTaskOf', member.alias, contextId);
  if (!task) {
    const direct = yield* call('directResponsesOf', member.alias, contextId);
    if (!direct.length) return { ...base, status: 'missing_task', task_id: null, state: null, text: null, text_source: null, source_message_id: null };
    const found = firstWithText(direct);
    const row = found?.row ?? direct.find((m) => dataParts(m.content.parts).length > 0);
    const data = dataParts(row?.content.parts);
    return {
      ...base,
      status: found || data.length ? 'gathered' : 'empty_output',
      task_id: null,
      state: null,
      text: found?.text ?? null,
      text_source: found ? 'message' : null,
      source_message_id: row?.message_id ?? null,
      message_count: direct.length,
      score: scoreOf(row?.content.metadata),
      data,
    };
  }
  const messages = yield* call('responsesOfTask', task.task_id);
  const summaries = yield* call('listArtifactsOfTask', task.task_id);
  const stored: StoredArtifact[] = [];
  for (const a of summaries) {
    const artifact = yield* call('getArtifact', task.task_id, a.artifact_id);
    if (artifact) stored.push(artifact);
  }
  const artifacts = summaries.map(({ artifact_id, name, kind, version }) => ({ artifact_id, name, kind, version }));
  let text: string | null = null;
  let source: MemberOutput['text_source'] = null;
  let sourceId: string | null = null;
  const taskJson = (yield* call('getTaskJson', task.task_id)) as { metadata?: unknown; status?: { message?: { parts?: unknown } } } | null;
  const fromMessage = firstWithText(messages.filter((m) => !m.content.artifactUpdate));
  if (fromMessage) {
    text = fromMessage.text;
    source = 'message';
    sourceId = fromMessage.row.message_id;
  } else {
    const status = textOf(taskJson?.status?.message?.parts);
    if (status) {
      text = status;
      source = 'status';
    } else {
      // The first artifact with text, its pieces (one per token, often) joined as one text.
      const found = stored.map((a) => artifactText(a.content.parts)?.trim()).find((t) => t);
      if (found) {
        text = found.slice(0, PREVIEW_CHARS);
        source = 'artifact';
      }
    }
  }
  return {
    alias: member.alias,
    rank: member.rank,
    status: text || artifacts.length ? 'gathered' : 'empty_output',
    task_id: task.task_id,
    state: task.state,
    text,
    text_source: source,
    source_message_id: sourceId,
    artifacts,
    stored_artifacts: stored,
    message_count: messages.length,
    score: scoreOf(fromMessage?.row.content.metadata) ?? scoreOf(taskJson?.metadata),
    data: [...stored.flatMap((a) => dataParts(a.content.parts)), ...dataParts(fromMessage?.row.content.parts)],
  };
}

function scoreOf(metadata: unknown): number | null {
  const value = (metadata as { score?: unknown } | null | undefined)?.score;
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

const dataParts = (parts: unknown): unknown[] =>
  Array.isArray(parts) ? parts.filter((p) => p && typeof p === 'object' && 'data' in p).map((p: { data: unknown }) => p.data) : [];
