/**
 * A context's conversation as a thread: its messages (requests, answers, and the status messages streams and
 * callbacks brought) and its tasks' artifacts, merged oldest first. Artifact updates show as their artifact, state
 * changes without a message are left out, file bytes are summarised rather than copied, and everything is redacted.
 */
import type { Core } from '../handle.js';
import { redactValue } from '../security/redact.js';
import { textOfParts } from '../a2a/part-text.js';
import { artifactText } from '../../../shared/artifact-text.js';
import type { ContextRow } from '../store/rows/contexts.js';
import type { ThreadArtifactRow, ThreadMessageRow } from '../store/rows/history.js';
import type { Storage } from '../store/storage.js';
import { knownContext } from './service.js';

/** An artifact's text is shown up to this many characters (`text_truncated` says when it was cut). */
export const THREAD_ARTIFACT_TEXT = 4000;
/** Stored chunks of one artifact read for its text: enough for the bound above, however the agent split it. */
const ARTIFACT_CHUNKS = 200;

type Part = Record<string, unknown>;

export interface ThreadMessage {
  kind: 'message';
  at: string;
  message_id: string;
  protocol_message_id: string | null;
  direction: string;
  role: string;
  agent_alias: string | null;
  task_id: string | null;
  /** The A2A task state (e.g. TASK_STATE_COMPLETED) a status update announced with this message. */
  state: string | null;
  text: string | null;
  parts: Part[];
}

export interface ThreadArtifact {
  kind: 'artifact';
  at: string;
  updated_at: string;
  agent_alias: string | null;
  task_id: string;
  artifact_id: string;
  name: string | null;
  version: number;
  mime_type: string | null;
  content_kind: string;
  last_chunk: boolean;
  text: string | null;
  text_truncated: boolean;
  /** What the artifact holds besides text, e.g. `file report.pdf (application/pdf)`. */
  summary: string;
}

/** A part as the thread shows it: file bytes replaced by their size, so a thread never carries a file's content. */
function threadPart(part: Part): Part {
  if (typeof part.raw !== 'string') return part;
  const { raw, ...rest } = part;
  return { ...rest, raw_bytes: Math.floor((raw.length * 3) / 4) };
}

/** Where a stored row's content may carry a message: the message itself, or an update wrapping it. */
type StatusHolder = { status?: { state?: unknown; message?: Record<string, unknown> } };
type StoredContent = Record<string, unknown> & { synthetic?: unknown; message?: Record<string, unknown>; statusUpdate?: StatusHolder; task?: StatusHolder };

/**
 * The A2A message a stored row holds, and the state it announced: a request or answer row is the message itself;
 * a stream or callback row wraps its update (`{message}`, `{statusUpdate}`, `{task}`); an artifact update is null
 * (the artifact item shows it), as are a synthetic row and a status change that carried no message.
 */
function messageOf(row: ThreadMessageRow): { message: Record<string, unknown>; state: string | null } | null {
  const c = row.content as StoredContent;
  if (c.synthetic === true) return null;
  if (row.direction !== 'stream_event' && row.direction !== 'push') return Array.isArray(c.parts) ? { message: c, state: null } : null;
  if (c.message) return { message: c.message, state: null };
  const status = c.statusUpdate?.status ?? c.task?.status;
  return status?.message ? { message: status.message, state: typeof status.state === 'string' ? status.state : null } : null;
}

/** The A2A roles as the thread names them (a stream's row is `system`; the message inside says who spoke). */
const ROLES: Record<string, string> = { ROLE_USER: 'user', ROLE_AGENT: 'agent', user: 'user', agent: 'agent' };

function messageItem(row: ThreadMessageRow): ThreadMessage | null {
  const found = messageOf(row);
  if (!found) return null;
  const parts = (Array.isArray(found.message.parts) ? found.message.parts : []) as Part[];
  return {
    kind: 'message',
    at: row.created_at,
    message_id: row.message_id,
    protocol_message_id: row.protocol_message_id,
    direction: row.direction,
    role: ROLES[String(found.message.role)] ?? row.role,
    agent_alias: row.agent_alias,
    task_id: row.task_id,
    state: found.state,
    text: textOfParts(parts),
    parts: parts.map(threadPart),
  };
}

/** One part's line in an artifact summary. */
function describePart(part: Part): string | null {
  const name = typeof part.filename === 'string' ? ` ${part.filename}` : '';
  const type = typeof part.mediaType === 'string' ? ` (${part.mediaType})` : '';
  if (typeof part.text === 'string') return null;
  if ('data' in part) return `JSON${type}`;
  if (typeof part.url === 'string') return `file${name || ` ${part.url}`}${type}`;
  if ('raw' in part) return `file${name}${type}`;
  return 'a part of unknown kind';
}

async function artifactItem(storage: Storage, row: ThreadArtifactRow): Promise<ThreadArtifact> {
  let text = '';
  let truncated = false;
  const others = new Set<string>();
  let read = 0;
  // One chunk past the bound is asked for: if it comes, the text was cut there (a stored chunk may hold several
  // received ones, so the artifact's count of received chunks cannot tell).
  await storage.history.scanArtifactChunks(row.task_id, ARTIFACT_CHUNKS + 1, row.artifact_id, (chunk) => {
    if (++read > ARTIFACT_CHUNKS) {
      truncated = true;
      return false;
    }
    for (const part of chunk.parts as Part[]) {
      const described = describePart(part);
      if (described) others.add(described);
    }
    text += artifactText(chunk.parts) ?? '';
    if (text.length > THREAD_ARTIFACT_TEXT) {
      text = text.slice(0, THREAD_ARTIFACT_TEXT);
      truncated = true;
      return false;
    }
    return true;
  });
  const summary = [text ? 'text' : null, ...others].filter(Boolean).join(', ') || 'empty';
  return {
    kind: 'artifact',
    at: row.created_at,
    updated_at: row.updated_at,
    agent_alias: row.agent_alias,
    task_id: row.task_id,
    artifact_id: row.artifact_id,
    name: row.name,
    version: row.version,
    mime_type: row.mime_type,
    content_kind: row.kind,
    last_chunk: row.last_chunk,
    text: text || null,
    text_truncated: truncated,
    summary,
  };
}

/**
 * Messages and artifacts merged oldest first, each list keeping its stored order. Both come from one clock with
 * millisecond steps: at the same instant an artifact follows a request and precedes an answer (a task's artifacts are
 * stored before the status message that announces them).
 */
function merge(messages: ThreadMessage[], artifacts: ThreadArtifact[]): Array<ThreadMessage | ThreadArtifact> {
  const items: Array<ThreadMessage | ThreadArtifact> = [];
  let next = 0;
  for (const message of messages) {
    while (next < artifacts.length && (artifacts[next]!.at < message.at || (artifacts[next]!.at === message.at && message.direction !== 'request')))
      items.push(artifacts[next++]!);
    items.push(message);
  }
  return [...items, ...artifacts.slice(next)];
}

/** The context (by id or local name) and its thread, oldest first. */
export async function contextThread(core: Core, ref: string): Promise<{ context: ContextRow; items: Array<ThreadMessage | ThreadArtifact> }> {
  const context = await knownContext(core, ref);
  const storage = await core.storage();
  const messages = (await storage.history.messagesOfContext(context.context_id)).map(messageItem).filter((m): m is ThreadMessage => m !== null);
  const artifacts: ThreadArtifact[] = [];
  for (const a of await storage.history.artifactsOfContext(context.context_id)) artifacts.push(await artifactItem(storage, a));
  return redactValue({ context, items: merge(messages, artifacts) });
}
