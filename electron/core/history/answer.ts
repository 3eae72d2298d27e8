/**
 * The answer of a journaled send or stream: the response as stored (`{message}` or `{task}` with its artifacts) and
 * its text — the direct message's text, else the task's status message, else what the task produced (a send: its
 * artifacts' text; a stream: the artifact chunks and status messages it streamed, in order). Text is collected up
 * to a bound, so a list of entries never assembles a long stream whole.
 */
import type { JournalRow, MessageRow } from '../store/rows/history.js';
import type { Repositories } from '../store/storage.js';
import { textOfParts } from '../a2a/part-text.js';
import { artifactText } from '../../../shared/artifact-text.js';
import { isUnconfirmedEnd } from './unconfirmed.js';

/** How much of an answer to read: `maxText` characters (the entry notes a cut), `full` the response JSON too. */
export interface AnswerBounds {
  maxText: number;
  /** Journal rows a stream's events are looked for in, after its start (a running stream has no end to stop at). */
  maxScanned: number;
  /** Build `response` (the whole task with its artifacts): history.get does, the list does not. */
  full: boolean;
}

export interface Answer {
  text: string | null;
  /** True when `text` was cut at `maxText`. */
  truncated: boolean;
  response: { message: Record<string, unknown> } | { task: Record<string, unknown> } | null;
}

/** Collects text pieces up to a bound: chunks of one appended artifact join directly, other pieces on new lines. */
class TextCollector {
  private text = '';
  /** True once the bound was reached (the text was cut there). */
  truncated = false;
  constructor(private readonly max: number) {}
  add(piece: string | null, join: 'direct' | 'line' = 'line'): void {
    if (!piece || this.truncated) return;
    const separator = join === 'line' && this.text && !this.text.endsWith('\n') ? '\n' : '';
    this.text += separator + piece;
    if (this.text.length > this.max) {
      this.text = this.text.slice(0, this.max);
      this.truncated = true;
    }
  }
  result(): string | null {
    return this.text || null;
  }
}

/** Bounds a text at `max` characters; `truncated` says whether it was cut. */
function bounded(text: string | null, max: number): { text: string | null; truncated: boolean } {
  if (text === null || text.length <= max) return { text, truncated: false };
  return { text: text.slice(0, max), truncated: true };
}

const statusMessageText = (task: Record<string, unknown> | null) =>
  textOfParts((task?.status as { message?: { parts?: unknown } } | undefined)?.message?.parts);

/** The task JSON as stored, with its artifacts as the artifact rows hold them now (streams append to those). */
async function taskWithArtifacts(store: Repositories, taskId: string, json: Record<string, unknown>): Promise<Record<string, unknown>> {
  const artifacts: Array<Record<string, unknown>> = [];
  for (const a of await store.conversation.listArtifactsOfTask(taskId)) artifacts.push((await store.conversation.getArtifact(taskId, a.artifact_id))!.content);
  return { ...json, ...(artifacts.length ? { artifacts } : {}) };
}

/** The text a task's artifacts hold, chunk by chunk, up to the bound. */
async function artifactsText(store: Repositories, taskId: string, bounds: AnswerBounds): Promise<{ text: string | null; truncated: boolean }> {
  const text = new TextCollector(bounds.maxText);
  let previous: string | null = null;
  await store.history.scanArtifactChunks(taskId, 10_000, undefined, (chunk) => {
    text.add(artifactText(chunk.parts), chunk.artifactId === previous ? 'direct' : 'line');
    previous = chunk.artifactId;
    return !text.truncated;
  });
  return { text: text.result(), truncated: text.truncated };
}

/** The response row a send answered with a Message: named by its completion event, else the next direct answer. */
async function directResponse(store: Repositories, completed: JournalRow, request: MessageRow | undefined): Promise<MessageRow | undefined> {
  const named = completed.payload.response_message_id;
  if (typeof named === 'string') return store.history.getMessageRow(named);
  return request && completed.agentAlias ? store.history.firstDirectResponseAfter(completed.agentAlias, request.row) : undefined;
}

/** The answer of a send (`end` is its completion or failure event, absent while it runs). */
export async function sendAnswer(
  store: Repositories,
  end: JournalRow | undefined,
  request: MessageRow | undefined,
  taskId: string | null,
  bounds: AnswerBounds,
): Promise<Answer> {
  // An unconfirmed send has no answer of its own, but the task its agent was asked about since (tasks/persist.ts).
  const answered = end?.type === 'a2a.send.completed';
  if (!answered && !(isUnconfirmedEnd(end) && taskId)) return { text: null, truncated: false, response: null };
  if (answered && end.payload.response_shape === 'message') {
    const row = await directResponse(store, end, request);
    if (!row) return { text: null, truncated: false, response: null };
    return { ...bounded(textOfParts(row.content.parts), bounds.maxText), response: { message: row.content } };
  }
  const json = taskId ? await store.conversation.getTaskJson(taskId) : null;
  if (!taskId || !json) return { text: null, truncated: false, response: null };
  const status = statusMessageText(json);
  const text = status !== null ? bounded(status, bounds.maxText) : await artifactsText(store, taskId, bounds);
  return { ...text, response: bounds.full ? { task: await taskWithArtifacts(store, taskId, json) } : null };
}

/** The answer of a stream: its last message, else its task's status message, else the text it streamed. */
export async function streamAnswer(
  store: Repositories,
  start: JournalRow,
  end: JournalRow | undefined,
  messageId: string,
  taskId: string | null,
  bounds: AnswerBounds,
): Promise<Answer> {
  const json = taskId ? await store.conversation.getTaskJson(taskId) : null;
  const status = statusMessageText(json);
  const streamed = new TextCollector(bounds.maxText);
  // Set by the visits (a callback: the compiler would take it for null still).
  let lastMessage = null as Record<string, unknown> | null;
  // The events are read when the answer needs them: for the full response, when the task has no status text, or
  // when the stream may have carried a message (its completion counts them; a failed or running one may have).
  const messages = end?.type === 'a2a.stream.completed' ? Number((end.payload.counts as { message?: number } | undefined)?.message ?? 0) : 1;
  if (bounds.full || status === null || messages > 0) {
    await store.history.scanStreamEvents(messageId, start.sequence, end?.sequence ?? null, bounds.maxScanned, (event) => {
      const p = event.payload;
      if (event.type === 'a2a.stream.message') lastMessage = p.message as Record<string, unknown>;
      else if (event.type === 'a2a.stream.artifact_update') {
        const update = p.artifactUpdate as { append?: boolean; artifact?: { parts?: unknown } } | undefined;
        streamed.add(artifactText(update?.artifact?.parts), update?.append ? 'direct' : 'line');
      } else if (event.type === 'a2a.stream.status_update')
        streamed.add(textOfParts((p.statusUpdate as { status?: { message?: { parts?: unknown } } } | undefined)?.status?.message?.parts));
      else if (event.type === 'a2a.stream.task') streamed.add(statusMessageText(p.task as Record<string, unknown>));
      return bounds.full || !streamed.truncated;
    });
  }
  const response =
    json && taskId ? (bounds.full ? { task: await taskWithArtifacts(store, taskId, json) } : null) : lastMessage ? { message: lastMessage } : null;
  const messageText = textOfParts(lastMessage?.parts);
  if (messageText !== null) return { ...bounded(messageText, bounds.maxText), response };
  if (status !== null) return { ...bounded(status, bounds.maxText), response };
  return { text: streamed.result(), truncated: streamed.truncated, response };
}
