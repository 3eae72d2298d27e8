/**
 * resources/read of the `missive://` URIs, from the store alone (never the network): an agent's cached card, a
 * context's thread, a task's state and status message, an artifact whole. server.ts redacts and scrubs what this
 * returns; file bytes appear only in an artifact's own resource (a blob), never in a card, thread or task.
 */
import { ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpError } from './mcp-error.js';
import type { Core } from '../handle.js';
import { contextThread } from '../contexts/thread.js';
import { textOfParts } from '../a2a/part-text.js';
import { isTerminalTaskState } from '../../../shared/task-states.js';
import { artifactResourceContents } from './parts.js';
import { artifactUri, notFound, parseMissiveUri, quoted } from './resource-uris.js';

/** The most thread items (messages and artifacts) one read returns: the newest ones; `omitted_items` counts the rest. */
export const MAX_THREAD_ITEMS = 500;
/** The largest artifact (base64 and text, in bytes) one read returns; a larger one is saved with the CLI instead. */
export const MAX_ARTIFACT_BYTES = 32 * 1024 * 1024;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const json = (uri: string, value: unknown): ReadResourceResult => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
});

/** A status message's parts with file bytes replaced by their size (a task resource never carries a file). */
function withoutBytes(parts: unknown): unknown[] {
  return (Array.isArray(parts) ? parts : []).map((part: unknown) => {
    if (!isObject(part) || typeof part.raw !== 'string') return part;
    const { raw, ...rest } = part;
    return { ...rest, raw_bytes: Math.floor((raw.length * 3) / 4) };
  });
}

async function readCard(core: Core, uri: string, alias: string): Promise<ReadResourceResult> {
  const row = await (await core.storage()).agents.get(alias);
  if (!row) throw notFound(uri, `no agent named ${quoted(alias)} is registered (list_agents lists them)`);
  if (!row.card) throw notFound(uri, `agent ${alias}'s card was never fetched: inspect it first (inspect_agent, or missive agent inspect ${alias})`);
  return json(uri, row.card.json);
}

async function readThread(core: Core, uri: string, ref: string): Promise<ReadResourceResult> {
  const { conversation } = await core.storage();
  if (!(await conversation.getContext(ref)) && !(await conversation.getContextByName(ref)))
    throw notFound(uri, `no context with id or name ${quoted(ref)} is in the local journal`);
  const { context, items } = await contextThread(core, ref);
  const omitted = Math.max(0, items.length - MAX_THREAD_ITEMS);
  return json(uri, { context, items: items.slice(omitted), ...(omitted ? { omitted_items: omitted } : {}) });
}

/** A task as its resource shows it: the journal's row, its last status (message parts without file bytes), its artifacts' URIs. */
export async function taskDocument(core: Core, taskId: string) {
  const { conversation } = await core.storage();
  const task = await conversation.getTask(taskId);
  if (!task) return null;
  const status = (await conversation.getTaskJson(taskId))?.status;
  const message = isObject(status) && isObject(status.message) ? status.message : null;
  const artifacts = await conversation.listArtifactsOfTask(taskId);
  return {
    task_id: task.task_id,
    agent_alias: task.agent_alias,
    context_id: task.context_id,
    state: task.state,
    final: isTerminalTaskState(task.state),
    remote_state: task.remote_state,
    updated_at: task.updated_at,
    status_message: message ? { role: message.role ?? null, text: textOfParts(message.parts), parts: withoutBytes(message.parts) } : null,
    artifacts: artifacts.map((a) => ({
      uri: artifactUri(taskId, a.artifact_id),
      artifact_id: a.artifact_id,
      name: a.name,
      mime_type: a.mime_type,
      version: a.version,
      last_chunk: Boolean(a.last_chunk),
      chunks: a.chunks,
      updated_at: a.updated_at,
    })),
  };
}

async function readTask(core: Core, uri: string, taskId: string): Promise<ReadResourceResult> {
  const document = await taskDocument(core, taskId);
  if (!document) throw notFound(uri, `task ${quoted(taskId)} is not in the local journal (get_task can fetch it from its agent)`);
  return json(uri, document);
}

async function readArtifact(core: Core, uri: string, taskId: string, artifactId: string): Promise<ReadResourceResult> {
  const { conversation } = await core.storage();
  if (!(await conversation.getTask(taskId))) throw notFound(uri, `task ${quoted(taskId)} is not in the local journal`);
  const artifact = await conversation.getArtifact(taskId, artifactId);
  if (!artifact)
    throw notFound(uri, `task ${taskId} has no artifact ${quoted(artifactId)} (read missive://task/${encodeURIComponent(taskId)} for its artifacts)`);
  const contents = artifactResourceContents(artifactUri(taskId, artifactId), artifact.content.parts);
  const bytes = contents.reduce((n, c) => n + (c.blob?.length ?? 0) + (c.text?.length ?? 0), 0);
  if (bytes > MAX_ARTIFACT_BYTES)
    throw mcpError(
      ErrorCode.InvalidRequest,
      `${quoted(uri)} is ${bytes} bytes, over the ${MAX_ARTIFACT_BYTES} one read returns; save it with: missive task artifact save ${taskId} ${artifactId} <file>`,
      { uri },
    );
  // Each entry has its text or its blob (artifactResourceContents).
  return { contents: contents as ReadResourceResult['contents'] };
}

/** resources/read: the resource a `missive://` URI names; InvalidParams for another URI, -32002 when it names nothing. */
export async function readResource(core: Core, uri: string): Promise<ReadResourceResult> {
  const target = parseMissiveUri(uri);
  switch (target.kind) {
    case 'card':
      return readCard(core, uri, target.alias);
    case 'thread':
      return readThread(core, uri, target.context);
    case 'task':
      return readTask(core, uri, target.taskId);
    case 'artifact':
      return readArtifact(core, uri, target.taskId, target.artifactId);
  }
}
