/**
 * What Compose needs to reopen or re-run a journaled request: the `messages.send` inputs that rebuild the same parts
 * from the request message (text, `--part text=…`, `--file-url` paths, `--json-part`, context, metadata, binding),
 * and a line for each thing of the request those inputs cannot carry (bytes, a file's name, an over-long text…).
 */
import { fileURLToPath } from 'node:url';
import type { MessageInputs } from '../../../shared/ipc/contract.js';

/** The contract's bounds on `messages.send` inputs (shared/ipc/contract.ts). */
const MAX_LIST = 64;
const MAX_TEXT = 1_000_000;
const BINDINGS = new Set(['http+json', 'json-rpc', 'grpc']);

export interface ComposeInputs {
  inputs: MessageInputs;
  /** What the inputs leave out, one line each; empty when re-running sends the same parts. */
  omitted: string[];
}

type Part = Record<string, unknown>;

const label = (part: Part) => (typeof part.filename === 'string' ? ` "${part.filename}"` : '');

/**
 * A metadata entry as `--metadata K=V` writes it: `parseMetadata` reads V as JSON when it parses, else as text, so
 * a string that would parse as JSON (`"42"`, `"true"`) is written JSON-quoted to come back a string.
 */
function metadataArg(key: string, value: unknown): string | null {
  if (!key || key.includes('=')) return null;
  if (typeof value === 'string') {
    try {
      JSON.parse(value);
    } catch {
      return `${key}=${value}`;
    }
  }
  return `${key}=${JSON.stringify(value)}`;
}

/** The file path of a `file:` URL part (what `--file-url` sent), or null for any other URL. */
function localPath(url: string): string | null {
  if (!url.startsWith('file:')) return null;
  try {
    return fileURLToPath(url);
  } catch {
    return null;
  }
}

/** Rebuilds the inputs of `message` (the A2A request message JSON) sent over `binding`. */
export function composeInputs(message: Record<string, unknown> | null, binding: unknown): ComposeInputs {
  const omitted: string[] = [];
  const texts: string[] = [];
  const fileUrls: string[] = [];
  const jsonParts: string[] = [];
  const parts = Array.isArray(message?.parts) ? (message.parts as Part[]) : [];
  for (const part of parts) {
    if (typeof part.text === 'string') {
      if (part.text.length > MAX_TEXT) omitted.push(`a text part of ${part.text.length} characters (over the ${MAX_TEXT} Compose takes)`);
      else texts.push(part.text);
      if (typeof part.filename === 'string') omitted.push(`the file name${label(part)} of a text part (re-sent as plain text)`);
    } else if (typeof part.url === 'string') {
      const path = localPath(part.url);
      if (path) fileUrls.push(path);
      else omitted.push(`the URL part${label(part)} (only local file URLs can be re-sent)`);
    } else if ('data' in part) {
      jsonParts.push(JSON.stringify(part.data));
    } else if ('raw' in part) {
      omitted.push(`the file bytes${label(part)} (attach the file again)`);
    } else {
      omitted.push('a part of unknown kind');
    }
  }
  const bounded = (what: string, list: string[]) => {
    if (list.length > MAX_LIST) omitted.push(`${list.length - MAX_LIST} ${what} over the ${MAX_LIST} Compose takes`);
    return list.slice(0, MAX_LIST);
  };
  const [text, ...more] = texts;
  const extra = bounded(
    'text parts',
    more.map((t) => `text=${t}`),
  );
  const urls = bounded('file URLs', fileUrls);
  const data = bounded('JSON parts', jsonParts);
  const metadata: string[] = [];
  const meta = message?.metadata;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    for (const [key, value] of Object.entries(meta)) {
      const arg = metadataArg(key, value);
      if (arg) metadata.push(arg);
      else omitted.push(`the metadata key "${key}" (a key cannot be empty or hold "=")`);
    }
  }
  const contextId = typeof message?.contextId === 'string' && message.contextId.length <= 256 ? message.contextId : undefined;
  const inputs: MessageInputs = {
    ...(text !== undefined ? { text } : {}),
    ...(extra.length ? { parts: extra } : {}),
    ...(urls.length ? { fileUrls: urls } : {}),
    ...(data.length ? { jsonParts: data } : {}),
    ...(contextId ? { contextId } : {}),
    ...(metadata.length ? { metadata: bounded('metadata entries', metadata) } : {}),
    ...(typeof binding === 'string' && BINDINGS.has(binding) ? { binding: binding as MessageInputs['binding'] } : {}),
  };
  return { inputs, omitted };
}
