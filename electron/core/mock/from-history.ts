/**
 * `missive history show <id> --json` output → the requests a recording holds. A file holds one envelope, several as
 * NDJSON, or a JSON array of them (bare `{entry, request, response}` documents are read too). Each entry is a
 * send or a stream with its request and its answer as the journal held it when shown: the answered task as it ended
 * (not turn by turn) or the message. load-recording.ts prefers the journal's own record of each request when this
 * profile still holds it (every stream event, each turn's state); `exchangeFromShow` is for the rest.
 */
import { z } from 'zod';
import { dataError } from '../../../shared/errors.js';
import { isTerminalTaskState } from '../../../shared/task-states.js';
import type { JsonObject } from '../a2a/operations.js';
import { A2A_ERROR_SPECS } from '../a2a/a2a-errors.js';
import { textOfParts } from '../a2a/part-text.js';
import { localTaskState } from '../tasks/task-state.js';
import { parseBoundedJson } from '../security/json-depth.js';
import type { RecordedExchange } from './recording.js';
import { historyEntry } from '../../../shared/ipc/contract.js';

const json = z.record(z.string(), z.unknown());

export const historyShow = z.looseObject({
  // The fields of the history entry (the contract's, written once) that a recording needs.
  entry: historyEntry
    .pick({ message_id: true, operation: true, agent_alias: true, context_id: true, task_id: true, started_at: true, finished_at: true, error: true })
    .extend({ sequence: z.number().optional() }),
  request: json.nullable(),
  response: z.union([z.looseObject({ message: json }), z.looseObject({ task: json })]).nullable(),
});
export type HistoryShow = z.output<typeof historyShow>;

const envelope = z.looseObject({ kind: z.literal('history_show'), data: historyShow });

const EXPECTED = 'expected the output of `missive history show <message-id> --json` (one envelope, NDJSON lines of them, or a JSON array)';

/** The entries of a history file, oldest first (by journal sequence, else start time). */
export function parseHistoryFile(text: string, file: string): HistoryShow[] {
  const parse = (value: string, where: string) =>
    parseBoundedJson(value, where, (error) => {
      throw dataError('not_a_history_file', `${where} is not JSON (${error.message}): ${EXPECTED}`);
    });
  let values: unknown[];
  const trimmed = text.trim();
  try {
    const whole = parse(trimmed, file);
    values = Array.isArray(whole) ? whole : [whole];
  } catch (error) {
    // NDJSON: one document a line.
    const lines = trimmed.split(/\r?\n/).filter((l) => l.trim());
    if (lines.length < 2) throw error;
    values = lines.map((line, i) => parse(line, `${file} line ${i + 1}`));
  }
  if (!values.length) throw dataError('not_a_history_file', `${file} holds no history entry: ${EXPECTED}`);
  const shows = values.map((value, i) => {
    const read = envelope.safeParse(value);
    if (read.success) return read.data.data;
    const bare = historyShow.safeParse(value);
    if (bare.success) return bare.data;
    const issue = read.error.issues[0];
    throw dataError(
      'not_a_history_file',
      `${file}${values.length > 1 ? ` (document ${i + 1})` : ''} is not a history entry: ${EXPECTED}; ${issue ? `at ${issue.path.join('.') || 'the top'}: ${issue.message}` : ''}`,
    );
  });
  return shows
    .map((show, i) => ({ show, i }))
    .sort((a, b) => (a.show.entry.sequence ?? 0) - (b.show.entry.sequence ?? 0) || a.show.entry.started_at.localeCompare(b.show.entry.started_at) || a.i - b.i)
    .map(({ show }) => show);
}

const offset = (from: string, at: string | null) => Math.max(0, Date.parse(at ?? from) - Date.parse(from) || 0);

/**
 * One entry as an exchange from the file alone, or null when the agent answered nothing. The file holds the task as
 * it ended: when a later request continues it (`continued`), this turn cannot have ended it, so its answer is the
 * task waiting for input (`input_required`, without its question: the file does not hold it).
 */
export function exchangeFromShow(show: HistoryShow, continued: boolean): Omit<RecordedExchange, 'index'> | null {
  const { entry, request, response } = show;
  if (!request) return null;
  const at = offset(entry.started_at, entry.finished_at);
  const events: RecordedExchange['events'] = [];
  if (response && 'message' in response) events.push({ offset_ms: at, kind: 'message', body: response.message as JsonObject });
  else if (response && 'task' in response) {
    const task = response.task as JsonObject;
    const state = (task.status as { state?: string } | undefined)?.state;
    events.push({
      offset_ms: at,
      kind: 'task',
      body:
        continued && isTerminalTaskState(localTaskState(state))
          ? { id: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } }
          : task,
    });
  }
  const code = entry.error?.code;
  const spec = code?.startsWith('missive::protocol::') ? A2A_ERROR_SPECS.find((s) => `missive::protocol::${s.code}` === code) : undefined;
  const error = code?.startsWith('missive::protocol::')
    ? { code, message: entry.error!.message.replace(/^protocol error: /, ''), ...(spec ? { a2a: spec.name } : {}) }
    : null;
  if (!events.length && !error) return null;
  return { operation: entry.operation, request, text: textOfParts(request.parts) ?? '', events, ...(error ? { error } : {}) };
}
