/**
 * Tokens and secrets travel in HTTP headers: one with CR, LF or another control character could split a header or
 * smuggle another one, and is never what an identity provider or a user meant. Such a value is refused (exit 77)
 * before it is stored or sent; the message names where it came from and the first offending code point, never the
 * value.
 */
import { authError } from '../../../../shared/errors.js';

/** C0 controls (NUL, TAB, LF, CR, ESC…), DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- finding control characters in token text is this regex's job
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The first control character of `text` as `U+000D`, or null when it has none. */
export function firstControlCharacter(text: string): string | null {
  const found = CONTROL.exec(text)?.[0];
  return found === undefined ? null : `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Throws `missive::auth::token_control_characters` when `value` holds a control character; `what` names it, never shows it. */
export function refuseControlCharacters(value: string, what: string, help: string): void {
  const found = firstControlCharacter(value);
  if (!found) return;
  const kind = found === 'U+000D' || found === 'U+000A' ? 'a line break' : 'a control character';
  throw authError(
    'token_control_characters',
    `${what} contains ${kind} (${found}), which no HTTP header may carry: it was refused and nothing was stored`,
    help,
  );
}
