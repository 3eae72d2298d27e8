/**
 * Text for a terminal (human mode only; JSON output stays exact). Names, answers and error texts come from agents and
 * from input, so control characters (C0, DEL, C1) and bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) are shown as visible escapes — `\x1b`, `\u202e` — and cannot recolour the terminal, move the cursor,
 * rewrite a line or reorder what is read. missive's own terminal escapes (the fan-out progress view) are written
 * around escaped data, never through these functions. The rules are shared/visible-text.ts's, which the window's
 * renderer applies to every text it shows too.
 */
import { visibleBlock, visibleLine } from '../../shared/visible-text.js';

/** A block of human output (a rendered result, an answer's text): line breaks stay, other controls become visible. */
export const terminalBlock = visibleBlock;

/** One single-line field (a table cell, a value, an error message): line breaks and tabs become visible too. */
export const terminalLine = visibleLine;
