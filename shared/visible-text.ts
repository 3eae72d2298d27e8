/**
 * Text from outside (agent names, card fields, answers, error messages, file names) made safe to show, the same way in
 * the terminal (electron/cli/terminal-text.ts) and in the window (the renderer's JSX runtime, renderer/src/visible-jsx):
 * control characters (C0, DEL, C1), the line and paragraph separators and the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) become visible escapes — `\x1b`, `\x00`, `\u202e` — so they cannot recolour a
 * terminal, move its cursor, rewrite a line, or reorder what is read (`good\u202etxt.exe` never reads as `goodexe.txt`).
 * Isomorphic: no Node built-in, no DOM.
 */

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const hex = (ch: string, width: number) => ch.charCodeAt(0).toString(16).padStart(width, '0');
const visible = (ch: string) => NAMED[ch] ?? (ch.charCodeAt(0) <= 0xff ? `\\x${hex(ch, 2)}` : `\\u${hex(ch, 4)}`);

// Blocks keep their line breaks (LF, CRLF) and tabs; a lone CR, which would overwrite the line, is escaped.
// eslint-disable-next-line no-control-regex -- finding control characters to show them escaped is this regex's job
const UNSAFE_IN_BLOCK = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
// eslint-disable-next-line no-control-regex -- finding control characters to show them escaped is this regex's job
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- finding control characters to show them escaped is this regex's job
const ANY_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A block of text (a rendered result, an answer's text): line breaks and tabs stay, other controls become visible. */
export const visibleBlock = (text: string): string => (ANY_UNSAFE.test(text) ? text.replace(UNSAFE_IN_BLOCK, visible) : text);

/** One single-line field (a table cell, a value, an error message): line breaks and tabs become visible too. */
export const visibleLine = (text: string): string => text.replace(UNSAFE_IN_LINE, visible);
