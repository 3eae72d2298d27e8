/**
 * An agent's answer as Compose renders it, built from a send's result or assembled from a stream's events as they
 * arrive: the answer's message (the direct message, or the task's latest status message), the status messages in the
 * order they came, and each artifact with its chunks put together (an appended chunk extends the artifact, a chunk
 * that does not append replaces it). Pure data: no React, no IPC.
 */
import { jsonAt, stringOf } from './common';
import type { ChannelOutput, EventPayload } from '../../../shared/ipc/contract';
import { isInterruptedTaskState } from '../../../shared/task-states';
import { appendArtifactParts, joinArtifactParts } from '../../../shared/artifact-text';

export type Part = Record<string, unknown>;

export interface AnswerArtifact {
  id: string;
  name: string | null;
  parts: Part[];
  version: number;
  /** The last chunk arrived (a send's artifacts are always complete). */
  complete: boolean;
}

export interface StatusNote {
  state: string | null;
  parts: Part[];
}

export interface AnswerModel {
  /** The parts of the answer's message: the direct message, else the latest status message. */
  parts: Part[];
  /** Every status (or streamed) message in arrival order; a send has at most one. */
  notes: StatusNote[];
  artifacts: AnswerArtifact[];
  /** The task's local state (e.g. `input_required`), null for a direct message. */
  state: string | null;
  taskId: string | null;
  contextId: string | null;
}

/** One `messages.stream.event`, as Compose keeps it for the timeline and the live answer. */
export interface StreamEvent {
  sequence: number;
  variant: string;
  state: string | null;
  text: string | null;
  task_id: string | null;
  context_id: string | null;
  artifact: { artifact_id: string; version: number; append: boolean; last_chunk: boolean } | null;
  artifact_name: string | null;
  parts: Part[];
}

const isPart = (p: unknown): p is Part => typeof p === 'object' && p !== null && !Array.isArray(p);
export const partsOf = (value: unknown): Part[] => (Array.isArray(value) ? value.filter(isPart) : []);

export function streamEvent(e: EventPayload<'messages.stream.event'>): StreamEvent {
  const artifactId = stringOf(jsonAt(e.artifact, 'artifact_id'));
  const version = jsonAt(e.artifact, 'version');
  return {
    sequence: e.sequence,
    variant: e.variant,
    state: stringOf(e.state),
    text: stringOf(e.text),
    task_id: stringOf(e.task_id),
    context_id: stringOf(e.context_id),
    artifact:
      artifactId !== null && typeof version === 'number'
        ? { artifact_id: artifactId, version, append: jsonAt(e.artifact, 'append') === true, last_chunk: jsonAt(e.artifact, 'last_chunk') === true }
        : null,
    artifact_name: e.artifact_name ?? null,
    parts: e.parts ?? [],
  };
}

type SendResult = ChannelOutput<'messages.send'>;

/** A send's answer: its direct message, or its task's status message and artifacts. */
export function answerOfSend(result: SendResult): AnswerModel {
  const { response } = result;
  const task = jsonAt(response, 'task');
  const message = jsonAt(response, 'message');
  const statusParts = partsOf(jsonAt(task, 'status', 'message', 'parts'));
  const parts = message !== undefined ? partsOf(jsonAt(message, 'parts')) : statusParts;
  const artifacts = (Array.isArray(jsonAt(task, 'artifacts')) ? (jsonAt(task, 'artifacts') as unknown[]) : []).map((a, i) => ({
    id: stringOf(jsonAt(a, 'artifactId')) ?? `artifact-${i + 1}`,
    name: stringOf(jsonAt(a, 'name')),
    // The agent's SDK hands back streamed pieces as consecutive text parts: one text, as in a stream.
    parts: joinArtifactParts(partsOf(jsonAt(a, 'parts'))),
    version: result.task?.artifacts.find((s) => s.artifact_id === stringOf(jsonAt(a, 'artifactId')))?.version ?? 1,
    complete: true,
  }));
  const messageContext = stringOf(jsonAt(message, 'contextId'));
  return {
    parts,
    notes: statusParts.length ? [{ state: result.task?.state ?? null, parts: statusParts }] : [],
    artifacts,
    state: result.task?.state ?? null,
    taskId: result.task?.task_id ?? null,
    contextId: result.task?.context_id ?? messageContext ?? result.request.context_id,
  };
}

/** A stream's answer so far, from its events in arrival order. */
export function assembleStream(events: StreamEvent[], requestContext: string | null = null): AnswerModel {
  const artifacts = new Map<string, AnswerArtifact>();
  const notes: StatusNote[] = [];
  let parts: Part[] = [];
  let state: string | null = null;
  let taskId: string | null = null;
  let contextId: string | null = requestContext;
  for (const e of events) {
    taskId ??= e.task_id;
    contextId = e.context_id ?? contextId;
    if (e.state) state = e.state;
    if (e.variant === 'artifactUpdate' && e.artifact) {
      const { artifact_id: id, version, append, last_chunk: complete } = e.artifact;
      const before = artifacts.get(id);
      const name = e.artifact_name ?? before?.name ?? null;
      // An appended chunk's text pieces continue the artifact's text (shared/artifact-text.ts); another chunk replaces it.
      const joined = append && before ? appendArtifactParts(before.parts, e.parts) : joinArtifactParts(e.parts);
      artifacts.set(id, { id, name, version, complete, parts: joined });
    } else if (e.parts.length) {
      parts = e.parts;
      notes.push({ state: e.variant === 'message' ? null : e.state, parts: e.parts });
    }
  }
  return { parts, notes, artifacts: [...artifacts.values()], state, taskId, contextId };
}

/** The texts of the parts, joined by newlines. */
export const textOfParts = (parts: Part[]) =>
  parts
    .map((p) => p.text)
    .filter((t): t is string => typeof t === 'string')
    .join('\n');

/** Task states in which the agent waits for the user (shared/task-states.ts): the next message should reply in the same task. */
export const isAwaiting = isInterruptedTaskState;
