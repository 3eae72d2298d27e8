/** bcast and scatter: the two fan-outs. bcast sends the same message to every member; scatter deals inputs out. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { dataError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { SendInput } from '../messaging/send.js';
import { fanOut, type FanOutInput, type FanOutResult } from './fan-out.js';

export type MessageInputs = Omit<SendInput, 'agent' | 'contextId'>;
export type FanOutOptions = Omit<FanOutInput, 'plan'>;

export const bcast = (core: Core, inputs: MessageInputs, options: FanOutOptions): Promise<FanOutResult> =>
  fanOut(core, 'bcast', { ...options, plan: (n) => Array.from({ length: n }, (_, member) => ({ member, inputIndex: null, input: inputs })) });

/**
 * Reads scatter inputs: a JSON array (strings become text parts, other values data parts) or one text input per
 * non-empty line.
 */
export function readScatterInputs(path: string, cwd: string, maxBytes: number): Array<Pick<SendInput, 'text' | 'jsonParts'>> {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw usageError('inputs_unreadable', `cannot read --inputs ${path}: ${(error as Error).message}`);
  }
  if (Buffer.byteLength(text) > maxBytes)
    throw dataError('inputs_too_large', `--inputs ${path} is ${Buffer.byteLength(text)} bytes, over qos.max_request_bytes = ${maxBytes}`);
  const trimmed = text.trim();
  let items: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      items = JSON.parse(trimmed) as unknown[];
    } catch (error) {
      throw usageError('inputs_invalid_json', `--inputs ${path} starts with [ but is not a JSON array: ${(error as Error).message}`);
    }
  } else {
    items = trimmed.split(/\r?\n/).filter((l) => l.trim());
  }
  if (!Array.isArray(items) || items.length === 0) throw usageError('inputs_empty', `--inputs ${path} holds no inputs`);
  return items.map((item) => (typeof item === 'string' ? { text: item } : { jsonParts: [JSON.stringify(item)] }));
}

export const scatter = (
  core: Core,
  items: Array<Pick<SendInput, 'text' | 'jsonParts'>>,
  common: Pick<SendInput, 'cwd' | 'metadata' | 'acceptedOutputModes' | 'binding'>,
  options: FanOutOptions,
) => fanOut(core, 'scatter', { ...options, plan: (n) => items.map((item, i) => ({ member: i % n, inputIndex: i, input: { ...common, ...item } })) });
