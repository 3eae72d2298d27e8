/**
 * An agent's answer as an MCP tool result, the one shape send_message, get_task and wait_task answer with: the agent's
 * reply text first, then each artifact (parts.ts: text, embedded file, or a resource link when large), then a note
 * saying what to do next when the task is not done (wait for it, reply to the agent's question, authenticate). The
 * structured content carries the ids a client continues with: agent, task_id, context_id, state, message ids.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../handle.js';
import type { StoredTask, TaskStateName } from '../store/rows/conversation.js';
import { answerOfParts, answerOfTask } from '../tasks/answer-text.js';
import { artifactContent, type ContentBlock } from './parts.js';

/** A task as the journal holds it now: its row, the agent's last status message, its artifacts (parts joined). */
export interface TaskSnapshot {
  task: StoredTask;
  /** The text of the task's last status message (the agent's question, when it asks one), or null. */
  reply: string | null;
  artifacts: Array<{ artifact_id: string; name: string | null; version: number; parts: unknown }>;
}

export async function readTask(core: Core, taskId: string): Promise<TaskSnapshot | null> {
  const { conversation } = await core.storage();
  const task = await conversation.getTask(taskId);
  if (!task) return null;
  const json = await conversation.getTaskJson(taskId);
  const artifacts: TaskSnapshot['artifacts'] = [];
  for (const summary of await conversation.listArtifactsOfTask(taskId)) {
    const stored = await conversation.getArtifact(taskId, summary.artifact_id);
    if (stored) artifacts.push({ artifact_id: stored.artifact_id, name: stored.name, version: stored.version, parts: stored.content.parts });
  }
  // Only the status message: the artifacts are shown as artifacts, not a second time as the reply.
  return { task, reply: answerOfTask({ status: json?.status }), artifacts };
}

/** The ids and facts of an answer, as structured content (and what the notes quote). */
export interface AnswerFacts {
  agent: string;
  task_id: string | null;
  context_id: string | null;
  /** The task's state, or `message` for a direct reply (no task). */
  state: TaskStateName | 'message';
  request_message_id?: string | null;
  response_message_id?: string | null;
  reply: string | null;
  artifacts?: Array<{ artifact_id: string; name: string | null; version: number }>;
  /** The tool and arguments to call next (wait_task, or send_message to reply), when the task is not done. */
  next?: { tool: string; arguments: Record<string, unknown> } | null;
  [key: string]: unknown;
}

export const RUNNING_STATES: ReadonlySet<string> = new Set(['submitted', 'working', 'unknown']);

/** The facts of a task snapshot. */
export const taskFacts = (snapshot: TaskSnapshot): AnswerFacts => ({
  agent: snapshot.task.agent_alias,
  task_id: snapshot.task.task_id,
  context_id: snapshot.task.context_id,
  state: snapshot.task.state,
  reply: snapshot.reply,
  artifacts: snapshot.artifacts.map(({ artifact_id, name, version }) => ({ artifact_id, name, version })),
});

/** What to call next for a task in `state`: wait for it, or reply to it; null when it is done. */
export function nextCall(facts: Pick<AnswerFacts, 'agent' | 'task_id' | 'context_id' | 'state'>): AnswerFacts['next'] {
  if (!facts.task_id) return null;
  if (RUNNING_STATES.has(facts.state)) return { tool: 'wait_task', arguments: { task_id: facts.task_id } };
  if (facts.state === 'input_required' || facts.state === 'auth_required')
    return {
      tool: 'send_message',
      arguments: { agent: facts.agent, task_id: facts.task_id, ...(facts.context_id ? { context_id: facts.context_id } : {}), text: '<your reply>' },
    };
  return null;
}

const call = (next: NonNullable<AnswerFacts['next']>): string => `${next.tool} ${JSON.stringify(next.arguments)}`;

/** The note of a task that is not simply done: what it waits for and the exact call that goes on. */
export function stateNote(facts: AnswerFacts, authDetail?: string): string | null {
  const next = nextCall(facts);
  const id = facts.task_id;
  switch (facts.state) {
    case 'submitted':
    case 'working':
    case 'unknown':
      return `Task ${id} of ${facts.agent} is still ${facts.state}. Call ${call(next!)} to wait for its answer (or get_task to look at it now).`;
    case 'input_required':
      return [
        `${facts.agent} needs more input to go on with task ${id}${facts.reply ? `; it asks: ${facts.reply}` : '.'}`,
        `Reply with ${call(next!)}: the same task_id and context_id continue the same task.`,
      ].join('\n');
    case 'auth_required':
      return [
        `${facts.agent} needs authentication before it goes on with task ${id}${facts.reply ? `; it says: ${facts.reply}` : '.'}`,
        ...(authDetail ? [authDetail] : []),
        `Once authenticated, reply with ${call(next!)}.`,
      ].join('\n');
    case 'failed':
    case 'rejected':
      return `Task ${id} of ${facts.agent} ended ${facts.state}.`;
    case 'cancelled':
      return `Task ${id} of ${facts.agent} was cancelled.`;
    default:
      return null;
  }
}

/**
 * A tool result: the reply, the artifacts, the notes. `failedIsError`: a task that failed or was rejected makes an
 * error result (send_message's message did not get done; get_task merely reports it).
 */
export function answerResult(facts: AnswerFacts, artifacts: TaskSnapshot['artifacts'], notes: Array<string | null>, failedIsError = true): CallToolResult {
  const content: ContentBlock[] = [];
  if (facts.reply) content.push({ type: 'text', text: facts.reply });
  for (const artifact of artifacts)
    content.push(...artifactContent(facts.task_id ?? 'message', { artifactId: artifact.artifact_id, name: artifact.name ?? undefined, parts: artifact.parts }));
  if (content.length === 0) content.push({ type: 'text', text: `(the answer of ${facts.agent} has no text, data or file)` });
  for (const note of notes) if (note) content.push({ type: 'text', text: note });
  const structured = { ...facts, next: facts.next === undefined ? nextCall(facts) : facts.next };
  return { content, structuredContent: structured, ...(failedIsError && (facts.state === 'failed' || facts.state === 'rejected') ? { isError: true } : {}) };
}

/** A direct message reply (no task): its text, and the ids to go on in its context. */
export function messageFacts(agent: string, message: Record<string, unknown> | null, text: string | null, contextId: string | null): AnswerFacts {
  const own = typeof message?.contextId === 'string' && message.contextId ? message.contextId : null;
  return {
    agent,
    task_id: null,
    context_id: own ?? contextId,
    state: 'message',
    reply: (message ? answerOfParts(message.parts) : null) ?? text,
    artifacts: [],
  };
}
