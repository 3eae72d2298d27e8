/**
 * Request history, read from the journal (no store of its own): each send or stream is its `a2a.<op>.started`
 * event, its later completed / failed event, the request message row, the answer rows and the task. Entries come
 * newest first, paged by the start event's sequence; `history.get` adds the request and response JSON and the wire
 * this session captured. Everything returned is redacted.
 */
import type { Core } from '../handle.js';
import type { HistoryEntry, WireExchange } from '../../../shared/ipc/contract.js';
import { usageError } from '../../../shared/errors.js';
import type { JournalRow, RequestOperation } from '../store/rows/history.js';
import type { Repositories } from '../store/storage.js';
import { redactValue } from '../security/redact.js';
import { textOfParts } from '../a2a/part-text.js';
import { composeInputs } from './inputs.js';
import { sendAnswer, streamAnswer, type Answer, type AnswerBounds } from './answer.js';
import { isUnconfirmedEnd } from './unconfirmed.js';

export interface HistoryQuery {
  agent?: string;
  operation?: 'send' | 'stream';
  limit?: number;
  beforeSequence?: number;
}

/** The list's texts are cut here (history.get has them whole, up to GET_BOUNDS). */
export const LIST_TEXT_CHARS = 200;
const LIST_BOUNDS: AnswerBounds = { maxText: LIST_TEXT_CHARS, maxScanned: 5_000, full: false };
const GET_BOUNDS: AnswerBounds = { maxText: 1_000_000, maxScanned: Number.MAX_SAFE_INTEGER, full: true };
const DEFAULT_LIMIT = 50;

/** `text` cut at `max` characters with an ellipsis, never splitting a surrogate pair. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  return `${text.slice(0, end)}…`;
}

/** A failure event's error as `{code, message}` (older journals wrote a bare string). */
function errorOf(end: JournalRow | undefined): HistoryEntry['error'] {
  if (!end?.type.endsWith('.failed')) return null;
  const error = end.payload.error;
  if (typeof error === 'string') return { code: 'missive::protocol::invalid_send_response', message: error };
  const report = (error ?? {}) as { code?: unknown; message?: unknown; category?: unknown };
  return {
    code: typeof report.code === 'string' ? report.code : 'missive::internal::unknown',
    message: typeof report.message === 'string' ? report.message : 'the call failed',
    ...(typeof report.category === 'string' ? { category: report.category } : {}),
  };
}

/** The context a message answer named (a send without one gets the context the agent opened). */
const contextOf = (answer: Answer): string | null => {
  const contextId = answer.response && 'message' in answer.response ? answer.response.message.contextId : undefined;
  return typeof contextId === 'string' ? contextId : null;
};

/** Running without an end; `unconfirmed` when a job gave up on it without knowing whether the agent got it. */
const outcomeOf = (end: JournalRow | undefined): HistoryEntry['outcome'] =>
  !end ? 'running' : end.type.endsWith('.completed') ? 'completed' : isUnconfirmedEnd(end) ? 'unconfirmed' : 'failed';

/** One entry from a start event and its end event (absent while running), the text bounds applied. */
async function buildEntry(
  store: Repositories,
  start: JournalRow,
  end: JournalRow | undefined,
  bounds: AnswerBounds,
): Promise<{ entry: HistoryEntry; answer: Answer; request: Record<string, unknown> | null }> {
  const messageId = String(start.payload.message_id);
  const operation: RequestOperation = start.type === 'a2a.stream.started' ? 'stream' : 'send';
  const requestRow = await store.history.getMessageRow(messageId);
  const request = requestRow?.content ?? null;
  const taskId = end?.taskId ?? requestRow?.task_id ?? null;
  const answer =
    operation === 'send' ? await sendAnswer(store, end, requestRow, taskId, bounds) : await streamAnswer(store, start, end, messageId, taskId, bounds);
  const task = taskId ? await store.conversation.getTask(taskId) : undefined;
  const iface = (start.payload.interface ?? {}) as { binding?: unknown; url?: unknown; dialect?: unknown };
  const { inputs, omitted } = composeInputs(request, iface.binding);
  const requestText = textOfParts(request?.parts) ?? '';
  const cut = bounds.full ? (t: string) => t : (t: string) => shorten(t, bounds.maxText);
  const entry: HistoryEntry = {
    message_id: messageId,
    operation,
    agent_alias: start.agentAlias,
    context_id: end?.contextId ?? requestRow?.context_id ?? start.contextId ?? contextOf(answer),
    task_id: taskId,
    started_at: start.timestamp,
    finished_at: end?.timestamp ?? null,
    outcome: outcomeOf(end),
    state: task?.state ?? null,
    request_text: cut(requestText),
    // A cut answer ends with an ellipsis in the list; history.get says so in `answer_truncated`.
    answer_text: answer.text !== null && answer.truncated && !bounds.full ? shorten(`${answer.text}…`, bounds.maxText) : answer.text,
    answer_truncated: answer.truncated,
    error: errorOf(end),
    actor: start.actor,
    inputs,
    inputs_omitted: omitted,
    sequence: start.sequence,
    binding: typeof iface.binding === 'string' ? iface.binding : null,
    url: typeof iface.url === 'string' ? iface.url : null,
    dialect: typeof iface.dialect === 'string' ? iface.dialect : null,
  };
  return { entry, answer, request };
}

/** The end event of each request among `events` (its first completed or failed one), by request message id. */
function endsById(events: JournalRow[]): Map<string, JournalRow> {
  const ends = new Map<string, JournalRow>();
  for (const e of events) {
    const id = String(e.payload.message_id);
    if (!e.type.endsWith('.started') && !ends.has(id)) ends.set(id, e);
  }
  return ends;
}

/** The newest sends and streams (older than `beforeSequence`), with the cursor of the next page or null. */
export async function listHistory(core: Core, q: HistoryQuery): Promise<{ entries: HistoryEntry[]; next_before_sequence: number | null }> {
  const store = await core.storage();
  const limit = q.limit ?? DEFAULT_LIMIT;
  const starts = await store.history.listRequestStarts({ agent: q.agent, operation: q.operation, beforeSequence: q.beforeSequence, limit: limit + 1 });
  const page = starts.slice(0, limit);
  const ends = endsById(await store.history.requestEvents(page.map((s) => String(s.payload.message_id))));
  const entries: HistoryEntry[] = [];
  for (const start of page) entries.push((await buildEntry(store, start, ends.get(String(start.payload.message_id)), LIST_BOUNDS)).entry);
  return redactValue({ entries, next_before_sequence: starts.length > limit ? page.at(-1)!.sequence : null });
}

/** One send or stream by its request message id: the entry, the request and response JSON, the session's wire. */
export async function getHistoryEntry(
  core: Core,
  messageId: string,
  wire: (messageId: string) => WireExchange[] | null,
): Promise<{ entry: HistoryEntry; request: Record<string, unknown> | null; response: unknown; wire: WireExchange[] | null }> {
  const store = await core.storage();
  const events = await store.history.requestEvents([messageId]);
  const start = events.find((e) => e.type.endsWith('.started'));
  if (!start)
    throw usageError(
      'unknown_request',
      `no send or stream with message id "${messageId}" in the journal`,
      'List them with missive history list, or in the History view.',
    );
  const { entry, answer, request } = await buildEntry(store, start, endsById(events).get(messageId), GET_BOUNDS);
  return redactValue({ entry, request, response: answer.response, wire: wire(messageId) });
}
