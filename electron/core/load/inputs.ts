/**
 * `missive load --from-file inputs.jsonl`: one request's content a line, either a JSON object `{"text": "...",
 * "parts": [...]}` or a JSON string (the text). Blank lines are skipped; a bad line is a usage error naming its line.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { LoadInput } from './types.js';

/** The most lines an inputs file may hold (a run cycles through them; more would only cost memory). */
export const MAX_LOAD_INPUTS = 100_000;

const HELP = 'Each line is a JSON string, or an object {"text": "...", "parts": [...]} (A2A 1.0 parts, as `send --part` builds them).';

function inputOf(value: unknown, line: number, path: string): LoadInput {
  const bad = (why: string) => usageError('invalid_load_input', `${path} line ${line}: ${why}`, HELP);
  if (typeof value === 'string') {
    if (!value) throw bad('the text is empty');
    return { text: value };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw bad('expected a JSON string or object');
  const { text, parts, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length) throw bad(`unknown field "${extra[0]}" (only "text" and "parts")`);
  if (text !== undefined && typeof text !== 'string') throw bad('"text" must be a string');
  if (parts !== undefined && (!Array.isArray(parts) || parts.some((p) => !p || typeof p !== 'object' || Array.isArray(p))))
    throw bad('"parts" must be an array of JSON objects');
  if (!text && !(parts as unknown[] | undefined)?.length) throw bad('nothing to send (no "text", no "parts")');
  return { ...(text ? { text } : {}), ...(parts ? { parts: parts as Array<Record<string, unknown>> } : {}) };
}

/** Reads the inputs file (relative to `cwd`). */
export function readLoadInputs(path: string, cwd: string): LoadInput[] {
  let content: string;
  try {
    content = readFileSync(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw usageError('unreadable_load_input', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const inputs: LoadInput[] = [];
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    if (inputs.length >= MAX_LOAD_INPUTS)
      throw usageError('too_many_load_inputs', `${path} holds more than ${MAX_LOAD_INPUTS} inputs (line ${i + 1})`, 'Split the file, or use fewer inputs.');
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw usageError('invalid_load_input', `${path} line ${i + 1}: not JSON (${(error as Error).message})`, HELP);
    }
    inputs.push(inputOf(value, i + 1, path));
  }
  if (inputs.length === 0) throw usageError('invalid_load_input', `${path} holds no inputs`, HELP);
  return inputs;
}
