/**
 * Contexts, messages, tasks and artifacts on SQLite: what A2A exchanges leave in the journal. The statements both
 * engines share are statements/conversation.ts's; the row types and decoders are rows/conversation.ts's.
 */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { interleave } from '../rows/update-rows.js';
import { chunkParts } from '../rows/history.js';
import {
  appendedHead,
  splitArtifact,
  storedArtifactOf,
  storedFromRaw,
  storedFromUpdate,
  storedTaskOf,
  taskJsonOf,
  TERMINAL_STATES,
  type ArtifactHead,
  type ArtifactSummary,
  type ArtifactWrite,
  type NewMessage,
  type RawStoredMessage,
  type StoredArtifact,
  type StoredMessage,
  type StoredTask,
  type TaskQuery,
  type TaskStatusWrite,
  type TaskUpsert,
} from '../rows/conversation.js';
import { CONTEXTS } from '../statements/contexts.js';
import {
  appendChunkParams,
  CONVERSATION,
  headOf,
  insertArtifactParams,
  insertMessageParams,
  listTasksStatement,
  replaceArtifactParams,
  saveHeadParams,
  upsertTaskParams,
} from '../statements/conversation.js';
import { taskFreeUpdatesOf, updatesOfTask } from './update-rows.js';
import { sqliteContextReads } from './contexts.js';
import { sqlitePushConfigs } from './push-configs.js';
import type { RecordReads } from './collective-records.js';
import type { WithDb } from '../repository-forms.js';
import type { ConversationRepository } from '../storage.js';

export function ensureContext(db: Db, contextId: string, agentAlias: string | null, metadata: Record<string, unknown> = {}): void {
  db.prepare(CONTEXTS.ensure.sqlite).run(contextId, agentAlias, JSON.stringify(metadata));
}

/** Inserts a message; a task's messages are numbered in the insert itself (one statement, read from idx_messages_task). */
export function insertMessage(db: Db, m: NewMessage): void {
  db.prepare(CONVERSATION.insertMessage.sqlite).run(...insertMessageParams(m));
}

/** Puts a request message in the context its answer named, when the request went out without one. */
export function linkMessageToContext(db: Db, messageId: string, contextId: string): void {
  db.prepare(CONVERSATION.linkToContext.sqlite).run(contextId, messageId);
}

/** Links a request message to the task its response created. */
export function linkMessageToTask(db: Db, messageId: string, taskId: string, contextId: string | null): void {
  db.prepare(CONVERSATION.linkToTask.sqlite).run(taskId, contextId, messageId);
}

/** The request row sent under `messageId` (a job's dispatch mark): the task and context its answer gave it. */
export const requestOf = (db: Db, messageId: string) =>
  db.prepare(CONVERSATION.requestOf.sqlite).get(messageId) as { task_id: string | null; context_id: string | null } | undefined;

/** Inserts or updates a task; `updated_at` moves only when something changed (a GetTask of a finished task is no update). */
export function upsertTask(db: Db, t: TaskUpsert): void {
  db.prepare(CONVERSATION.upsertTask.sqlite).run(...upsertTaskParams(t, nowIso()));
}

/**
 * A status update of a task whose row exists: `status` is set inside the stored JSON by SQLite, so the task JSON is
 * neither read back nor rewritten by this process (the same result as reading, spreading and upserting it). Returns
 * false when there is no row (the caller upserts instead). Stored JSON that SQLite cannot read (changed outside
 * missive) is started again as a task without JSON is, `{id, contextId}` with the status: the update repairs it.
 */
export function updateTaskStatus(db: Db, t: TaskStatusWrite): boolean {
  const now = nowIso();
  const info = db
    .prepare(
      `UPDATE tasks SET state = @state, remote_state = @remoteState, context_id = coalesce(@contextId, tasks.context_id),
         protocol_version = coalesce(@protocolVersion, tasks.protocol_version), remote_task_json = next.json,
         last_message_id = coalesce(@lastMessageId, tasks.last_message_id), completed_at = coalesce(tasks.completed_at, @completedAt),
         updated_at = CASE WHEN tasks.state IS @state AND tasks.remote_task_json IS next.json THEN tasks.updated_at ELSE @now END
       FROM (SELECT json_set(CASE WHEN json_valid(remote_task_json) THEN remote_task_json
                                  WHEN @contextId IS NULL THEN json_object('id', task_id) ELSE json_object('id', task_id, 'contextId', @contextId) END,
                             '$.status', json(@status)) AS json
             FROM tasks WHERE task_id = @taskId) AS next
       WHERE tasks.task_id = @taskId`,
    )
    .run({ ...t, status: JSON.stringify(t.status), completedAt: TERMINAL_STATES.includes(t.state) ? now : null, now });
  return info.changes > 0;
}

