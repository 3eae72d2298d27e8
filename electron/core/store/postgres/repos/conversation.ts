/**
 * Contexts, messages, tasks and artifacts on PostgreSQL: the statements of repos/conversation.ts and repos/contexts.ts,
 * with their row types and pure helpers, so both engines keep the same rows; push configs (push-configs.ts) and what
 * replay reads back (collective-records.ts) are their own modules.
 *
 * Two hosts may write one task's artifact at once (two gateways, a receiver pool): `writeArtifact` locks the artifact's
 * row as it reads its head, so inside transactions the writes serialize and each one bumps the version the other left
 * (no lost chunk); `insertMessage` takes a lock on the task for the transaction, so its messages' ordinals never meet.
 * Outside a transaction each statement commits on its own and holds nothing.
 */
import { nowIso } from '../../db.js';
import { fromRaw, type RawContext } from '../../repos/contexts.js';
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
  type ArtifactKind,
  type ArtifactSummary,
  type ArtifactWrite,
  type RawStoredMessage,
  type StoredArtifact,
  type StoredMessage,
  type StoredTask,
  type TaskStatusWrite,
} from '../../repos/conversation.js';
import type { ConversationRepository } from '../../storage.js';
import { isMissiveError, storageError } from '../../../../../shared/errors.js';
import { chunkParts } from '../../repos/history.js';
import { storedJson, storedRow } from '../../stored-json.js';
import { changed, run, type Query } from './query.js';
import { interleave } from '../../repos/update-rows.js';
import { taskFreeUpdatesOf, updatesOfTask } from './update-rows.js';
import { pushConfigMethods } from './push-configs.js';
import { collectiveRecordMethods } from './collective-records.js';

const TASK_COLUMNS = `task_id, agent_alias, context_id, state, remote_state, protocol_version, last_message_id, updated_at`;

/** Tries of updateTaskStatus outside a transaction, where another host may rewrite the task JSON between read and write. */
const STATUS_TRIES = 5;

/**
 * The stored task JSON with `status` replaced (where it was, or last), as SQLite's json_set leaves it: a task without
 * JSON starts as `{id}` or `{id, contextId}`, and so does one whose JSON cannot be read (changed outside missive:
 * stored-json.ts), which the update repairs; JSON that is no object is kept as it is.
 */
function withStatus(stored: string | null, t: TaskStatusWrite): string {
  const fresh = () => (t.contextId === null ? { id: t.taskId } : { id: t.taskId, contextId: t.contextId });
  let previous: unknown;
  try {
    previous = stored === null ? fresh() : storedJson(stored, storedRow('tasks', { task_id: t.taskId }), 'remote_task_json');
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    previous = fresh();
  }
  if (previous === null || typeof previous !== 'object' || Array.isArray(previous)) return stored!;
  return JSON.stringify({ ...previous, status: t.status ?? null });
}

