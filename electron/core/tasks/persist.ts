/** Persists an A2A Task as returned by any operation: the task row (raw JSON, mapped state) and versioned artifacts. */
import { Task } from '@a2a-js/sdk';
import type { ArtifactKind, TaskStateName } from '../store/rows/conversation.js';
import { call, type Steps } from '../store/steps.js';
import { localTaskState } from './task-state.js';
import { scrubSecrets } from '../security/redact.js';

export interface WireTask {
  id: string;
  contextId?: string;
  status?: { state?: string; message?: Record<string, unknown>; timestamp?: string };
  artifacts?: Array<Record<string, unknown>>;
  history?: unknown[];
}

export interface PersistedTask {
  task_id: string;
  context_id: string | null;
  state: TaskStateName;
  remote_state: string | null;
  changed: boolean;
  artifacts: Array<{ artifact_id: string; version: number }>;
}

export function artifactKind(parts: Array<Record<string, unknown>>): ArtifactKind {
  const kinds = new Set(parts.map((p) => ('text' in p ? 'text' : 'data' in p ? 'json' : 'url' in p ? 'file' : 'raw' in p ? 'bytes' : 'unknown')));
  if (kinds.size === 0) return 'unknown';
  return kinds.size === 1 ? ([...kinds][0] as 'text') : 'mixed';
}

/** Decodes through the SDK codec (the type boundary) and keeps the canonical JSON. */
export const canonicalTask = (raw: unknown): WireTask => Task.toJSON(Task.fromJSON(raw as object)) as WireTask;

export interface PersistOptions {
  protocolVersion: string | null;
  metadata?: Record<string, unknown>;
  lastMessageId?: string | null;
  fallbackContextId?: string | null;
  secrets?: readonly string[];
  /**
   * Record the task on our requests its history holds that have none yet (a send whose answer was never recorded: an
   * unconfirmed job's), `always` or only when the task is new here (a poll of a known task reads nothing more).
   */
  linkRequests?: 'always' | 'when-new';
}

/** The writes that persist a task (its context, its row, its artifacts), on either engine (store/steps.ts). */
export function* persistTaskSteps(alias: string, task: WireTask, options: PersistOptions): Steps<PersistedTask> {
  if (options.secrets?.length) task = scrubSecrets(task, options.secrets);
  const before = yield* call('getTask', task.id);
  const contextId = task.contextId || options.fallbackContextId || null;
  if (contextId) yield* call('ensureContext', contextId, alias);
  const state = localTaskState(task.status?.state);
  yield* call('upsertTask', {
    taskId: task.id,
    agentAlias: alias,
    contextId,
    state,
    remoteState: task.status?.state ?? null,
    protocolVersion: options.protocolVersion,
    remoteJson: task,
    lastMessageId: options.lastMessageId ?? null,
    metadata: options.metadata,
  });
  if (options.linkRequests === 'always' || (options.linkRequests === 'when-new' && !before)) yield* linkRequestSteps(task, contextId);
  const artifacts: PersistedTask['artifacts'] = [];
  for (const a of task.artifacts ?? []) {
    const parts = (a.parts as Array<Record<string, unknown>> | undefined) ?? [];
    const version = yield* call('writeArtifact', {
      artifactId: String(a.artifactId),
      taskId: task.id,
      contextId,
      name: (a.name as string | undefined) ?? null,
      mimeType: (parts[0]?.mediaType as string | undefined) ?? null,
      kind: artifactKind(parts),
      content: a,
    });
    artifacts.push({ artifact_id: String(a.artifactId), version });
  }
  return {
    task_id: task.id,
    context_id: contextId,
    state,
    remote_state: task.status?.state ?? null,
    changed: before?.state !== state || before?.remote_state !== (task.status?.state ?? null),
    artifacts,
  };
}

/** The user messages of a task's history (at most this many looked at: the request that opened it comes first). */
const MAX_LINKED = 8;

/** Links each request row of ours that the task's history names, and that has no task yet, to the task. */
function* linkRequestSteps(task: WireTask, contextId: string | null): Steps<void> {
  const ids = (task.history ?? [])
    .map((m) => m as { role?: unknown; messageId?: unknown })
    .filter((m) => (m.role === 'ROLE_USER' || m.role === 'user') && typeof m.messageId === 'string' && m.messageId)
    .map((m) => m.messageId as string)
    .slice(0, MAX_LINKED);
  for (const messageId of ids) {
    const request = yield* call('requestOf', messageId);
    if (request && !request.task_id) yield* call('linkMessageToTask', messageId, task.id, contextId);
  }
}
