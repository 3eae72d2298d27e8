/**
 * Which recorded exchange answers a request (docs/mock.md, "Matching"). Deterministic: the same requests in the same
 * order always get the same exchanges.
 * - `exact`: the request's text parts (joined by newlines) equal the recorded request's;
 * - `normalised` (the default): equal after normalise() (case, whitespace, UUIDs, ISO times, long digit runs);
 * - `sequence`: the i-th request gets the i-th exchange, whatever its text.
 * In every mode the operation (send or stream) must agree. In `exact` and `normalised` the task must agree too: a
 * request continuing a task (its `taskId`, which the server has mapped to the recorded id) matches only the recorded
 * follow-ups of that task, and a request with no `taskId` only recorded requests with none. Among the matching
 * exchanges the first not yet served wins; once all were served, the last served of them is served again.
 */
import { createTwoFilesPatch, diffChars } from 'diff';
import type { JsonObject } from '../a2a/operations.js';
import { textOfParts } from '../a2a/part-text.js';
import type { Matcher, MatchMode, MatchResult, RecordedExchange, Recording } from './recording.js';

/** The unmatched requests kept for `misses()` and `diff()`; later ones are only counted. */
export const MAX_MISSES_KEPT = 200;

/** Edit distances are computed on at most this many characters of each normalised text. */
export const DISTANCE_CHARS = 2_000;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?/g;
const LONG_DIGITS = /\d{6,}/g;

/** The text `normalised` compares: lower case, ids and times as placeholders, runs of whitespace as one space. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(UUID, '<uuid>').replace(ISO_TIME, '<time>').replace(LONG_DIGITS, '<n>').replace(/\s+/g, ' ').trim();
}

/** A request's text parts joined by newlines (a recording's `text`). */
export const requestText = (request: JsonObject): string => textOfParts(request.parts) ?? '';

/** Characters to insert and delete to turn `a` into `b` (their first DISTANCE_CHARS). */
export function editDistance(a: string, b: string): number {
  return diffChars(a.slice(0, DISTANCE_CHARS), b.slice(0, DISTANCE_CHARS)).reduce((n, c) => n + (c.added || c.removed ? c.value.length : 0), 0);
}

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);
const taskOf = (request: JsonObject): string | null => (typeof request.taskId === 'string' && request.taskId ? request.taskId : null);

interface Miss {
  request: JsonObject;
  closest: RecordedExchange | null;
  reason: string;
}

export function createMatcher(recording: Recording, mode: MatchMode = 'normalised'): Matcher {
  const exchanges = recording.exchanges;
  const normalised = exchanges.map((e) => normalise(e.text));
  /** When each exchange was last served (a counter), by index. */
  const servedAt = new Map<number, number>();
  let served = 0;
  let position = 0;
  const misses: Miss[] = [];
  let missesDropped = 0;

  const serve = (exchange: RecordedExchange, reason: string): MatchResult => {
    servedAt.set(exchange.index, ++served);
    return { exchange, reason };
  };

  /** Why the closest recorded request is not this one, in a few words. */
  const whyNot = (closest: RecordedExchange, request: JsonObject, operation: string, text: string): string => {
    if (closest.operation !== operation) return `recorded as a ${closest.operation}, asked as a ${operation}`;
    const task = taskOf(closest.request);
    if (mode !== 'sequence' && task !== taskOf(request)) return task ? `it continues task ${task}` : 'it started a new task';
    if (mode === 'exact' && normalised[closest.index] === normalise(text)) return 'only case, spacing, ids or times differ: --match normalised would match';
    return `${mode === 'exact' ? 'text' : 'normalised text'} differs`;
  };

  const miss = (request: JsonObject, operation: string, text: string, head: string | null): MatchResult => {
    const key = normalise(text);
    let closest: RecordedExchange | null = null;
    let best = Infinity;
    for (const e of exchanges) {
      const distance = editDistance(normalised[e.index]!, key) + (e.operation === operation ? 0 : 0.5);
      if (distance < best) [closest, best] = [e, distance];
    }
    const reason =
      (head ?? `no recorded ${operation} request matches ${quote(text)}`) +
      (closest
        ? `; the closest is #${closest.index} ${quote(closest.text)} (${whyNot(closest, request, operation, text)})`
        : '; the recording holds no request');
    // Kept for the diff up to a bound: a client sending junk in a loop cannot grow the mock without end.
    if (misses.length < MAX_MISSES_KEPT) misses.push({ request, closest, reason });
    else missesDropped++;
    return { exchange: null, closest, reason };
  };

  const matchSequence = (request: JsonObject, operation: string, text: string): MatchResult => {
    const i = position++;
    const exchange = exchanges[i];
    if (!exchange) return miss(request, operation, text, `request #${i} is past the end of the recording (${exchanges.length} requests)`);
    if (exchange.operation !== operation)
      return miss(request, operation, text, `request #${i} is a ${operation}, but recorded request #${i} was a ${exchange.operation}`);
    return serve(exchange, `request #${i} in sequence`);
  };

  return {
    match(request, operation) {
      const text = requestText(request);
      if (mode === 'sequence') return matchSequence(request, operation, text);
      const key = mode === 'exact' ? text : normalise(text);
      const task = taskOf(request);
      const candidates = exchanges.filter(
        (e) => e.operation === operation && taskOf(e.request) === task && (mode === 'exact' ? e.text === key : normalised[e.index] === key),
      );
      const how = `${mode === 'exact' ? 'the same text' : 'the same normalised text'}${task ? ` in task ${task}` : ''}`;
      const first = candidates.find((e) => !servedAt.has(e.index));
      if (first) return serve(first, `recorded request #${first.index} ${quote(first.text)} has ${how}`);
      const again = candidates.reduce<RecordedExchange | null>((last, e) => (!last || servedAt.get(e.index)! > servedAt.get(last.index)! ? e : last), null);
      if (again) return serve(again, `recorded request #${again.index} ${quote(again.text)} has ${how} (served again: every match was served)`);
      return miss(request, operation, text, null);
    },
    misses: () => misses.map((m) => ({ ...m })),
    diff() {
      if (!misses.length) return '';
      const parts = misses.map((m, i) => {
        const head = `unmatched request ${i + 1} of ${misses.length}: ${m.reason}`;
        if (!m.closest) return head;
        const patch = createTwoFilesPatch(`recorded #${m.closest.index}`, 'request', `${m.closest.text}\n`, `${requestText(m.request)}\n`);
        return `${head}\n${patch.replace(/^=+\n/, '').trimEnd()}`;
      });
      if (missesDropped) parts.push(`… and ${missesDropped} more unmatched request(s), not kept`);
      const never = exchanges.filter((e) => !servedAt.has(e.index));
      parts.push(
        never.length
          ? `never served (${never.length} of ${exchanges.length}):\n${never.map((e) => `  #${e.index} ${e.operation} ${quote(e.text)}`).join('\n')}`
          : `every recorded exchange was served`,
      );
      return `${parts.join('\n\n')}\n`;
    },
  };
}
