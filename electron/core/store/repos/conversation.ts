/** Contexts, messages, tasks and artifacts: what A2A exchanges leave in the journal. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';

export type TaskStateName = 'submitted' | 'working' | 'input_required' | 'auth_required' | 'completed' | 'failed' | 'cancelled' | 'rejected' | 'unknown';

export function ensureContext(db: Db, contextId: string, agentAlias: string | null, metadata: Record<string, unknown> = {}): void {
  db.prepare(`INSERT INTO contexts (context_id, agent_alias, metadata_json) VALUES (?, ?, ?) ON CONFLICT(context_id) DO NOTHING`).run(
    contextId,
    agentAlias,
    JSON.stringify(metadata),
  );
}

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

export function insertMessage(db: Db, m: NewMessage): void {
  const ordinal = m.taskId
    ? ((db.prepare(`SELECT coalesce(max(ordinal), -1) + 1 AS n FROM messages WHERE task_id = ?`).get(m.taskId) as { n: number }).n)
    : 0;
  db.prepare(
    `INSERT INTO messages (message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(m.messageId, m.agentAlias, m.contextId, m.taskId, m.direction, m.role, ordinal, m.protocolMessageId, JSON.stringify(m.content), JSON.stringify(m.metadata ?? {}));
}

/** Links a request message to the task its response created. */
export function linkMessageToTask(db: Db, messageId: string, taskId: string, contextId: string | null): void {
  db.prepare(`UPDATE messages SET task_id = ?, context_id = coalesce(context_id, ?) WHERE message_id = ?`).run(taskId, contextId, messageId);
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

const TERMINAL = new Set<TaskStateName>(['completed', 'failed', 'cancelled', 'rejected']);

export function upsertTask(db: Db, t: TaskUpsert): void {
  const now = nowIso();
  db.prepare(
    `INSERT INTO tasks (task_id, agent_alias, context_id, state, remote_state, protocol_version, remote_task_json, last_message_id, metadata_json, completed_at, updated_at)
     VALUES (@taskId, @agentAlias, @contextId, @state, @remoteState, @protocolVersion, @remoteJson, @lastMessageId, @metadata, @completedAt, @now)
     ON CONFLICT(task_id) DO UPDATE SET state = excluded.state, remote_state = excluded.remote_state,
       context_id = coalesce(excluded.context_id, tasks.context_id), protocol_version = coalesce(excluded.protocol_version, tasks.protocol_version),
       remote_task_json = excluded.remote_task_json, last_message_id = coalesce(excluded.last_message_id, tasks.last_message_id),
       completed_at = coalesce(tasks.completed_at, excluded.completed_at), updated_at = excluded.updated_at`,
  ).run({
    ...t,
    remoteJson: JSON.stringify(t.remoteJson),
    metadata: JSON.stringify(t.metadata ?? {}),
    completedAt: TERMINAL.has(t.state) ? now : null,
    now,
  });
}

export interface ArtifactUpsert {
  artifactId: string;
  taskId: string;
  contextId: string | null;
  name: string | null;
  mimeType: string | null;
  kind: 'text' | 'json' | 'file' | 'bytes' | 'mixed' | 'unknown';
  content: unknown;
  metadata?: Record<string, unknown>;
}

/** Inserts an artifact, or stores a new version when its content changed. Returns the stored version. */
export function upsertArtifact(db: Db, a: ArtifactUpsert): number {
  const existing = db.prepare(`SELECT version, content_json FROM artifacts WHERE task_id = ? AND artifact_id = ?`).get(a.taskId, a.artifactId) as
    | { version: number; content_json: string }
    | undefined;
  const content = JSON.stringify(a.content);
  if (!existing) {
    db.prepare(
      `INSERT INTO artifacts (artifact_id, task_id, context_id, name, mime_type, kind, content_json, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(a.artifactId, a.taskId, a.contextId, a.name, a.mimeType, a.kind, content, JSON.stringify(a.metadata ?? {}));
    return 1;
  }
  if (existing.content_json === content) return existing.version;
  db.prepare(`UPDATE artifacts SET content_json = ?, name = ?, mime_type = ?, kind = ?, version = version + 1, updated_at = ? WHERE task_id = ? AND artifact_id = ?`).run(
    content,
    a.name,
    a.mimeType,
    a.kind,
    nowIso(),
    a.taskId,
    a.artifactId,
  );
  return existing.version + 1;
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

export const getTask = (db: Db, taskId: string) =>
  db.prepare(`SELECT task_id, agent_alias, context_id, state, remote_state, protocol_version, last_message_id, updated_at FROM tasks WHERE task_id = ?`).get(taskId) as
    | StoredTask
    | undefined;

export const listMessagesOfContext = (db: Db, contextId: string) =>
  db.prepare(`SELECT message_id, direction, role, task_id FROM messages WHERE context_id = ? ORDER BY created_at, rowid`).all(contextId) as Array<{
    message_id: string;
    direction: string;
    role: string;
    task_id: string | null;
  }>;

export const listArtifactsOfTask = (db: Db, taskId: string) =>
  db.prepare(`SELECT artifact_id, name, kind, version FROM artifacts WHERE task_id = ? ORDER BY artifact_id`).all(taskId) as Array<{
    artifact_id: string;
    name: string | null;
    kind: string;
    version: number;
  }>;