export function conversationRepository(query: Query): ConversationRepository {
  /** The artifact's head, its row locked until the transaction ends. */
  async function lockedHead(taskId: string, artifactId: string): Promise<ArtifactHead | undefined> {
    const { rows } = await run<{ version: number; kind: ArtifactKind; content_json: string; name: string | null; mime_type: string | null; last_chunk: number }>(
      query,
      'conversation.writeArtifact',
      `SELECT version, kind, content_json, name, mime_type, last_chunk FROM artifacts WHERE task_id = $1 AND artifact_id = $2 FOR UPDATE`,
      [taskId, artifactId],
    );
    const row = rows[0];
    return row && { version: row.version, kind: row.kind, contentJson: row.content_json, name: row.name, mimeType: row.mime_type, lastChunk: row.last_chunk };
  }

  /** The stored parts, each chunk decoded (history.ts's chunkParts), concatenated in chunk order. */
  async function storedParts(taskId: string, artifactId: string, what: string): Promise<unknown[]> {
    const { rows } = await run<{ chunk_index: number; parts_json: string }>(
      query,
      what,
      `SELECT chunk_index, parts_json FROM artifact_chunks WHERE task_id = $1 AND artifact_id = $2 ORDER BY chunk_index`,
      [taskId, artifactId],
    );
    return rows.flatMap((r) => chunkParts(taskId, { artifact_id: artifactId, ...r }));
  }

  /**
   * The stored parts as JSON text (as JSON.stringify writes it, as SQLite's partsText), for a write to compare with;
   * null when a chunk cannot be read (changed outside missive): the write then replaces them, as on SQLite.
   */
  async function partsText(taskId: string, artifactId: string): Promise<string | null> {
    try {
      return JSON.stringify(await storedParts(taskId, artifactId, 'conversation.writeArtifact'));
    } catch (error) {
      if (isMissiveError(error) && error.code === 'missive::storage::corrupt_row') return null;
      throw error;
    }
  }

  const addChunk = (a: ArtifactWrite, index: number, partsJson: string) =>
    run(query, 'conversation.writeArtifact', `INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json) VALUES ($1, $2, $3, $4)`, [
      a.taskId,
      a.artifactId,
      index,
      partsJson,
    ]);

  return {
    async ensureContext(contextId, agentAlias, metadata = {}) {
      await run(query, 'conversation.ensureContext', `INSERT INTO contexts (context_id, agent_alias, metadata_json) VALUES ($1, $2, $3) ON CONFLICT (context_id) DO NOTHING`, [
        contextId,
        agentAlias,
        JSON.stringify(metadata),
      ]);
    },

    async insertMessage(m) {
      // A task's messages are numbered one after another: two hosts adding one to the same task take turns (the lock
      // is the transaction's; outside one, each statement commits on its own and the numbers may meet).
      if (m.taskId) await run(query, 'conversation.insertMessage', `SELECT pg_advisory_xact_lock(hashtextextended('missive.task_messages:' || $1, 0))`, [m.taskId]);
      await run(
        query,
        'conversation.insertMessage',
        `INSERT INTO messages (message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json)
         VALUES ($1, $2, $3, $4, $5, $6,
                 CASE WHEN $4::text IS NULL THEN 0 ELSE (SELECT coalesce(max(ordinal), -1) + 1 FROM messages WHERE task_id = $4) END,
                 $7, $8, $9)`,
        [m.messageId, m.agentAlias, m.contextId, m.taskId, m.direction, m.role, m.protocolMessageId, JSON.stringify(m.content), JSON.stringify(m.metadata ?? {})],
      );
    },

    async linkMessageToContext(messageId, contextId) {
      await run(query, 'conversation.linkMessageToContext', `UPDATE messages SET context_id = coalesce(context_id, $1) WHERE message_id = $2`, [contextId, messageId]);
    },

    async linkMessageToTask(messageId, taskId, contextId) {
      await run(query, 'conversation.linkMessageToTask', `UPDATE messages SET task_id = $1, context_id = coalesce(context_id, $2) WHERE message_id = $3`, [
        taskId,
        contextId,
        messageId,
      ]);
    },

    async getTask(taskId) {
      const { rows } = await run<StoredTask>(query, 'conversation.getTask', `SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = $1`, [taskId]);
      return rows[0] && storedTaskOf(rows[0]);
    },

    async upsertTask(t) {
      const now = nowIso();
      await run(
        query,
        'conversation.upsertTask',
        `INSERT INTO tasks (task_id, agent_alias, context_id, state, remote_state, protocol_version, remote_task_json, last_message_id, metadata_json, completed_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (task_id) DO UPDATE SET state = excluded.state, remote_state = excluded.remote_state,
           context_id = coalesce(excluded.context_id, tasks.context_id), protocol_version = coalesce(excluded.protocol_version, tasks.protocol_version),
           remote_task_json = excluded.remote_task_json, last_message_id = coalesce(excluded.last_message_id, tasks.last_message_id),
           completed_at = coalesce(tasks.completed_at, excluded.completed_at),
           updated_at = CASE WHEN tasks.state IS NOT DISTINCT FROM excluded.state AND tasks.remote_task_json IS NOT DISTINCT FROM excluded.remote_task_json
                             THEN tasks.updated_at ELSE excluded.updated_at END`,
        [
          t.taskId,
          t.agentAlias,
          t.contextId,
          t.state,
          t.remoteState,
          t.protocolVersion,
          JSON.stringify(t.remoteJson),
          t.lastMessageId,
          JSON.stringify(t.metadata ?? {}),
          TERMINAL_STATES.includes(t.state) ? now : null,
          now,
        ],
      );
    },

    async writeArtifact(a) {
      const { header, parts } = splitArtifact(a.content);
      const headerJson = JSON.stringify(header);
      const partsJson = JSON.stringify(parts);
      const lastChunk = a.lastChunk === undefined ? null : a.lastChunk ? 1 : 0;
      let existing = await lockedHead(a.taskId, a.artifactId);
      if (!existing) {
        const inserted = await run(
          query,
          'conversation.writeArtifact',
          `INSERT INTO artifacts (artifact_id, task_id, context_id, name, mime_type, kind, content_json, metadata_json, last_chunk) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (task_id, artifact_id) DO NOTHING`,
          [a.artifactId, a.taskId, a.contextId, a.name, a.mimeType, a.kind, headerJson, JSON.stringify(a.metadata ?? {}), lastChunk ?? 0],
        );
        if (changed(inserted) > 0) {
          await addChunk(a, 0, partsJson);
          return 1;
        }
        // Another host created it since the read (and has committed): this write goes on from its row.
        existing = await lockedHead(a.taskId, a.artifactId);
        if (!existing) {
          throw storageError('conflict', `conversation.writeArtifact collided with another missive removing the same artifact at the same time`, 'Run the command again.');
        }
      }
      if (a.mode === 'append') {
        await run(
          query,
          'conversation.writeArtifact',
          `INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json)
           SELECT $1, $2, coalesce(max(chunk_index), -1) + 1, $3 FROM artifact_chunks WHERE task_id = $1 AND artifact_id = $2`,
          [a.taskId, a.artifactId, partsJson],
        );
        const head = appendedHead(existing, a);
        await run(
          query,
          'conversation.writeArtifact',
          `UPDATE artifacts SET content_json = $1, name = $2, mime_type = $3, kind = $4, version = $5, last_chunk = $6, updated_at = $7 WHERE task_id = $8 AND artifact_id = $9`,
          [head.contentJson, head.name, head.mimeType, head.kind, head.version, head.lastChunk, nowIso(), a.taskId, a.artifactId],
        );
        return head.version;
      }
      if (existing.contentJson === headerJson && (await partsText(a.taskId, a.artifactId)) === partsJson) {
        if (lastChunk !== null) {
          await run(query, 'conversation.writeArtifact', `UPDATE artifacts SET last_chunk = $1 WHERE task_id = $2 AND artifact_id = $3`, [lastChunk, a.taskId, a.artifactId]);
        }
        return existing.version;
      }
      await run(query, 'conversation.writeArtifact', `DELETE FROM artifact_chunks WHERE task_id = $1 AND artifact_id = $2`, [a.taskId, a.artifactId]);
      await addChunk(a, 0, partsJson);
      await run(
        query,
        'conversation.writeArtifact',
        `UPDATE artifacts SET content_json = $1, name = $2, mime_type = $3, kind = $4, version = version + 1, last_chunk = coalesce($5, last_chunk), updated_at = $6
         WHERE task_id = $7 AND artifact_id = $8`,
        [headerJson, a.name, a.mimeType, a.kind, lastChunk, nowIso(), a.taskId, a.artifactId],
      );
      return existing.version + 1;
    },

    async listArtifactsOfTask(taskId) {
      const { rows } = await run<ArtifactSummary>(
        query,
        'conversation.listArtifactsOfTask',
        `SELECT a.artifact_id, a.name, a.kind, a.mime_type, a.version, a.last_chunk, a.updated_at,
                (SELECT count(*)::int FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id) AS chunks
         FROM artifacts a WHERE a.task_id = $1 ORDER BY a.artifact_id`,
        [taskId],
      );
      return rows;
    },

    async listTasks(q) {
      const where: string[] = [];
      const args: unknown[] = [];
      const param = (value: unknown) => (args.push(value), `$${args.length}`);
      if (q.agent) where.push(`agent_alias = ${param(q.agent)}`);
      if (q.contextId) where.push(`context_id = ${param(q.contextId)}`);
      if (q.state) where.push(`state = ${param(q.state)}`);
      const { rows } = await run<StoredTask>(
        query,
        'conversation.listTasks',
        `SELECT ${TASK_COLUMNS} FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY updated_at DESC, task_id LIMIT ${param(q.limit)} OFFSET ${param(q.offset)}`,
        args,
      );
      return rows.map(storedTaskOf);
    },

    async requestOf(messageId) {
      const { rows } = await run<{ task_id: string | null; context_id: string | null }>(
        query,
        'conversation.requestOf',
        `SELECT task_id, context_id FROM messages WHERE message_id = $1 AND direction = 'request'`,
        [messageId],
      );
      return rows[0];
    },

    async getContext(contextId) {
      const { rows } = await run<RawContext>(query, 'conversation.getContext', `SELECT * FROM contexts WHERE context_id = $1`, [contextId]);
      return rows[0] && fromRaw(rows[0]);
    },

    async getContextByName(name) {
      const { rows } = await run<RawContext>(query, 'conversation.getContextByName', `SELECT * FROM contexts WHERE name = $1`, [name]);
      return rows[0] && fromRaw(rows[0]);
    },

    async ensurePlaceholderTask(taskId, agentAlias, contextId = null) {
      await run(
        query,
        'conversation.ensurePlaceholderTask',
        `INSERT INTO tasks (task_id, agent_alias, context_id, state, source) VALUES ($1, $2, $3, 'unknown', 'placeholder') ON CONFLICT (task_id) DO NOTHING`,
        [taskId, agentAlias, contextId],
      );
    },

    /**
     * The JSON is read (its row locked) and written back with `status` replaced. Inside a transaction the lock holds
     * until it ends; outside one, the write applies only over the JSON it read, and reads again when another host
     * changed it in between (no status update lost).
     */
    async updateTaskStatus(t) {
      const what = 'conversation.updateTaskStatus';
      for (let attempt = 1; ; attempt++) {
        const { rows } = await run<{ remote_task_json: string | null }>(query, what, `SELECT remote_task_json FROM tasks WHERE task_id = $1 FOR UPDATE`, [t.taskId]);
        const row = rows[0];
        if (!row) return false;
        const json = withStatus(row.remote_task_json, t);
        const now = nowIso();
        const updated = await run(
          query,
          what,
          `UPDATE tasks SET state = $1, remote_state = $2, context_id = coalesce($3, context_id), protocol_version = coalesce($4, protocol_version),
             remote_task_json = $5, last_message_id = coalesce($6, last_message_id), completed_at = coalesce(completed_at, $7),
             updated_at = CASE WHEN state IS NOT DISTINCT FROM $1 AND remote_task_json IS NOT DISTINCT FROM $5 THEN updated_at ELSE $8 END
           WHERE task_id = $9 AND remote_task_json IS NOT DISTINCT FROM $10`,
          [t.state, t.remoteState, t.contextId, t.protocolVersion, json, t.lastMessageId, TERMINAL_STATES.includes(t.state) ? now : null, now, t.taskId, row.remote_task_json],
        );
        if (changed(updated) > 0) return true;
        if (attempt >= STATUS_TRIES) {
          throw storageError('conflict', `conversation.updateTaskStatus kept colliding with other missives updating task ${t.taskId} at the same time`, 'Run the command again.');
        }
      }
    },

    async getTaskJson(taskId) {
      const { rows } = await run<{ remote_task_json: string | null }>(query, 'conversation.getTaskJson', `SELECT remote_task_json FROM tasks WHERE task_id = $1`, [taskId]);
      return taskJsonOf(taskId, rows[0]?.remote_task_json ?? null);
    },

    async hasEventKey(dedupeKey) {
      const { rows } = await run(query, 'conversation.hasEventKey', `SELECT 1 FROM events WHERE dedupe_key = $1`, [dedupeKey]);
      return rows.length > 0;
    },

    async getArtifact(taskId, artifactId) {
      const { rows } = await run<Omit<StoredArtifact, 'content' | 'last_chunk'> & { content_json: string; last_chunk: number }>(
        query,
        'conversation.getArtifact',
        `SELECT artifact_id, task_id, context_id, name, mime_type, kind, version, last_chunk, content_json, updated_at FROM artifacts WHERE task_id = $1 AND artifact_id = $2`,
        [taskId, artifactId],
      );
      const row = rows[0];
      if (!row) return undefined;
      const { content_json, last_chunk, ...rest } = row;
      return storedArtifactOf(rest, last_chunk, content_json, await storedParts(taskId, artifactId, 'conversation.getArtifact'));
    },

    async latestTaskOf(agentAlias, contextId) {
      const { rows } = await run<StoredTask>(
        query,
        'conversation.latestTaskOf',
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE agent_alias = $1 AND context_id = $2 ORDER BY updated_at DESC, task_id ASC LIMIT 1`,
        [agentAlias, contextId],
      );
      return rows[0] && storedTaskOf(rows[0]);
    },

    async responsesOfTask(taskId) {
      const what = 'conversation.responsesOfTask';
      const [messages, updates] = await Promise.all([
        run<RawStoredMessage>(query, what, `SELECT message_id, direction, role, content_json, created_at FROM messages WHERE task_id = $1 AND direction <> 'request' ORDER BY created_at, rowid`, [
          taskId,
        ]),
        updatesOfTask(query, taskId, what),
      ]);
      return interleave<StoredMessage, StoredMessage>(messages.rows.map(storedFromRaw), updates.map(storedFromUpdate)).reverse();
    },

    async directResponsesOf(agentAlias, contextId) {
      const what = 'conversation.directResponsesOf';
      const [messages, updates] = await Promise.all([
        run<RawStoredMessage>(
          query,
          what,
          `SELECT message_id, direction, role, content_json, created_at FROM messages
           WHERE agent_alias = $1 AND context_id = $2 AND task_id IS NULL AND direction <> 'request' ORDER BY created_at, rowid`,
          [agentAlias, contextId],
        ),
        taskFreeUpdatesOf(query, agentAlias, contextId, what),
      ]);
      return interleave<StoredMessage, StoredMessage>(messages.rows.map(storedFromRaw), updates.map(storedFromUpdate)).reverse();
    },

    ...pushConfigMethods(query),
    ...collectiveRecordMethods(query),
  };
}
