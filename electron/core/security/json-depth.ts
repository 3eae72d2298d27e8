/**
 * JSON from outside (cards, answers, SSE events, callbacks) is parsed with a bound on its nesting depth.
 * `JSON.parse` itself copes with deep nesting, but everything after it (zod, the SDK codecs, redaction,
 * JSON.stringify) recurses and would overflow the stack: such a body is refused before it is parsed.
 */
import { protocolError, type MissiveError } from '../../../shared/errors.js';

/** The deepest nesting of objects and arrays missive accepts from the outside. */
export const MAX_JSON_DEPTH = 128;

/** True when `text` nests objects and arrays deeper than `max` (brackets inside strings do not count). One pass, no allocation. */
export function isTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** The error for a body nested deeper than missive accepts; `what` names the body ("the agent's answer"). */
export function tooDeepError(what: string, max: number = MAX_JSON_DEPTH): MissiveError {
  return protocolError('too_deeply_nested', `${what} nests JSON deeper than ${max} levels; missive refuses it.`, 'Such a body is malformed or hostile; report it to whoever runs the other side.');
}

/**
 * `JSON.parse` of outside text: text nested deeper than MAX_JSON_DEPTH is refused with `tooDeepError(what)` (exit 76)
 * before it is parsed; text that is not JSON goes to `onInvalid` (its SyntaxError is thrown by default), whose result
 * is returned, so each reader keeps its own error code for malformed JSON.
 */
export function parseBoundedJson(text: string, what: string, onInvalid: (error: SyntaxError) => unknown = (error) => {
  throw error;
}): unknown {
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