/**
 * The stored parts of an artifact, concatenated in chunk order, as JSON text (assembled by SQLite), for a write to
 * compare with: a chunk SQLite cannot read (changed outside missive) counts as no parts, so the write replaces it.
 */
const partsText = (db: Db, taskId: string, artifactId: string): string =>
  (
    db
      .prepare(
        `SELECT coalesce(json_group_array(json(value)), '[]') AS parts FROM (
           SELECT j.value AS value FROM artifact_chunks c, json_each(CASE WHEN json_valid(c.parts_json) THEN c.parts_json ELSE '[]' END) j
           WHERE c.task_id = ? AND c.artifact_id = ? ORDER BY c.chunk_index, j.key)`,
      )
      .get(taskId, artifactId) as { parts: string }
  ).parts;

export function artifactHead(db: Db, taskId: string, artifactId: string): ArtifactHead | undefined {
  return headOf(db.prepare(CONVERSATION.artifactHead.sqlite).get(taskId, artifactId) as Parameters<typeof headOf>[0]);
}

/**
 * Adds the parts of `pieces` received chunks (a tick's, else one) as the artifact's next stored chunk; its index is
 * computed in the insert (from the chunks' primary key).
 */
export function appendArtifactChunk(db: Db, taskId: string, artifactId: string, parts: unknown[], pieces = 1): void {
  db.prepare(CONVERSATION.appendChunk.sqlite).run(...appendChunkParams(taskId, artifactId, JSON.stringify(parts), pieces));
}

export function saveArtifactHead(db: Db, taskId: string, artifactId: string, head: ArtifactHead): void {
  db.prepare(CONVERSATION.saveHead.sqlite).run(...saveHeadParams(taskId, artifactId, head, nowIso()));
}

/**
 * Stores an artifact: a new row, a new chunk (append), or new content (replace). Each change bumps the version;
 * content equal to what is stored keeps it. Returns the stored version.
 */
export function writeArtifact(db: Db, a: ArtifactWrite): number {
  const existing = artifactHead(db, a.taskId, a.artifactId);
  const { header, parts } = splitArtifact(a.content);
  const headerJson = JSON.stringify(header);
  const lastChunk = a.lastChunk === undefined ? null : a.lastChunk ? 1 : 0;
  const addChunk = (index: number) => db.prepare(CONVERSATION.addChunk.sqlite).run(a.taskId, a.artifactId, index, JSON.stringify(parts));
  if (!existing) {
    db.prepare(CONVERSATION.insertArtifact.sqlite).run(...insertArtifactParams(a, headerJson, lastChunk));
    addChunk(0);
    return 1;
  }
  if (a.mode === 'append') {
    appendArtifactChunk(db, a.taskId, a.artifactId, parts);
    const head = appendedHead(existing, a);
    saveArtifactHead(db, a.taskId, a.artifactId, head);
    return head.version;
  }
  if (existing.contentJson === headerJson && partsText(db, a.taskId, a.artifactId) === JSON.stringify(parts)) {
    if (lastChunk !== null) db.prepare(CONVERSATION.setLastChunk.sqlite).run(lastChunk, a.taskId, a.artifactId);
    return existing.version;
  }
  db.prepare(CONVERSATION.deleteChunks.sqlite).run(a.taskId, a.artifactId);
  addChunk(0);
  db.prepare(CONVERSATION.replaceArtifact.sqlite).run(...replaceArtifactParams(a, headerJson, lastChunk, nowIso()));
  return existing.version + 1;
}

export const getTask = (db: Db, taskId: string): StoredTask | undefined => {
  const row = db.prepare(CONVERSATION.getTask.sqlite).get(taskId) as StoredTask | undefined;
  return row && storedTaskOf(row);
};

