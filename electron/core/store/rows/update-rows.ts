/**
 * The updates of streams, task subscriptions and push callbacks read as message rows (each update is stored once, as
 * its journal event): the row type, the decoder both engines use, and the merge with message rows. Neither engine owns
 * this module; each engine's reads are in its repos (update-rows.ts).
 */
import type { RawEvent } from './events.js';
import { corruptRow, storedJson, storedRow } from '../stored-json.js';

/** The journal's update events: every prefix (stream, subscription, push) × every StreamResponse variant. */
export const UPDATE_EVENT_TYPES: readonly string[] = ['a2a.stream', 'a2a.subscription', 'a2a.push'].flatMap((prefix) =>
  ['task', 'message', 'status_update', 'artifact_update'].map((variant) => `${prefix}.${variant}`),
);

/** The key an update's payload holds it under, by the event type's last segment. */
const VARIANT_KEY: Record<string, string> = { task: 'task', message: 'message', status_update: 'statusUpdate', artifact_update: 'artifactUpdate' };

export interface UpdateMessageRow {
  /** The update's journal sequence (message rows give their rowid here; the two are not comparable). */
  row: number;
  message_id: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  direction: 'stream_event' | 'push';
  role: 'agent' | 'system';
  protocol_message_id: string | null;
  /** `{[variant]: update}`, as message rows of updates held it. */
  content: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: string;
}

/** The columns of a journal event this module reads (`UPDATE_COLUMNS`). */
export type RawUpdate = Omit<RawEvent, 'source'>;

/** A journal event read by `UPDATE_COLUMNS` as an update row (also the PostgreSQL store's decoder, its sequence a number). */
export function fromRaw(r: RawUpdate): UpdateMessageRow {
  const variant = r.event_type.slice(r.event_type.lastIndexOf('.') + 1);
  const key = VARIANT_KEY[variant] ?? variant;
  // A thread or an answer needs the update: one that cannot be read fails the read, naming the event.
  const at = storedRow('events', { sequence: r.sequence, event_id: r.event_id });
  const payload = storedJson(r.payload_json, at, 'payload_json', 'object');
  const update = payload[key];
  if (update === null || typeof update !== 'object' || Array.isArray(update)) throw corruptRow(at, 'payload_json', `holds no ${key} object`);
  const message = key === 'message' ? (update as { messageId?: unknown } | undefined) : undefined;
  return {
    row: r.sequence,
    message_id: r.event_id,
    agent_alias: r.agent_alias,
    context_id: r.context_id,
    task_id: r.task_id,
    direction: r.event_type.startsWith('a2a.push.') ? 'push' : 'stream_event',
    role: key === 'message' ? 'agent' : 'system',
    protocol_message_id: typeof message?.messageId === 'string' ? message.messageId : null,
    content: { [key]: update },
    metadata: storedJson(r.metadata_json, at, 'metadata_json', 'object'),
    created_at: r.timestamp,
  };
}

/** The columns of an event read as an update row. */
export const UPDATE_COLUMNS = 'sequence, event_id, timestamp, event_type, agent_alias, context_id, task_id, payload_json, metadata_json';
/**
 * Message rows and update rows, each oldest first, as one list oldest first: by time, a message row before an update
 * stored in the same millisecond (a request is stored before the first event of its stream).
 */
export function interleave<M extends { created_at: string }, U extends { created_at: string }>(messages: readonly M[], updates: readonly U[]): Array<M | U> {
  if (updates.length === 0) return [...messages];
  if (messages.length === 0) return [...updates];
  const out: Array<M | U> = [];
  let i = 0;
  let j = 0;
  while (i < messages.length && j < updates.length) out.push(messages[i]!.created_at <= updates[j]!.created_at ? messages[i++]! : updates[j++]!);
  while (i < messages.length) out.push(messages[i++]!);
  while (j < updates.length) out.push(updates[j++]!);
  return out;
}
