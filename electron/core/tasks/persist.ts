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
