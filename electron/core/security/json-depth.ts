/**
 * JSON from outside (cards, answers, SSE events, callbacks) is parsed with a bound on its nesting depth.
 * `JSON.parse` itself copes with deep nesting, but everything after it (zod, the SDK codecs, redaction,
 * JSON.stringify) recurses and would overflow the stack: such a body is refused before it is parsed.
 */
import { protocolError, type MissiveError } from '../../../shared/errors.js';

/** The deepest nesting of objects and arrays missive accepts from the outside. */
export const MAX_JSON_DEPTH = 128;

/**
 * One pass over the objects and arrays of JSON `text`, outside its strings, with no allocation: `opened(depth)` is
 * called at each `{` or `[` with the depth it opens, and the scan stops (returning true) as soon as it returns true.
 */
function scanOpenings(text: string, opened: (depth: number) => boolean): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (opened(++depth)) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * True when `text` holds at most `max` characters `{` and `[` (inside strings or not): then it can neither nest deeper
 * than `max` nor hold more than `max` objects and arrays, and the scan is not needed. `indexOf` finds them far faster
 * than the scan's loop walks every character: the usual stream event (a few hundred characters, a handful of objects)
 * is cleared in a few calls.
 */
function fewOpenings(text: string, max: number): boolean {
  let count = 0;
  for (const opening of ['{', '[']) {
    for (let i = text.indexOf(opening); i !== -1; i = text.indexOf(opening, i + 1)) if (++count > max) return false;
  }
  return true;
}

/** True when `text` nests objects and arrays deeper than `max` (brackets inside strings do not count). */
export const isTooDeep = (text: string, max: number = MAX_JSON_DEPTH): boolean => !fewOpenings(text, max) && scanOpenings(text, (depth) => depth > max);

/**
 * How many JSON objects and arrays `text` holds, counted before it is parsed (stopping once past `stopAbove`). Each
 * becomes a JavaScript object, and the readers after JSON.parse (zod, the SDK codecs, the journal) copy each several
 * times: 150,000 one-part artifacts in a 7 MB answer took 420 MB of memory (issue 32, finding 14). Counting them
 * bounds that before any of it is built (`[qos] max_answer_objects`, a2a/wire-limits.ts).
 */
export function countJsonObjects(text: string, stopAbove: number = Number.POSITIVE_INFINITY): number {
  let count = 0;
  scanOpenings(text, () => ++count > stopAbove);
  return count;
}

/** True when `text` holds more than `max` JSON objects and arrays (countJsonObjects), without scanning a text that cannot. */
export const holdsMoreObjectsThan = (text: string, max: number): boolean => !fewOpenings(text, max) && countJsonObjects(text, max) > max;

/** The error for a body nested deeper than missive accepts; `what` names the body ("the agent's answer"). */
export function tooDeepError(what: string, max: number = MAX_JSON_DEPTH): MissiveError {
  return protocolError(
    'too_deeply_nested',
    `${what} nests JSON deeper than ${max} levels; missive refuses it.`,
    'Such a body is malformed or hostile; report it to whoever runs the other side.',
  );
}

/**
 * `JSON.parse` of outside text: text nested deeper than MAX_JSON_DEPTH is refused with `tooDeepError(what)` (exit 76)
 * before it is parsed; text that is not JSON goes to `onInvalid` (its SyntaxError is thrown by default), whose result
 * is returned, so each reader keeps its own error code for malformed JSON.
 */
export function parseBoundedJson(
  text: string,
  what: string,
  onInvalid: (error: SyntaxError) => unknown = (error) => {
    throw error;
  },
): unknown {
  if (isTooDeep(text)) throw tooDeepError(what);
  try {
    return JSON.parse(text);
  } catch (error) {
    return onInvalid(error as SyntaxError);
  }
}

/**
 * True when a value already decoded (by the SDK's gRPC codecs, or a caller's `JSON.parse`) nests deeper than `max`:
 * its JSON text is measured, and a value too deep even to stringify counts as too deep.
 */
export function isValueTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  try {
    return isTooDeep(JSON.stringify(value) ?? '', max);
  } catch (error) {
    if (error instanceof RangeError) return true;
    throw error;
  }
}
