/** Builds A2A message parts from local inputs, enforcing `qos.max_request_bytes` before reading anything whole. */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dataError, usageError } from '../../../shared/errors.js';

export interface PartInputs {
  text?: string;
  stdin?: string;
  parts?: string[];
  files?: string[];
  fileUrls?: string[];
  fileBytes?: string[];
  jsonParts?: string[];
  mediaType?: string;
  /**
   * Parts built earlier, where the inputs were (a queued job's, read at `job start`): used as they are, with no path
   * read again, and alone (no other input beside them).
   */
  captured?: CapturedParts;
}

/** A message's parts as A2A JSON, built from local inputs on the host that had them, and their input bytes. */
export interface CapturedParts {
  parts: Record<string, unknown>[];
  bytes: number;
}

/** The input bytes a built part stands for, counted as buildParts counts them (text, base64, URL, JSON). */
export function partBytes(part: Record<string, unknown>): number {
  if (typeof part.text === 'string') return Buffer.byteLength(part.text);
  if (typeof part.raw === 'string') return part.raw.length;
  if (typeof part.url === 'string') return Buffer.byteLength(part.url);
  return Buffer.byteLength(JSON.stringify(part.data ?? null));
}

/** Captured parts, checked against the size limit where they are sent (their byte count recomputed, never trusted). */
function capturedParts(inputs: PartInputs, maxBytes: number): { parts: Record<string, unknown>[]; inputBytes: number } {
  const { captured, text, stdin, parts: textParts, files, fileUrls, fileBytes, jsonParts } = inputs;
  if ([text, stdin, textParts, files, fileUrls, fileBytes, jsonParts].some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0))) {
    throw usageError('conflicting_inputs', 'a message of captured parts takes no other input');
  }
  const parts = captured!.parts;
  const inputBytes = parts.reduce((sum, part) => sum + partBytes(part), 0);
  if (inputBytes > maxBytes)
    throw dataError(
      'request_too_large',
      `the message's parts reach ${inputBytes} bytes, over qos.max_request_bytes = ${maxBytes}; nothing was sent`,
      'Send less, or raise [qos].max_request_bytes.',
    );
  if (parts.length === 0) throw usageError('empty_message', 'nothing to send');
  return { parts, inputBytes };
}

const MIME: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

export const detectMediaType = (path: string) => MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';

/** A canonical regular file, or a usage error that names the path. */
function regularFile(path: string, cwd: string): { path: string; size: number } {
  let real: string;
  try {
    real = realpathSync(resolve(cwd, path));
  } catch {
    throw usageError('file_not_found', `${path} does not exist`);
  }
  const stat = statSync(real);
  if (!stat.isFile()) throw usageError('not_a_file', `${path} is not a regular file`);
  return { path: real, size: stat.size };
}

export function buildParts(inputs: PartInputs, cwd: string, maxBytes: number): { parts: Record<string, unknown>[]; inputBytes: number } {
  if (inputs.captured) return capturedParts(inputs, maxBytes);
  const parts: Record<string, unknown>[] = [];
  let total = 0;
  const budget = (bytes: number, what: string) => {
    total += bytes;
    if (total > maxBytes) {
      throw dataError(
        'request_too_large',
        `local inputs reach ${total} bytes at ${what}, over qos.max_request_bytes = ${maxBytes}; nothing was sent`,
        'Send less, or raise [qos].max_request_bytes.',
      );
    }
  };
  const text = (value: string, what: string) => {
    budget(Buffer.byteLength(value), what);
    parts.push({ text: value });
  };
  if (inputs.text !== undefined) text(inputs.text, 'MESSAGE');
  if (inputs.stdin !== undefined) text(inputs.stdin, '--stdin');
  for (const p of inputs.parts ?? []) {
    if (!p.startsWith('text=')) throw usageError('invalid_part', `--part "${p}" must be text=VALUE`);
    text(p.slice(5), '--part');
  }
  for (const f of inputs.files ?? []) {
    const file = regularFile(f, cwd);
    budget(file.size, f);
    const content = readFileSync(file.path);
    const decoded = new TextDecoder('utf-8', { fatal: true });
    let value: string;
    try {
      value = decoded.decode(content);
    } catch {
      throw dataError('invalid_utf8', `${f} is not UTF-8 text`, 'Send binary files with --file-bytes.');
    }
    parts.push({ text: value, filename: basename(file.path), mediaType: inputs.mediaType ?? detectMediaType(file.path) });
  }
  for (const f of inputs.fileUrls ?? []) {
    const file = regularFile(f, cwd);
    const url = pathToFileURL(file.path).href;
    budget(Buffer.byteLength(url), f);
    parts.push({ url, filename: basename(file.path), mediaType: inputs.mediaType ?? detectMediaType(file.path) });
  }
  for (const f of inputs.fileBytes ?? []) {
    const file = regularFile(f, cwd);
    budget(Math.ceil(file.size / 3) * 4, f);
    parts.push({ raw: readFileSync(file.path).toString('base64'), filename: basename(file.path), mediaType: inputs.mediaType ?? detectMediaType(file.path) });
  }
  for (const j of inputs.jsonParts ?? []) {
    let source = j;
    if (j.startsWith('@')) {
      const file = regularFile(j.slice(1), cwd);
      budget(file.size, j);
      source = readFileSync(file.path, 'utf8');
    } else budget(Buffer.byteLength(j), '--json-part');
    let data: unknown;
    try {
      data = JSON.parse(source);
    } catch (error) {
      throw dataError('invalid_json_part', `--json-part ${j.startsWith('@') ? j : ''} is not valid JSON: ${(error as Error).message}`);
    }
    parts.push({ data, mediaType: 'application/json' });
  }
  if (parts.length === 0)
    throw usageError('empty_message', 'nothing to send', 'Give a MESSAGE, --stdin, --part, --file, --file-url, --file-bytes or --json-part.');
  return { parts, inputBytes: total };
}
