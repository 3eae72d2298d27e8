/** The request history's rows (journal rows, message rows, a thread's artifacts) and their decoders. Neither engine owns this module. */
import { storedJson, storedRow } from '../stored-json.js';
import { isMissiveError } from '../../../../shared/errors.js';
import type { Actor } from '../actor.js';

export type RequestOperation = 'send' | 'stream';

/** Every event type idx_events_calls holds, for callers that ask for one of them. */
export const CALL_EVENT_TYPES = [
  'a2a.send.started',
  'a2a.send.completed',
  'a2a.send.failed',
  'a2a.stream.started',
  'a2a.stream.completed',
  'a2a.stream.failed',
  'a2a.agent_card.fetched',
  'a2a.agent_card.not_modified',
  'a2a.agent_card.failed',
] as const;
export type CallEventType = (typeof CALL_EVENT_TYPES)[number];

export interface JournalRow {
  sequence: number;
  timestamp: string;
  type: string;
  agentAlias: string | null;
  contextId: string | null;
  taskId: string | null;
  payload: Record<string, unknown>;
  /** Who wrote it (store/actor.ts); null for an event journaled before schema v13 (PostgreSQL v4). */
  actor: Actor | null;
}

/** A journal row as the database returns it (PostgreSQL's BIGINT sequence as a string: `journalRowOf` converts it). */
export interface RawJournalRow {
  sequence: number | string;
  timestamp: string;
  event_type: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  payload_json: string;
  actor_host?: string | null;
  actor_user?: string | null;
  actor_id?: string | null;
}

/** The columns of a journal row (`RawJournalRow`). */
export const JOURNAL_COLUMNS = 'sequence, timestamp, event_type, agent_alias, context_id, task_id, payload_json, actor_host, actor_user, actor_id';

/** A raw row as a JournalRow (also the PostgreSQL store's decoder); a payload that cannot be read is storage::corrupt_row. */
export const journalRowOf = (r: RawJournalRow): JournalRow => ({
  sequence: Number(r.sequence),
  timestamp: r.timestamp,
  type: r.event_type,
  agentAlias: r.agent_alias,
  contextId: r.context_id,
  taskId: r.task_id,
  payload: storedJson(r.payload_json, storedRow('events', { sequence: Number(r.sequence) }), 'payload_json', 'object'),
  actor: r.actor_id == null ? null : { host: r.actor_host ?? '', user: r.actor_user ?? '', id: r.actor_id },
});

/**
 * A call event for agent health (SQLite's and PostgreSQL's decoder): its time and type are what health reads; a
 * payload that cannot be read is replaced by its storage::corrupt_row error as the call's `error`, so one tampered
 * event shows on its own agent's health instead of failing every agent's.
 */
export function callEventOf(r: RawJournalRow): JournalRow {
  try {
    return journalRowOf(r);
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    const { code, message, category } = error.toReport();
    return { ...journalRowOf({ ...r, payload_json: '{}' }), payload: { error: { code, message, category } } };
  }
}

export interface StartsQuery {
  agent?: string;
  operation?: RequestOperation;
  /** Only starts older than this sequence (the cursor of the next page). */
  beforeSequence?: number;
  limit: number;
}

export interface MessageRow {
  /** The row's position in insertion order (SQLite rowid; an update read from the journal gives its sequence). */
  row: number;
  message_id: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  direction: string;
  role: string;
  content: Record<string, unknown>;
  created_at: string;
}

/** A message row as stored (`MESSAGE_COLUMNS`; PostgreSQL's BIGINT rowid comes as a string). */
export type RawMessage = Omit<MessageRow, 'content' | 'row'> & { row: number | string; content_json: string };
/** The columns of a message row (`row` is the insertion order: the rowid). */
export const MESSAGE_COLUMNS = 'rowid AS "row", message_id, agent_alias, context_id, task_id, direction, role, content_json, created_at';
/** A stored message row as a MessageRow (also the PostgreSQL store's decoder, its rowid a number). */
export const messageFromRaw = ({ content_json, row, ...rest }: RawMessage): MessageRow => ({
  ...rest,
  row: Number(row),
  content: storedJson(content_json, storedRow('messages', { message_id: rest.message_id }), 'content_json', 'object'),
});

/** A chunk's parts (also the PostgreSQL store's decoder): a JSON array, or storage::corrupt_row naming the chunk. */
export const chunkParts = (taskId: string, row: { artifact_id: string; chunk_index?: number; parts_json: string }): unknown[] =>
  storedJson(
    row.parts_json,
    storedRow('artifact_chunks', { task_id: taskId, artifact_id: row.artifact_id, ...(row.chunk_index === undefined ? {} : { chunk_index: row.chunk_index }) }),
    'parts_json',
    'array',
  );

export interface ThreadMessageRow extends MessageRow {
  protocol_message_id: string | null;
}

export interface ThreadArtifactRow {
  task_id: string;
  /** The agent of the artifact's task. */
  agent_alias: string | null;
  artifact_id: string;
  name: string | null;
  mime_type: string | null;
  kind: string;
  version: number;
  last_chunk: boolean;
  chunks: number;
  created_at: string;
  updated_at: string;
}
