/**
 * The text behind the "Copy as" buttons: a `missive …` command line for a request's inputs, and `curl` command lines
 * from a request as it went over the wire or, before sending, as `requests.preview` says it would. The quoting and
 * the shape of both live in `shared/copy-as.ts` (shared with the CLI's tests); this module only picks the source.
 */
import { call } from '../api';
import { curlCommand, missiveCommand } from '../../../shared/copy-as';
import type { MessageInputs, WireRequest } from '../../../shared/ipc/contract';

/** What a button copies: the text, or null with a note saying why there is none (e.g. gRPC for curl). */
export interface CopyText {
  text: string | null;
  note?: string | null;
}

const GRPC_NOTE = 'curl cannot send a gRPC call: use "Copy as missive command" instead.';

/** curl for a request that went over the wire (gRPC cannot be expressed). */
export function curlOfWire(request: WireRequest): CopyText {
  if (request.protocol === 'grpc') return { text: null, note: GRPC_NOTE };
  return { text: curlCommand(request) };
}

/**
 * curl for a request not sent yet, as `requests.preview` builds it: one command per member for a group, joined by
 * blank lines, with a comment line for each member curl cannot reach and why.
 */
export async function curlOfPreview(target: { agent: string } | { group: string }, operation: 'send' | 'stream', inputs: MessageInputs): Promise<CopyText> {
  const { requests } = await call('requests.preview', { target, operation, inputs });
  if (requests.length === 1) {
    const only = requests[0]!;
    return only.request ? curlOfWire(only.request) : { text: null, note: only.note ?? GRPC_NOTE };
  }
  const commands: string[] = [];
  const notes: string[] = [];
  for (const r of requests) {
    if (r.request?.protocol === 'http') commands.push(`# ${r.agent}\n${curlCommand(r.request)}`);
    else notes.push(`${r.agent}: ${r.note ?? GRPC_NOTE}`);
  }
  if (commands.length === 0) return { text: null, note: notes.join(' ') || 'The group has no members.' };
  const skipped = notes.map((n) => `# not expressible as curl: ${n}`);
  return {
    text: [...skipped, ...commands].join('\n\n'),
    note: notes.length ? `${notes.length} member(s) cannot be expressed as curl (see the comment lines).` : null,
  };
}

/** `missive send|stream <agent> …` for inputs as Compose or History holds them. */
export function commandOfMessage(operation: 'send' | 'stream', agent: string, inputs: MessageInputs): CopyText {
  return { text: missiveCommand({ operation, agent, inputs }) };
}
