/**
 * The answer text of an A2A message or task, the one function every view prints it with (send, stream, task get, job
 * views). A message answers with its parts; a task with its status message, else with its artifacts, since many agents
 * carry their answer only there (the text pieces of one artifact as one text: shared/artifact-text.ts). Parts read as: text as-is, data as compact JSON, files summarised by name, media type
 * and size (bytes) or URL, never their content.
 */
import { partContent } from '../artifacts/parts-content.js';
import { joinArtifactParts } from '../../../shared/artifact-text.js';
import { call, type Steps } from '../store/steps.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `[file NAME, MEDIA TYPE, DETAIL]` from the part's own fields (partContent's media type is that of what it saves). */
function fileSummary(part: Json, detail: string): string {
  const name = typeof part.filename === 'string' && part.filename ? part.filename : 'unnamed';
  const mediaType = typeof part.mediaType === 'string' && part.mediaType ? part.mediaType : 'no media type';
  return `[file ${name}, ${mediaType}, ${detail}]`;
}

/** One part as answer text; null for a part with nothing to show (empty text). */
function partText(part: unknown): string | null {
  if (!isObject(part)) return null;
  if (typeof part.text === 'string') return part.text || null;
  if ('data' in part) return JSON.stringify(part.data);
  if (typeof part.raw === 'string') return fileSummary(part, `${partContent(part).bytes.length} B`);
  if (typeof part.url === 'string') return fileSummary(part, part.url);
  return null;
}

/** The answer text of a part list (A2A 1.0 JSON parts), one line group per part; null when nothing shows (an artifact's parts: joined first, see answerOfArtifacts). */
export function answerOfParts(parts: unknown): string | null {
  const texts = (Array.isArray(parts) ? parts : []).map(partText).filter((t): t is string => t !== null);
  return texts.length ? texts.join('\n') : null;
}

/** Each artifact's answer, in order, one per line: the text pieces of one artifact are one text (shared/artifact-text.ts). */
function answerOfArtifacts(artifacts: unknown[]): string | null {
  const texts = artifacts.map((a) => (isObject(a) ? answerOfParts(joinArtifactParts(a.parts)) : null)).filter((t): t is string => t !== null);
  return texts.length ? texts.join('\n') : null;
}

/** A task's answer: its status message, else its artifacts. */
export function answerOfTask(task: unknown): string | null {
  if (!isObject(task)) return null;
  const status = isObject(task.status) ? task.status : undefined;
  const message = isObject(status?.message) ? status.message : undefined;
  return answerOfParts(message?.parts) ?? answerOfArtifacts(Array.isArray(task.artifacts) ? task.artifacts : []);
}

/** The answer of a SendMessage result (`{ message }` or `{ task }`, A2A 1.0 JSON). */
export function answerOfResponse(response: unknown): string | null {
  if (!isObject(response)) return null;
  if (isObject(response.message)) return answerOfParts(response.message.parts);
  return answerOfTask(response.task);
}

/**
 * A journaled task's answer: its last known status message, else its stored artifacts (as streamed, chunks joined).
 * Reads only: run it with `Storage.read` on either store.
 */
export function* storedTaskAnswer(taskId: string): Steps<string | null> {
  const fromStatus = answerOfTask({ status: (yield* call('getTaskJson', taskId))?.status });
  if (fromStatus) return fromStatus;
  const artifacts: unknown[] = [];
  for (const a of yield* call('listArtifactsOfTask', taskId)) {
    const stored = yield* call('getArtifact', taskId, a.artifact_id);
    if (stored) artifacts.push(stored.content);
  }
  return answerOfArtifacts(artifacts);
}
