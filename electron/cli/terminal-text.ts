/**
 * Text for a terminal (human mode only; JSON output stays exact). Names, answers and error texts come from agents and
 * from input, so control characters (C0, DEL, C1) and bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) are shown as visible escapes — `\x1b`, `\u202e` — and cannot recolour the terminal, move the cursor,
 * rewrite a line or reorder what is read. missive's own terminal escapes (the fan-out progress view) are written
 * around escaped data, never through these functions.
 */

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (ch: string, width: number) => ch.charCodeAt(0).toString(16).padStart(width, '0');
const visible = (ch: string) => NAMED[ch] ?? (ch.charCodeAt(0) <= 0xff ? `\\x${hex(ch, 2)}` : `\\u${hex(ch, 4)}`);

// Blocks keep their line breaks (LF, CRLF) and tabs; a lone CR, which would overwrite the line, is escaped.
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_BLOCK = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A block of human output (a rendered result, an answer's text): line breaks stay, other controls become visible. */
export const terminalBlock = (text: string): string => text.replace(UNSAFE_IN_BLOCK, visible);

/** One single-line field (a table cell, a value, an error message): line breaks and tabs become visible too. */
export const terminalLine = (text: string): string => text.replace(UNSAFE_IN_LINE, visible);