export const listArtifactsOfTask = (db: Db, taskId: string) => db.prepare(CONVERSATION.listArtifactsOfTask.sqlite).all(taskId) as ArtifactSummary[];

/** Local tasks, most recently updated first (task id breaks ties). */
export function listTasks(db: Db, q: TaskQuery): StoredTask[] {
  const { statement, params } = listTasksStatement(q);
  return (db.prepare(statement.sqlite).all(...params) as StoredTask[]).map(storedTaskOf);
}

/** The last remote JSON stored for a task, or null when the task is unknown or has none. */
export function getTaskJson(db: Db, taskId: string): Record<string, unknown> | null {
  const row = db.prepare(CONVERSATION.taskJson.sqlite).get(taskId) as { remote_task_json: string | null } | undefined;
  return taskJsonOf(taskId, row?.remote_task_json ?? null);
}

export function getArtifact(db: Db, taskId: string, artifactId: string): StoredArtifact | undefined {
  const row = db.prepare(CONVERSATION.getArtifact.sqlite).get(taskId, artifactId) as
    (Omit<StoredArtifact, 'content' | 'last_chunk'> & { content_json: string; last_chunk: number }) | undefined;
  if (!row) return undefined;
  const { content_json, last_chunk, ...rest } = row;
  // Each chunk decoded here (not assembled by SQLite, whose JSON functions fail unnamed on a chunk they cannot read).
  const chunks = db.prepare(CONVERSATION.chunksOf.sqlite).all(taskId, artifactId) as Array<{ artifact_id: string; chunk_index: number; parts_json: string }>;
  return storedArtifactOf(
    rest,
    last_chunk,
    content_json,
    chunks.flatMap((chunk) => chunkParts(taskId, chunk)),
  );
}

/** A member's latest task in a context: newest `updated_at`, then the smallest task id. */
export const latestTaskOf = (db: Db, agentAlias: string, contextId: string): StoredTask | undefined => {
  const row = db.prepare(CONVERSATION.latestTaskOf.sqlite).get(agentAlias, contextId) as StoredTask | undefined;
  return row && storedTaskOf(row);
};

/** The messages linked to a task other than requests (answers, and its updates from the journal), newest first. */
export const responsesOfTask = (db: Db, taskId: string): StoredMessage[] =>
  interleave(
    (db.prepare(CONVERSATION.responsesOfTask.sqlite).all(taskId) as RawStoredMessage[]).map(storedFromRaw),
    updatesOfTask(db, taskId).map(storedFromUpdate),
  ).reverse();

/** Response messages of a context that belong to no task (direct Message answers, streamed or not), newest first, per agent. */
export const directResponsesOf = (db: Db, agentAlias: string, contextId: string): StoredMessage[] =>
  interleave(
    (db.prepare(CONVERSATION.directResponsesOf.sqlite).all(agentAlias, contextId) as RawStoredMessage[]).map(storedFromRaw),
    taskFreeUpdatesOf(db, agentAlias, contextId).map(storedFromUpdate),
  ).reverse();

/** A task row for a task we only know by id (a push config or callback came first); a later fetch fills it in. */
export function ensurePlaceholderTask(db: Db, taskId: string, agentAlias: string, contextId: string | null = null): void {
  db.prepare(CONVERSATION.ensurePlaceholderTask.sqlite).run(taskId, agentAlias, contextId);
}

/** The methods the journal's modules bring, loaded with its writer: repos/events.ts's and repos/collective-records.ts's. */
export type JournalBacked = 'hasEventKey' | RecordReads;

/** The conversation repository on SQLite (storage.ts's ConversationRepository, the connection first), but for JournalBacked. */
export const sqliteConversation: WithDb<Omit<ConversationRepository, JournalBacked>, Db> = {
  ensureContext,
  insertMessage,
  linkMessageToContext,
  linkMessageToTask,
  getTask,
  upsertTask,
  writeArtifact,
  artifactHead,
  listArtifactsOfTask,
  listTasks,
  requestOf,
  ensurePlaceholderTask,
  updateTaskStatus,
  getTaskJson,
  getArtifact,
  latestTaskOf,
  responsesOfTask,
  directResponsesOf,
  ...sqliteContextReads,
  ...sqlitePushConfigs,
};
