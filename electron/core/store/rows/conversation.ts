/**
 * Contexts, messages, tasks and artifacts as both engines store them and as the services see them: row types,
 * decoders, and the pure steps of a write (an artifact's header and parts, an appended chunk's head). Neither engine
 * owns this module.
 */
import { storedEnum, storedJson, storedRow } from '../stored-json.js';
import type { UpdateMessageRow } from './update-rows.js';

/** The states a task row holds (the `tasks.state` CHECK of both engines): the one list in shared/task-states.ts. */
import { TASK_STATES as STORED_TASK_STATES, TERMINAL_TASK_STATES, type TaskState as TaskStateName } from '../../../../shared/task-states.js';
export { STORED_TASK_STATES, type TaskStateName };

export interface NewMessage {
  messageId: string;
  agentAlias: string | null;
  contextId: string | null;
  taskId: string | null;
  direction: 'request' | 'response' | 'stream_event' | 'push' | 'local';
  role: 'user' | 'agent' | 'system' | 'tool' | 'unknown';
  protocolMessageId: string | null;
  content: unknown;
  metadata?: Record<string, unknown>;
}

export interface TaskUpsert {
  taskId: string;
  agentAlias: string;
  contextId: string | null;
  state: TaskStateName;
  remoteState: string | null;
  protocolVersion: string | null;
  remoteJson: unknown;
  lastMessageId: string | null;
  metadata?: Record<string, unknown>;
}

/** States a task never leaves (shared/task-states.ts). */
export const TERMINAL_STATES: readonly TaskStateName[] = TERMINAL_TASK_STATES;

export interface TaskStatusWrite {
  taskId: string;
  /** Used when the task row is new or has no remote JSON yet: the JSON starts as `{id, contextId}`. */
  contextId: string | null;
  state: TaskStateName;
  remoteState: string | null;
  protocolVersion: string | null;
  /** The A2A TaskStatus; replaces `status` in the stored task JSON (where it was, or last). */
  status: unknown;
  lastMessageId: string | null;
}

export interface ArtifactWrite {
  artifactId: string;
  taskId: string;
  contextId: string | null;
  name: string | null;
  mimeType: string | null;
  kind: ArtifactKind;
  /** The A2A Artifact JSON; its `parts` become one chunk. */
  content: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Set from an artifactUpdate's lastChunk; left as stored when undefined. */
  lastChunk?: boolean;
  /** `append` adds the parts as a new chunk (artifactUpdate with append); `replace` makes them the only chunk. */
  mode?: 'replace' | 'append';
}

export type ArtifactKind = 'text' | 'json' | 'file' | 'bytes' | 'mixed' | 'unknown';

/** An artifact's JSON split into its header (all but `parts`) and its parts (an array, empty when it has none). */
export const splitArtifact = (content: Record<string, unknown>) => {
  const { parts, ...header } = content;
  return { header, parts: Array.isArray(parts) ? parts : [] };
};

/** What the artifact row holds besides its parts (the chunks): read once per tick by a stream, saved once per tick. */
export interface ArtifactHead {
  version: number;
  kind: ArtifactKind;
  /** The artifact JSON without its parts. */
  contentJson: string;
  name: string | null;
  mimeType: string | null;
  lastChunk: number;
}

/**
 * The head after appending `a`'s parts as a chunk: the version bumped, the header merged (a chunk with the stored
 * header, as a model streaming tokens sends, keeps the stored JSON), the kind `mixed` once parts of another kind come.
 */
export function appendedHead(head: ArtifactHead, a: ArtifactWrite): ArtifactHead {
  const { header, parts } = splitArtifact(a.content);
  const headerJson = JSON.stringify(header);
  const stored = () => storedJson(head.contentJson, storedRow('artifacts', { task_id: a.taskId, artifact_id: a.artifactId }), 'content_json', 'object');
  return {
    version: head.version + 1,
    kind: head.kind === a.kind || parts.length === 0 ? head.kind : 'mixed',
    contentJson: headerJson === head.contentJson ? head.contentJson : JSON.stringify({ ...stored(), ...header }),
    name: a.name ?? head.name,
    mimeType: head.mimeType ?? a.mimeType,
    lastChunk: a.lastChunk === undefined ? head.lastChunk : a.lastChunk ? 1 : 0,
  };
}

