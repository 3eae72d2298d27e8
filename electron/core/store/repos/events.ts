/** The event journal. Payloads are redacted before they reach this module's callers' rows. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db.js';
import { redactValue } from '../../security/redact.js';

export interface NewEvent {
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
}

/** Appends one event with a redacted payload; returns its sequence and id, or null when the dedupe key was seen. */
export function appendEvent(db: Db, event: NewEvent, knownSecrets: readonly string[] = []): { sequence: number; eventId: string } | null {
  const eventId = randomUUID();
  const payload = redactValue(event.payload ?? {}, knownSecrets);
  const metadata = redactValue(event.metadata ?? {}, knownSecrets);
  const info = db
    .prepare(
      `INSERT INTO events (event_id, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(dedupe_key) DO NOTHING`,
    )
    .run(
      eventId,
      event.source ?? 'cli',
      event.type,
      event.agentAlias ?? null,
      event.contextId ?? null,
      event.taskId ?? null,
      event.dedupeKey ?? null,
      JSON.stringify(payload),
      JSON.stringify(metadata),
    );
  if (info.changes === 0) return null;
  return { sequence: Number(info.lastInsertRowid), eventId };
}

interface RawEvent {
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
}

const fromRaw = (r: RawEvent): EventRow => ({
  sequence: r.sequence,
  eventId: r.event_id,
  timestamp: r.timestamp,
  source: r.source,
  type: r.event_type,
  agentAlias: r.agent_alias,
  contextId: r.context_id,
  taskId: r.task_id,
  payload: JSON.parse(r.payload_json),
  metadata: JSON.parse(r.metadata_json),
});

/** True when an event with this dedupe key is already journaled. */
export const hasEventKey = (db: Db, key: string): boolean => db.prepare(`SELECT 1 FROM events WHERE dedupe_key = ?`).get(key) !== undefined;

export interface EventQuery {
  type?: string;
  since?: string;
  agentAlias?: string;
  contextId?: string;
  taskId?: string;
  afterSequence?: number;
  limit?: number;
}

export function listEvents(db: Db, query: EventQuery = {}): EventRow[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.type) (where.push('event_type = ?'), params.push(query.type));
  if (query.agentAlias) (where.push('agent_alias = ?'), params.push(query.agentAlias));
  if (query.contextId) (where.push('context_id = ?'), params.push(query.contextId));
  if (query.taskId) (where.push('task_id = ?'), params.push(query.taskId));
  if (query.since) (where.push('timestamp >= ?'), params.push(query.since));
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  if (query.afterSequence !== undefined) {
    // Following the journal forward (tail, export): oldest first from the cursor.
    const sql = `SELECT * FROM events ${clause ? `${clause} AND` : 'WHERE'} sequence > ? ORDER BY sequence ASC LIMIT ?`;
    return (db.prepare(sql).all(...params, query.afterSequence, query.limit ?? 500) as RawEvent[]).map(fromRaw);
  }
  const sql = `SELECT * FROM events ${clause} ORDER BY sequence DESC LIMIT ?`;
  params.push(query.limit ?? 50);
  return (db.prepare(sql).all(...params) as RawEvent[]).map(fromRaw).reverse();
}
