/**
 * Journal rows as both engines store them (`RawEvent`) and as readers see them (`EventRow`), with the decoder and the
 * values an append writes (redacted). Neither engine owns this module.
 */
import { rowId } from '../row-id.js';
import { redactShared } from '../../security/redact.js';
import { currentEventSource } from '../event-source.js';
import { currentActor, type Actor } from '../actor.js';
import { errorFromReport, isMissiveError, type ErrorReport } from '../../../../shared/errors.js';
import { storedJson, storedRow } from '../stored-json.js';

export interface NewEvent {
  /** The event's id; a new UUIDv7 when absent. */
  eventId?: string;
  type: string;
  source?: string;
  agentAlias?: string | null;
  contextId?: string | null;
  taskId?: string | null;
  dedupeKey?: string | null;
  payload?: unknown;
  metadata?: Record<string, unknown>;
}

export interface EventRow {
  sequence: number;
  eventId: string;
  timestamp: string;
  source: string;
  type: string;
  agentAlias: string | null;
  contextId: string | null;
  taskId: string | null;
  payload: unknown;
  metadata: Record<string, unknown>;
  /** Who wrote it: host, OS user and actor id (store/actor.ts); null for a row journaled before missive recorded them. */
  actor: Actor | null;
  /**
   * Set when the row cannot be read (changed outside missive: its payload or metadata is not JSON, nests deeper than
   * MAX_JSON_DEPTH, or has the wrong shape): the `storage::corrupt_row` error naming it; `payload` is then null and
   * `metadata` empty. The journal's listings show such a row marked; a reader that needs it calls `readableEvent`.
   */
  corrupt?: ErrorReport;
}

/** The columns an append writes, in the order of `eventValues`. */
export const INSERTED_EVENT_COLUMNS =
  'event_id, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, actor_host, actor_user, actor_id';
/**
 * The values of the row `event` is appended as (INSERTED_EVENT_COLUMNS), payload and metadata redacted, and its id:
 * what SQLite's append and PostgreSQL's (postgres/repos/journal.ts) write. Who acts (store/actor.ts) goes in columns
 * of its own, never in the payload.
 */
export function eventValues(event: NewEvent, knownSecrets: readonly string[] = []): { eventId: string; values: unknown[] } {
  const eventId = event.eventId ?? rowId();
  const source = event.source ?? currentEventSource();
  const actor = currentActor(source);
  // Only serialised here: redactShared copies nothing where there is nothing to redact (a stream's event usually).
  const payload = redactShared(event.payload ?? {}, knownSecrets);
  const metadata = event.metadata ? redactShared(event.metadata, knownSecrets) : {};
  return {
    eventId,
    values: [
      eventId,
      source,
      event.type,
      event.agentAlias ?? null,
      event.contextId ?? null,
      event.taskId ?? null,
      event.dedupeKey ?? null,
      JSON.stringify(payload),
      JSON.stringify(metadata),
      actor.host,
      actor.user,
      actor.id,
    ],
  };
}

/** An `events` row as SQLite returns it. */
export interface RawEvent {
  sequence: number;
  event_id: string;
  timestamp: string;
  source: string;
  event_type: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  payload_json: string;
  metadata_json: string;
  /** NULL in rows journaled before schema v13 (PostgreSQL v4); absent from reads that do not select them. */
  actor_host?: string | null;
  actor_user?: string | null;
  actor_id?: string | null;
}

/** Who wrote a row: null when it predates the actor columns (all three are written together). */
const actorOf = (r: Pick<RawEvent, 'actor_host' | 'actor_user' | 'actor_id'>): Actor | null =>
  r.actor_id == null ? null : { host: r.actor_host ?? '', user: r.actor_user ?? '', id: r.actor_id };

/**
 * An `events` row decoded (PostgreSQL returns its BIGINT sequence as a string). A row whose payload or metadata
 * cannot be read (stored-json.ts) comes back marked `corrupt` rather than failing the read: one tampered event must not
 * hide the rest of a shared journal from `events list` and `export`.
 */
export function eventRowOf(r: Omit<RawEvent, 'sequence'> & { sequence: number | string }): EventRow {
  const sequence = Number(r.sequence);
  const row = {
    sequence,
    eventId: r.event_id,
    timestamp: r.timestamp,
    source: r.source,
    type: r.event_type,
    agentAlias: r.agent_alias,
    contextId: r.context_id,
    taskId: r.task_id,
    actor: actorOf(r),
  };
  const at = storedRow('events', { sequence, event_id: r.event_id });
  try {
    return { ...row, payload: storedJson(r.payload_json, at, 'payload_json'), metadata: storedJson(r.metadata_json, at, 'metadata_json', 'object') };
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    return { ...row, payload: null, metadata: {}, corrupt: error.toReport() };
  }
}

/** The event, or the `storage::corrupt_row` error of a row that could not be read: for the readers that need its payload. */
export function readableEvent<E extends Pick<EventRow, 'corrupt'>>(event: E): E {
  if (event.corrupt) throw errorFromReport(event.corrupt);
  return event;
}

/** `text` as a LIKE pattern that matches it literally anywhere: `\`, `%` and `_` are escaped with `\`. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