/** The parts of an artifact write (its content's `parts`). */
export const partsOf = (a: ArtifactWrite): unknown[] => splitArtifact(a.content).parts;

/** The chunks a tick received for an artifact, newest first: each write adds a link (a failing write's is dropped). */
export interface ReceivedChunks {
  parts: unknown[];
  count: number;
  earlier: ReceivedChunks | null;
}

/** An artifact a tick appends to: its row as it will be saved, and the chunks received since the tick began. */
export interface AppendedArtifact {
  head: ArtifactHead;
  received: ReceivedChunks | null;
}

/** `open` with `a` appended: a new value (the old one stays as it was, for a write that fails to go back to). */
export const withChunk = (open: AppendedArtifact, a: ArtifactWrite): AppendedArtifact => ({
  head: appendedHead(open.head, a),
  received: { parts: partsOf(a), count: (open.received?.count ?? 0) + 1, earlier: open.received },
});

/** The parts of the received chunks, oldest first: what the tick's one chunk row of the artifact holds. */
export function receivedParts(received: ReceivedChunks): unknown[] {
  const chunks: unknown[][] = [];
  for (let link: ReceivedChunks | null = received; link; link = link.earlier) chunks.push(link.parts);
  return chunks.reverse().flat();
}

export interface StoredTask {
  task_id: string;
  agent_alias: string;
  context_id: string | null;
  state: TaskStateName;
  remote_state: string | null;
  protocol_version: string | null;
  last_message_id: string | null;
  updated_at: string;
}

/** A task row as read (SQLite's and PostgreSQL's): a state that is none of STORED_TASK_STATES is storage::corrupt_row. */
export const storedTaskOf = (row: StoredTask): StoredTask => ({
  ...row,
  state: storedEnum(row.state, STORED_TASK_STATES, storedRow('tasks', { task_id: row.task_id }), 'state'),
});

export interface ArtifactSummary {
  artifact_id: string;
  name: string | null;
  kind: string;
  mime_type: string | null;
  version: number;
  last_chunk: number;
  chunks: number;
  updated_at: string;
}

export interface TaskQuery {
  agent?: string;
  contextId?: string;
  state?: TaskStateName;
  limit: number;
  offset: number;
}

/** A task's stored remote JSON (SQLite's and PostgreSQL's): an object, null when it has none, or storage::corrupt_row. */
export const taskJsonOf = (taskId: string, json: string | null): Record<string, unknown> | null =>
  json === null ? null : storedJson(json, storedRow('tasks', { task_id: taskId }), 'remote_task_json', 'object');

export interface StoredArtifact {
  artifact_id: string;
  task_id: string;
  context_id: string | null;
  name: string | null;
  mime_type: string | null;
  kind: string;
  version: number;
  last_chunk: boolean;
  content: Record<string, unknown>;
  updated_at: string;
}

/** An artifact row and its parts (its chunks' parts, each chunk decoded by history.ts's chunkParts) as read (SQLite's and PostgreSQL's). */
export function storedArtifactOf(
  rest: Omit<StoredArtifact, 'content' | 'last_chunk'>,
  lastChunk: number,
  contentJson: string,
  parts: unknown[],
): StoredArtifact {
  const at = storedRow('artifacts', { task_id: rest.task_id, artifact_id: rest.artifact_id });
  return { ...rest, last_chunk: lastChunk === 1, content: { ...storedJson(contentJson, at, 'content_json', 'object'), parts } };
}

export interface StoredMessage {
  message_id: string;
  direction: string;
  role: string;
  content: Record<string, unknown>;
  created_at: string;
}

/** A message row as stored (the columns responsesOfTask and directResponsesOf read). */
export type RawStoredMessage = Omit<StoredMessage, 'content'> & { content_json: string };
export const storedFromRaw = ({ content_json, ...rest }: RawStoredMessage): StoredMessage => ({
  ...rest,
  content: storedJson(content_json, storedRow('messages', { message_id: rest.message_id }), 'content_json', 'object'),
});
/** An update read from the journal (update-rows.ts) as a StoredMessage. */
export const storedFromUpdate = ({ message_id, direction, role, content, created_at }: UpdateMessageRow): StoredMessage => ({
  message_id,
  direction,
  role,
  content,
  created_at,
});
