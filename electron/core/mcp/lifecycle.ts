/**
 * The A2A lifecycle of one send_message in MCP terms:
 *   - the message goes by the core's streaming send when the agent's card advertises streaming (each event becomes a
 *     progress notification carrying the text so far, all sent before the result), else by its unary send;
 *   - a task still running comes back with its id and a wait_task hint, unless the call runs as an MCP task: then it
 *     waits (polling GetTask) until the A2A task is decided, so the MCP task ends with it;
 *   - `input_required` becomes an elicitation (one string field, `reply`) when the client can ask its user: the
 *     answer goes to the same A2A task and the call goes on, at most MAX_ELICITATIONS times; otherwise, or when the
 *     user declines, the result says what the agent asks and the exact send_message that replies;
 *   - `auth_required` is reported with the URLs the agent named and the schemes its card requires.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { loadCard } from '../agents/discovery.js';
import { capabilityView } from '../a2a/capabilities.js';
import { sendMessage, type SendInput } from '../messaging/send.js';
import { streamMessage, type StreamEventView } from '../messaging/stream.js';
import type { StreamRecord } from '../a2a/stream-response.js';
import type { ToolContext } from './tool-spec.js';
import { answerResult, messageFacts, readTask, RUNNING_STATES, stateNote, taskFacts, type AnswerFacts, type TaskSnapshot } from './answer-content.js';
import { authDetail } from './auth-required.js';
import { waitDecided } from './task-wait.js';

/** How many times one call asks the user for input before it hands the question back in its result. */
export const MAX_ELICITATIONS = 5;
/** The longest an MCP task waits for its A2A task (the client may cancel it sooner). */
export const MCP_TASK_WAIT_MS = 60 * 60_000;
/** The most characters of text so far one progress notification carries (its tail). */
const MAX_PROGRESS_CHARS = 4000;

export type Converse = Omit<SendInput, 'cwd' | 'wire' | 'messageId' | 'deadline'>;

/** What one send left: a task (read back from the journal) or a direct message. */
interface Delivered {
  alias: string;
  requestMessageId: string;
  responseMessageId: string | null;
  taskId: string | null;
  contextId: string | null;
  message: Record<string, unknown> | null;
  text: string | null;
}

/** The text so far of a stream: the last status or message text, and each artifact's text as it grew. */
function progressText() {
  let status = '';
  const artifacts = new Map<string, string>();
  return (event: StreamEventView): string => {
    if (event.artifact) {
      const before = event.artifact.append ? (artifacts.get(event.artifact.artifact_id) ?? '') : '';
      artifacts.set(event.artifact.artifact_id, before + (event.text ?? ''));
    } else if (event.text) status = event.text;
    const text = [status, ...artifacts.values()].filter(Boolean).join('\n');
    return text.length > MAX_PROGRESS_CHARS ? `…${text.slice(-MAX_PROGRESS_CHARS)}` : text;
  };
}

async function deliver(ctx: ToolContext, input: Converse): Promise<Delivered> {
  const { core } = ctx;
  const streams = !input.returnImmediately && capabilityView((await loadCard(core, input.agent)).card).streaming;
  if (!streams) {
    const sent = await sendMessage(core, { ...input, cwd: ctx.cwd });
    const message = sent.task ? null : (((sent.response as { message?: Record<string, unknown> }).message ?? null) as Record<string, unknown> | null);
    return {
      alias: sent.agent,
      requestMessageId: sent.request.message_id,
      responseMessageId: sent.local.response_message_id,
      taskId: sent.task?.task_id ?? null,
      contextId: sent.task?.context_id ?? (message?.contextId as string | undefined) ?? sent.request.context_id,
      message,
      text: null,
    };
  }
  const soFar = progressText();
  let progress = Promise.resolve();
  let lastMessage: Record<string, unknown> | null = null;
  let responseMessageId: string | null = null;
  const onEvent = (event: StreamEventView, record: StreamRecord) => {
    if (record.variant === 'message') lastMessage = record.payload;
    responseMessageId = event.message_id;
    const text = soFar(event);
    if (text) progress = progress.then(() => ctx.progress(text));
  };
  try {
    const streamed = await streamMessage(core, { ...input, cwd: ctx.cwd, onEvent, signal: ctx.signal });
    return {
      alias: streamed.agent,
      requestMessageId: streamed.request.message_id,
      responseMessageId,
      taskId: streamed.task?.task_id ?? null,
      contextId: streamed.task?.context_id ?? streamed.context_id,
      message: streamed.task ? null : lastMessage,
      text: streamed.answer_text,
    };
  } finally {
    // Every progress notification goes out before the result does.
    await progress;
  }
}

