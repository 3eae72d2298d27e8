/**
 * Contexts, messages, tasks and artifacts on PostgreSQL: the statements both engines share (statements/conversation.ts,
 * statements/contexts.ts) and PostgreSQL's own, with the row types and pure helpers of rows/conversation.ts; push configs (push-configs.ts) and what
 * replay reads back (collective-records.ts) are their own modules.
 *
 * Two hosts may write one task's artifact at once (two gateways, a receiver pool): `writeArtifact` locks the artifact's
 * row as it reads its head, so inside transactions the writes serialize and each one bumps the version the other left
 * (no lost chunk); `insertMessage` takes a lock on the task for the transaction, so its messages' ordinals never meet.
 * Outside a transaction each statement commits on its own and holds nothing.
 */
import { nowIso } from '../../rows/clock.js';
import { fromRaw, type RawContext } from '../../rows/contexts.js';
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
  type RawStoredMessage,
  type StoredArtifact,
  type StoredMessage,
  type StoredTask,
  type TaskStatusWrite,
} from '../../rows/conversation.js';
import { chunkParts } from '../../rows/history.js';
import { interleave } from '../../rows/update-rows.js';
import { CONTEXTS } from '../../statements/contexts.js';
import { EVENTS } from '../../statements/events.js';
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
} from '../../statements/conversation.js';
import type { ConversationRepository } from '../../storage.js';
import { isMissiveError, storageError } from '../../../../../shared/errors.js';
import { storedJson, storedRow } from '../../stored-json.js';
import { changed, run, type Query } from './query.js';
import { taskFreeUpdatesOf, updatesOfTask } from './update-rows.js';
import { pushConfigMethods } from './push-configs.js';
import { collectiveRecordMethods } from './collective-records.js';

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
  async function lockedHead(taskId: string, artifactId: string, what = 'conversation.writeArtifact'): Promise<ArtifactHead | undefined> {
    const { rows } = await run<NonNullable<Parameters<typeof headOf>[0]>>(query, what, CONVERSATION.artifactHead, [taskId, artifactId]);
    return headOf(rows[0]);
  }

  /** The stored parts, each chunk decoded (history.ts's chunkParts), concatenated in chunk order. */
  async function storedParts(taskId: string, artifactId: string, what: string): Promise<unknown[]> {
    const { rows } = await run<{ artifact_id: string; chunk_index: number; parts_json: string }>(query, what, CONVERSATION.chunksOf, [taskId, artifactId]);
    return rows.flatMap((r) => chunkParts(taskId, r));
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
    run(query, 'conversation.writeArtifact', CONVERSATION.addChunk, [a.taskId, a.artifactId, index, partsJson]);

  return {
    async ensureContext(contextId, agentAlias, metadata = {}) {
      await run(query, 'conversation.ensureContext', CONTEXTS.ensure, [contextId, agentAlias, JSON.stringify(metadata)]);
    },

    async insertMessage(m) {
      // A task's messages are numbered one after another: two hosts adding one to the same task take turns (the lock
      // is the transaction's; outside one, each statement commits on its own and the numbers may meet).
      if (m.taskId)
        await run(query, 'conversation.insertMessage', `SELECT pg_advisory_xact_lock(hashtextextended('missive.task_messages:' || $1, 0))`, [m.taskId]);
      await run(query, 'conversation.insertMessage', CONVERSATION.insertMessage, insertMessageParams(m));
    },

    async linkMessageToContext(messageId, contextId) {
      await run(query, 'conversation.linkMessageToContext', CONVERSATION.linkToContext, [contextId, messageId]);
    },

    async linkMessageToTask(messageId, taskId, contextId) {
      await run(query, 'conversation.linkMessageToTask', CONVERSATION.linkToTask, [taskId, contextId, messageId]);
    },

    async getTask(taskId) {
      const { rows } = await run<StoredTask>(query, 'conversation.getTask', CONVERSATION.getTask, [taskId]);
      return rows[0] && storedTaskOf(rows[0]);
    },

    async upsertTask(t) {
      await run(query, 'conversation.upsertTask', CONVERSATION.upsertTask, upsertTaskParams(t, nowIso()));
    },

    async writeArtifact(a) {
      const { header, parts } = splitArtifact(a.content);
      const headerJson = JSON.stringify(header);
      const partsJson = JSON.stringify(parts);
      const lastChunk = a.lastChunk === undefined ? null : a.lastChunk ? 1 : 0;
      let existing = await lockedHead(a.taskId, a.artifactId);
      if (!existing) {
        const inserted = await run(query, 'conversation.writeArtifact', CONVERSATION.insertArtifact, insertArtifactParams(a, headerJson, lastChunk));
        if (changed(inserted) > 0) {
          await addChunk(a, 0, partsJson);
          return 1;
        }
        // Another host created it since the read (and has committed): this write goes on from its row.
        existing = await lockedHead(a.taskId, a.artifactId);
        if (!existing) {
          throw storageError(
            'conflict',
            `conversation.writeArtifact collided with another missive removing the same artifact at the same time`,
            'Run the command again.',
          );
        }
      }
      if (a.mode === 'append') {
        await run(query, 'conversation.writeArtifact', CONVERSATION.appendChunk, appendChunkParams(a.taskId, a.artifactId, partsJson, 1));
        const head = appendedHead(existing, a);
        await run(query, 'conversation.writeArtifact', CONVERSATION.saveHead, saveHeadParams(a.taskId, a.artifactId, head, nowIso()));
        return head.version;
      }
      if (existing.contentJson === headerJson && (await partsText(a.taskId, a.artifactId)) === partsJson) {
        if (lastChunk !== null) {
          await run(query, 'conversation.writeArtifact', CONVERSATION.setLastChunk, [lastChunk, a.taskId, a.artifactId]);
        }
        return existing.version;
      }
      await run(query, 'conversation.writeArtifact', CONVERSATION.deleteChunks, [a.taskId, a.artifactId]);
      await addChunk(a, 0, partsJson);
      await run(query, 'conversation.writeArtifact', CONVERSATION.replaceArtifact, replaceArtifactParams(a, headerJson, lastChunk, nowIso()));
      return existing.version + 1;
    },

    artifactHead: (taskId, artifactId) => lockedHead(taskId, artifactId, 'conversation.artifactHead'),

    async listArtifactsOfTask(taskId) {
      return (await run<ArtifactSummary>(query, 'conversation.listArtifactsOfTask', CONVERSATION.listArtifactsOfTask, [taskId])).rows;
    },

    async listTasks(q) {
      const { statement, params } = listTasksStatement(q);
      return (await run<StoredTask>(query, 'conversation.listTasks', statement, params)).rows.map(storedTaskOf);
    },

    async requestOf(messageId) {
      const { rows } = await run<{ task_id: string | null; context_id: string | null }>(query, 'conversation.requestOf', CONVERSATION.requestOf, [messageId]);
      return rows[0];
    },

    async getContext(contextId) {
      const { rows } = await run<RawContext>(query, 'conversation.getContext', CONTEXTS.get, [contextId]);
      return rows[0] && fromRaw(rows[0]);
    },

    async getContextByName(name) {
      const { rows } = await run<RawContext>(query, 'conversation.getContextByName', CONTEXTS.getByName, [name]);
      return rows[0] && fromRaw(rows[0]);
    },

    async ensurePlaceholderTask(taskId, agentAlias, contextId = null) {
      await run(query, 'conversation.ensurePlaceholderTask', CONVERSATION.ensurePlaceholderTask, [taskId, agentAlias, contextId]);
    },

    /**
     * The JSON is read (its row locked) and written back with `status` replaced. Inside a transaction the lock holds
     * until it ends; outside one, the write applies only over the JSON it read, and reads again when another host
     * changed it in between (no status update lost).
     */
    async updateTaskStatus(t) {
      const what = 'conversation.updateTaskStatus';
      for (let attempt = 1; ; attempt++) {
        const { rows } = await run<{ remote_task_json: string | null }>(query, what, `SELECT remote_task_json FROM tasks WHERE task_id = $1 FOR UPDATE`, [
          t.taskId,
        ]);
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
          [
            t.state,
            t.remoteState,
            t.contextId,
            t.protocolVersion,
            json,
            t.lastMessageId,
            TERMINAL_STATES.includes(t.state) ? now : null,
            now,
            t.taskId,
            row.remote_task_json,
          ],
        );
        if (changed(updated) > 0) return true;
        if (attempt >= STATUS_TRIES) {
          throw storageError(
            'conflict',
            `conversation.updateTaskStatus kept colliding with other missives updating task ${t.taskId} at the same time`,
            'Run the command again.',
          );
        }
      }
    },

    async getTaskJson(taskId) {
      const { rows } = await run<{ remote_task_json: string | null }>(query, 'conversation.getTaskJson', CONVERSATION.taskJson, [taskId]);
      return taskJsonOf(taskId, rows[0]?.remote_task_json ?? null);
    },

    async hasEventKey(dedupeKey) {
      const { rows } = await run(query, 'conversation.hasEventKey', EVENTS.hasKey, [dedupeKey]);
      return rows.length > 0;
    },

    async getArtifact(taskId, artifactId) {
      const { rows } = await run<Omit<StoredArtifact, 'content' | 'last_chunk'> & { content_json: string; last_chunk: number }>(
        query,
        'conversation.getArtifact',
        CONVERSATION.getArtifact,
        [taskId, artifactId],
      );
      const row = rows[0];
      if (!row) return undefined;
      const { content_json, last_chunk, ...rest } = row;
      return storedArtifactOf(rest, last_chunk, content_json, await storedParts(taskId, artifactId, 'conversation.getArtifact'));
    },

    async latestTaskOf(agentAlias, contextId) {
      const { rows } = await run<StoredTask>(query, 'conversation.latestTaskOf', CONVERSATION.latestTaskOf, [agentAlias, contextId]);
      return rows[0] && storedTaskOf(rows[0]);
    },

    async responsesOfTask(taskId) {
      const what = 'conversation.responsesOfTask';
      const [messages, updates] = await Promise.all([
        run<RawStoredMessage>(query, what, CONVERSATION.responsesOfTask, [taskId]),
        updatesOfTask(query, taskId, what),
      ]);
      return interleave<StoredMessage, StoredMessage>(messages.rows.map(storedFromRaw), updates.map(storedFromUpdate)).reverse();
    },

    async directResponsesOf(agentAlias, contextId) {
      const what = 'conversation.directResponsesOf';
      const [messages, updates] = await Promise.all([
        run<RawStoredMessage>(query, what, CONVERSATION.directResponsesOf, [agentAlias, contextId]),
        taskFreeUpdatesOf(query, agentAlias, contextId, what),
      ]);
      return interleave<StoredMessage, StoredMessage>(messages.rows.map(storedFromRaw), updates.map(storedFromUpdate)).reverse();
    },

    ...pushConfigMethods(query),
    ...collectiveRecordMethods(query),
  };
}
