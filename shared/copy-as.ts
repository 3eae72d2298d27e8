/**
 * "Copy as missive command" and "Copy as curl": a request the console made (or would make) as a command line to paste
 * into a POSIX shell. `missiveCommand` spells the contract's inputs with the CLI's own flags; `curlCommand` turns a
 * wire request (already redacted) into a runnable curl, every redacted credential replaced by an environment variable
 * reference that a leading comment names, so no secret is ever part of the text. Isomorphic: no node:*, no DOM.
 */
import type { MessageInputs, WireRequest } from './ipc/contract.js';

/** Words the shell takes literally without quotes. */
const BARE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One shell word: bare when safe, else single-quoted (a `'` inside becomes `'\''`). Round-trips every string without NUL. */
export function shellQuote(value: string): string {
  if (BARE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

interface FanOutFlags {
  execution?: 'concurrent' | 'sequential';
  maxConcurrency?: number;
  failurePolicy?: 'stop' | 'continue';
}

interface ReduceFlags {
  strategy?: 'summarise' | 'vote' | 'merge' | 'rank' | 'custom';
  template?: string;
  reducerAgent?: string;
}

/** A request as the contract takes it (`messages.send|stream`, `collectives.bcast|round`), named by its CLI command. */
export type CopyableRequest = { profile?: string } & (
  | { operation: 'send'; agent: string; inputs: MessageInputs }
  | { operation: 'stream'; agent: string; inputs: MessageInputs; force?: boolean }
  | ({ operation: 'bcast'; group: string; inputs: MessageInputs } & FanOutFlags)
  | ({ operation: 'round'; group: string; inputs: MessageInputs; reduce?: ReduceFlags } & FanOutFlags)
);

/** The message-input flags, as `addMessageInputOptions` in electron/cli/commands/send.ts names them. */
function inputFlags(inputs: MessageInputs): string[] {
  const out: string[] = [];
  const repeat = (flag: string, values: readonly string[] | undefined) => {
    for (const value of values ?? []) out.push(flag, value);
  };
  repeat('--part', inputs.parts);
  repeat('--file', inputs.files);
  repeat('--file-url', inputs.fileUrls);
  repeat('--file-bytes', inputs.fileBytes);
  repeat('--json-part', inputs.jsonParts);
  repeat('--metadata', inputs.metadata);
  if (inputs.contextId) out.push('--context', inputs.contextId);
  repeat('--accepted-output-mode', inputs.acceptedOutputModes);
  if (inputs.returnImmediately) out.push('--return-immediately');
  if (inputs.binding) out.push('--binding', inputs.binding);
  return out;
}

function fanOutFlags(flags: FanOutFlags): string[] {
  const out: string[] = [];
  if (flags.execution) out.push('--execution', flags.execution);
  if (flags.maxConcurrency !== undefined) out.push('--max-concurrency', String(flags.maxConcurrency));
  if (flags.failurePolicy) out.push('--failure-policy', flags.failurePolicy);
  return out;
}

function reduceFlags(flags: ReduceFlags | undefined): string[] {
  const out: string[] = [];
  if (flags?.strategy) out.push('--strategy', flags.strategy);
  if (flags?.template !== undefined) out.push('--template', flags.template);
  if (flags?.reducerAgent) out.push('--reducer-agent', flags.reducerAgent);
  return out;
}

/** The argument vector after `missive` (what the CLI would receive), e.g. `['send', 'echo', '--context', 'c1', 'hi']`. */
export function missiveArgs(request: CopyableRequest): string[] {
  const args: string[] = [];
  if (request.profile) args.push('--profile', request.profile);
  args.push(request.operation, request.operation === 'send' || request.operation === 'stream' ? request.agent : request.group);
  args.push(...inputFlags(request.inputs));
  if (request.operation === 'stream' && request.force) args.push('--force');
  if (request.operation === 'bcast' || request.operation === 'round') args.push(...fanOutFlags(request));
  if (request.operation === 'round') args.push(...reduceFlags(request.reduce));
  const text = request.inputs.text;
  // The message goes last; after `--` when it looks like a flag, so the CLI reads it as the message.
  if (text !== undefined) args.push(...(text.startsWith('-') ? ['--', text] : [text]));
  return args;
}

/** `missive …` as one POSIX shell command line. */
export function missiveCommand(request: CopyableRequest): string {
  return ['missive', ...missiveArgs(request)].map(shellQuote).join(' ');
}

/** What missive writes in place of a credential (security/redact.ts REDACTED). */
const REDACTED = '[REDACTED]';
/** Headers curl sets itself, or that describe a connection rather than the request. */
const CURL_OWN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive']);

/** `Authorization` → `MISSIVE_AUTHORIZATION`, `X-API-Key` → `MISSIVE_X_API_KEY`. */
export const credentialVariable = (header: string): string =>
  `MISSIVE_${header
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}`;

/** Text inside double quotes: `\`, `"`, `$` and the backtick escaped. */
const doubleQuoted = (text: string) => text.replace(/[\\"$`]/g, (c) => `\\${c}`);

/**
 * A header argument whose redacted parts read a variable: `"Authorization: Bearer $MISSIVE_AUTHORIZATION"`. Literal
 * parts with `!` (history expansion in an interactive shell) are single-quoted pieces joined to `"$VAR"` instead.
 */
function headerWithVariable(line: string, variable: string): string {
  const pieces = line.split(REDACTED);
  if (pieces.some((p) => p.includes('!'))) return pieces.map((p, i) => (i === 0 ? '' : `"$${variable}"`) + (p ? shellQuote(p) : '')).join('');
  return `"${pieces.map((p, i) => (i === 0 ? '' : /^[A-Za-z0-9_]/.test(p) ? `\${${variable}}` : `$${variable}`) + doubleQuoted(p)).join('')}"`;
}

/**
 * A runnable `curl` for a wire request (one the wire view captured, or `requests.preview` built): `-N` for streams,
 * the body sent byte for byte. Each redacted header value reads an environment variable instead (`MISSIVE_<HEADER>`,
 * holding what `[REDACTED]` stands for: the token after the scheme, or the whole value), listed in a leading comment.
 * A gRPC call cannot be sent with curl: the result is then a comment saying so.
 */
export function curlCommand(request: WireRequest): string {
  if (request.protocol !== 'http') return `# curl cannot send the gRPC call ${request.method} to ${request.url}: use "Copy as missive command" instead`;
  const notes: string[] = [];
  const variables: string[] = [];
  const first: string[] = ['curl', '-sS'];
  const args: string[] = [];
  const headers = Object.entries(request.headers).filter(([name]) => !CURL_OWN_HEADERS.has(name.toLowerCase()));
  const streaming = headers.some(([name, value]) => name.toLowerCase() === 'accept' && value.includes('text/event-stream'));
  if (streaming) first.push('-N');
  // curl reads [] and {} in a URL as globs (an IPv6 host among them) unless told not to.
  if (/[[\]{}]/.test(request.url)) first.push('-g');
  if (request.method !== 'GET' || request.body !== null) first.push('-X', shellQuote(request.method));
  first.push(shellQuote(request.url));
  for (const [name, value] of headers) {
    const line = `${name}: ${value}`;
    if (!value.includes(REDACTED)) {
      args.push(`-H ${shellQuote(line)}`);
      continue;
    }
    const variable = credentialVariable(name);
    if (!variables.includes(variable)) variables.push(variable);
    args.push(`-H ${headerWithVariable(line, variable)}`);
  }
  if (request.body !== null) args.push(`--data-raw ${shellQuote(request.body)}`);
  if (variables.length)
    notes.push(
      `# Set ${variables.join(', ')} first: the credential${variables.length > 1 ? 's' : ''} missive redacted (the value after the scheme, e.g. the token after "Bearer").`,
    );
  if (request.url.includes(REDACTED) || request.url.includes(encodeURIComponent(REDACTED)))
    notes.push(`# The URL holds ${REDACTED} where missive removed a secret: put it back before running.`);
  if (request.body?.includes(REDACTED)) notes.push(`# The body holds ${REDACTED} where missive removed a secret (e.g. a push token).`);
  if (request.truncated) notes.push('# The body was cut at 256 KiB in the wire view: this command sends it incomplete.');
  // One option per line, joined by backslash-newlines (between words, never inside one).
  return [...notes, [first.join(' '), ...args].join(' \\\n  ')].join('\n');
}