/** The facts and artifacts of what a send left, the task read back from the journal. */
async function answerOf(core: Core, sent: Delivered): Promise<{ facts: AnswerFacts; snapshot: TaskSnapshot | null }> {
  const ids = { request_message_id: sent.requestMessageId, response_message_id: sent.responseMessageId };
  if (!sent.taskId) return { facts: { ...messageFacts(sent.alias, sent.message, sent.text, sent.contextId), ...ids }, snapshot: null };
  const snapshot = await readTask(core, sent.taskId);
  if (!snapshot)
    return { facts: { agent: sent.alias, task_id: sent.taskId, context_id: sent.contextId, state: 'unknown', reply: sent.text, ...ids }, snapshot };
  return { facts: { ...taskFacts(snapshot), ...ids }, snapshot };
}

/** Asks the user the agent's question; their reply, or null (declined, cancelled, empty, or the client failed). */
async function askUser(ctx: ToolContext, facts: AnswerFacts): Promise<{ reply: string | null; why: string }> {
  try {
    const answer = await ctx.elicit!({
      mode: 'form',
      message: `${facts.agent} asks: ${facts.reply ?? '(the agent needs more input, and did not say what)'}`,
      requestedSchema: {
        type: 'object',
        properties: { reply: { type: 'string', title: 'Your reply', description: `Sent to ${facts.agent} in task ${facts.task_id}` } },
        required: ['reply'],
      },
    });
    const reply = answer.action === 'accept' ? answer.content?.reply : undefined;
    if (typeof reply === 'string' && reply.trim()) return { reply, why: '' };
    return { reply: null, why: answer.action === 'accept' ? 'the user sent an empty reply' : `the user chose ${answer.action}` };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return { reply: null, why: `the client could not ask its user (${toMissiveError(error).message})` };
  }
}

/** Sends, then follows the task as the client can: waits (MCP task), asks the user (elicitation), or says what next. */
export async function converse(ctx: ToolContext, input: Converse): Promise<CallToolResult> {
  // As an MCP task, the send only starts the A2A task (returnImmediately) and the run follows it by GetTask, a wait
  // that tasks/cancel can stop: a blocking SendMessage could not be stopped before the agent answers.
  if (ctx.mcpTaskId) input = { ...input, returnImmediately: true };
  const notes: string[] = [];
  let rounds = 0;
  for (;;) {
    const sent = await deliver(ctx, input);
    let { facts, snapshot } = await answerOf(ctx.core, sent);
    if (ctx.mcpTaskId && facts.task_id && RUNNING_STATES.has(facts.state)) {
      await waitDecided(ctx.core, facts.task_id, { timeoutMs: MCP_TASK_WAIT_MS, signal: ctx.signal, agent: facts.agent });
      ({ facts, snapshot } = await answerOf(ctx.core, { ...sent, taskId: facts.task_id }));
    }
    if (facts.state === 'input_required' && ctx.elicit) {
      if (rounds < MAX_ELICITATIONS) {
        const { reply, why } = await askUser(ctx, facts);
        if (reply !== null) {
          rounds++;
          input = {
            agent: facts.agent,
            captured: { parts: [{ text: reply }], bytes: Buffer.byteLength(reply) },
            taskId: facts.task_id!,
            ...(facts.context_id ? { contextId: facts.context_id } : {}),
          };
          continue;
        }
        notes.push(`The agent's question was put to the user, and ${why}.`);
      } else notes.push(`The user was asked ${MAX_ELICITATIONS} times in this call; the agent asks again.`);
    }
    const auth = facts.state === 'auth_required' ? await authDetail(ctx.core, facts.agent, facts.reply) : undefined;
    return answerResult({ ...facts, ...(rounds ? { elicitation_rounds: rounds } : {}) }, snapshot?.artifacts ?? [], [stateNote(facts, auth), ...notes]);
  }
}
