/** Non-streaming SendMessage: build, size-check, send over the negotiated binding, persist request and response. */
import { randomUUID } from 'node:crypto';
import { rowId } from '../store/row-id.js';
import { Message, SendMessageRequest } from '@a2a-js/sdk';
import { authError, dataError, toMissiveError, usageError, type MissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { Binding } from '../config/schema.js';
import type { BindingCall } from '../a2a/binding-call.js';
import { a2aClient } from '../a2a/client.js';
import type { JsonObject, SendAnswer, SendMessageParams, TaskJson } from '../a2a/operations.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import type { WireCapture } from '../a2a/wire.js';
import type { CardResult } from '../agents/discovery.js';
import type { Outbound } from '../agents/outbound.js';
import { connect } from '../agents/connection.js';
import { openContextId } from '../contexts/service.js';
import { parseMetadata } from '../validation/metadata.js';
import { validateBaseUrl } from '../validation/url.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import { call, journal, type Steps } from '../store/steps.js';
import { persistTaskSteps } from '../tasks/persist.js';
import { redactUrl, redactValue, scrubSecrets } from '../security/redact.js';
import { buildParts, type PartInputs } from './parts.js';
import { answerOfResponse } from '../tasks/answer-text.js';

export interface SendInput extends PartInputs {
  agent: string;
  contextId?: string;
  taskId?: string;
  metadata?: string[];
  acceptedOutputModes?: string[];
  /** SendMessageConfiguration.returnImmediately: the agent answers with the task at once instead of blocking. */
  returnImmediately?: boolean;
  /** Registers a push callback inline (SendMessageConfiguration.taskPushNotificationConfig). */
  pushUrl?: string;
  /** Env var holding the token the agent sends back with each callback. */
  pushTokenEnv?: string;
  binding?: Binding;
  cwd: string;
  /** Epoch ms by which the request must be answered (collectives share one deadline); defaults to now + --timeout. */
  deadline?: number;
  /** Records every exchange of the call for the wire view (`--show-wire`, the GUI). */
  wire?: WireCapture;
  /** The request's message id when the caller must know it before the call ends (the GUI's wire log); else a fresh UUID. */
  messageId?: string;
}

export interface SendResult {
  agent: string;
  selected_interface: SelectedInterface;
  request: { message_id: string; context_id: string | null; task_id: string | null; parts: number; bytes: number };
  response_shape: 'message' | 'task';
  response: unknown;
  task: { task_id: string; context_id: string | null; state: TaskStateName; artifacts: Array<{ artifact_id: string; version: number }> } | null;
  local: { request_message_id: string; response_message_id: string };
}

/** `--context` may be a local name: resolve it to the id, and refuse a context closed locally. */
async function withContext<T extends { contextId?: string }>(core: Core, input: T): Promise<T> {
  if (!input.contextId) return input;
  return { ...input, contextId: await openContextId(core, input.contextId) };
}

/** The inline push config of `--push-url` (its token from `--push-token-env`), or undefined. */
function inlinePush(core: Core, input: SendInput): { url: string; token?: string } | undefined {
  if (!input.pushUrl) {
    if (input.pushTokenEnv) throw usageError('push_url_required', '--push-token-env needs --push-url');
    return undefined;
  }
  validateBaseUrl(input.pushUrl, '--push-url');
  if (!input.pushTokenEnv) return { url: input.pushUrl };
  const token = core.env[input.pushTokenEnv];
  if (!token) throw authError('env_missing', `--push-token-env ${input.pushTokenEnv} is not set in the environment`);
  return { url: input.pushUrl, token };
}

/** Everything both send and stream do before the request leaves: parts, limits, card, interface, request row. */
export interface PreparedSend {
  alias: string;
  card: CardResult;
  iface: SelectedInterface;
  outbound: Outbound;
  call: BindingCall;
  messageId: string;
  message: JsonObject;
  request: SendMessageParams;
  requestBytes: number;
  inputBytes: number;
  parts: number;
  meta: Record<string, unknown>;
  contextId: string | null;
  taskId: string | null;
  operation: 'send' | 'stream';
  pushUrl: string | null;
  /** The collective's shared deadline (epoch ms), applied when the request is delivered. */
  deadline: number | null;
}

export async function buildSend(core: Core, input: SendInput, operation: 'send' | 'stream', checkCard?: (card: CardResult) => void): Promise<PreparedSend> {
  input = await withContext(core, input);
  const max = core.config.qos.maxRequestBytes;
  const { parts, inputBytes } = buildParts(input, input.cwd, max);
  const push = inlinePush(core, input);
  const connection = await connect(core, input.agent, {
    binding: input.binding,
    checkCard,
    bodySecrets: push?.token ? [`the push token of --push-token-env ${input.pushTokenEnv}`] : [],
    wire: input.wire,
  });
  const { card, iface, outbound } = connection;
  const call = connection.call;
  const messageId = input.messageId ?? randomUUID();
  const message = Message.toJSON(
    Message.fromJSON({
      messageId,
      role: 'ROLE_USER',
      parts,
      ...(input.contextId ? { contextId: input.contextId } : {}),
      ...(input.taskId ? { taskId: input.taskId } : {}),
      ...(input.metadata?.length ? { metadata: parseMetadata(input.metadata) } : {}),
    }),
  ) as Record<string, unknown>;
  const request = SendMessageRequest.toJSON(
    SendMessageRequest.fromJSON({
      ...(iface.tenant ? { tenant: iface.tenant } : {}),
      message,
      ...(input.acceptedOutputModes?.length || input.returnImmediately || push
        ? {
            configuration: {
              acceptedOutputModes: input.acceptedOutputModes ?? [],
              ...(input.returnImmediately ? { returnImmediately: true } : {}),
              ...(push ? { taskPushNotificationConfig: push } : {}),
            },
          }
        : {}),
    }),
  ) as SendMessageParams;
  const requestBytes = Buffer.byteLength(JSON.stringify(request));
  if (requestBytes > max) {
    throw dataError('request_too_large', `the serialized request is ${requestBytes} bytes, over qos.max_request_bytes = ${max}; nothing was sent`);
  }

  const meta = connection.meta;
  return {
    alias: card.agent.alias,
    card,
    iface,
    outbound,
    call,
    messageId,
    message,
    request,
    requestBytes,
    inputBytes,
    parts: parts.length,
    meta,
    contextId: input.contextId ?? null,
    operation,
    taskId: input.taskId ?? null,
    pushUrl: push ? redactUrl(push.url) : null,
    deadline: input.deadline ?? null,
  };
}

/** The request row and `a2a.<op>.started` (a fan-out records every member's in one transaction). */
export function* requestSteps(p: PreparedSend): Steps<void> {
  if (p.contextId) yield* call('ensureContext', p.contextId, p.alias);
  // The agent gets the message as typed; the journal never keeps our own credentials, even when typed into it.
  yield* call('insertMessage', {
    messageId: p.messageId,
    agentAlias: p.alias,
    contextId: p.contextId,
    taskId: null,
    direction: 'request',
    role: 'user',
    protocolMessageId: p.messageId,
    content: scrubSecrets(p.message, p.outbound.secrets),
    metadata: p.meta,
  });
  yield* journal(
    {
      type: `a2a.${p.operation}.started`,
      agentAlias: p.alias,
      contextId: p.contextId,
      payload: { message_id: p.messageId, interface: p.iface, parts: p.parts, bytes: p.inputBytes, push_url: p.pushUrl },
    },
    p.outbound.secrets,
  );
}

/** Builds and records the request in one step (send and stream), on either store. */
export async function prepareSend(core: Core, input: SendInput, operation: 'send' | 'stream', checkCard?: (card: CardResult) => void): Promise<PreparedSend> {
  const prepared = await buildSend(core, input, operation, checkCard);
  await (await core.storage()).write(() => requestSteps(prepared));
  return prepared;
}

export async function sendMessage(core: Core, input: SendInput): Promise<SendResult> {
  return deliverSend(core, await prepareSend(core, input, 'send'));
}

/**
 * Sends a recorded request and persists the answer: call the agent (a failure is journaled and thrown), then persist
 * the message or task answer and journal the completion in one transaction: on SQLite a savepoint of a group commit
 * (`Store.batch`: a fan-out's hundreds of answers share one commit), on PostgreSQL a transaction of its own. `along`
 * runs in that transaction too, so a caller's own journal rows (a fan-out's member event) commit with the answer; the
 * promise settles once the transaction has committed.
 */
export async function deliverSend(core: Core, prepared: PreparedSend, along?: (result: SendResult) => Steps<void>): Promise<SendResult> {
  const answer = await callAgent(core, prepared);
  const responseMessageId = rowId();
  return (await core.storage()).write(function* () {
    const sent = yield* answerSteps(prepared, answer, responseMessageId);
    if (along) yield* along(sent);
    return sent;
  }, 'group');
}

/**
 * What an answer leaves: the message or the task (and its artifacts), and `a2a.send.completed` (a gateway's send job
 * writes them in the transaction that ends the job: jobs/execute.ts).
 */
export function* answerSteps(prepared: PreparedSend, answer: SendAnswer, responseMessageId: string): Steps<SendResult> {
  let task: SendResult['task'] = null;
  if (answer.task) task = yield* persistTaskAnswer(prepared, answer.task, responseMessageId);
  else yield* persistMessageAnswer(prepared, answer.message, responseMessageId);
  yield* journalCompletion(prepared, answer, responseMessageId, task);
  return sendResult(prepared, answer, responseMessageId, task);
}

const shapeOf = (answer: SendAnswer): SendResult['response_shape'] => (answer.task ? 'task' : 'message');

const messageContextOf = (answer: SendAnswer): string | null => {
  const contextId = (answer.message as { contextId?: unknown } | undefined)?.contextId;
  return typeof contextId === 'string' && contextId ? contextId : null;
};

/**
 * Calls SendMessage (a fan-out's queued member gets only what is left of the shared deadline) and decodes the answer.
 * Any failure, an answer that is neither task nor message included, is journaled as `a2a.send.failed` and thrown.
 */
export async function callAgent(core: Core, prepared: PreparedSend): Promise<SendAnswer> {
  try {
    // The answer comes back read (a task or a message, in the SDK's canonical JSON); only our secrets are scrubbed here.
    return scrubSecrets(await a2aClient(prepared.call, { deadline: prepared.deadline }).sendMessage(prepared.request), prepared.outbound.secrets);
  } catch (error) {
    const err = toMissiveError(error);
    await recordSendFailure(core, prepared, err);
    throw err;
  }
}

/** Journals `a2a.send.failed` with the error report (autocommit: it must survive whatever the caller does next). */
async function recordSendFailure(core: Core, prepared: PreparedSend, err: MissiveError): Promise<void> {
  await (
    await core.storage()
  ).journal.append(
    { type: 'a2a.send.failed', agentAlias: prepared.alias, contextId: prepared.contextId, payload: { message_id: prepared.messageId, error: err.toReport() } },
    prepared.outbound.secrets,
  );
}

/** A direct message answer: its context (when it names one; the request joins it) and the response row. */
function* persistMessageAnswer(prepared: PreparedSend, message: JsonObject, responseMessageId: string): Steps<void> {
  const m = message as { messageId?: string; contextId?: string };
  if (m.contextId) {
    yield* call('ensureContext', m.contextId, prepared.alias);
    yield* call('linkMessageToContext', prepared.messageId, m.contextId);
  }
  yield* call('insertMessage', {
    messageId: responseMessageId,
    agentAlias: prepared.alias,
    contextId: m.contextId ?? prepared.contextId,
    taskId: null,
    direction: 'response',
    role: 'agent',
    protocolMessageId: m.messageId ?? null,
    content: message,
    metadata: prepared.meta,
  });
}

/**
 * A task answer: the task and its artifacts, the request linked to it, and a response row holding the task's status
 * message (or, when it has none, a synthetic system row naming the state).
 */
function* persistTaskAnswer(prepared: PreparedSend, task: TaskJson, responseMessageId: string): Steps<NonNullable<SendResult['task']>> {
  const persisted = yield* persistTaskSteps(prepared.alias, task, {
    protocolVersion: prepared.iface.protocol_version,
    metadata: prepared.meta,
    lastMessageId: responseMessageId,
    fallbackContextId: prepared.contextId ?? undefined,
  });
  const contextId = persisted.context_id;
  yield* call('linkMessageToTask', prepared.messageId, task.id, contextId);
  const statusMessage = task.status?.message;
  yield* call('insertMessage', {
    messageId: responseMessageId,
    agentAlias: prepared.alias,
    contextId,
    taskId: task.id,
    direction: 'response',
    role: statusMessage ? 'agent' : 'system',
    protocolMessageId: (statusMessage?.messageId as string | undefined) ?? null,
    content: statusMessage ?? { synthetic: true, task_id: task.id, state: task.status?.state ?? 'TASK_STATE_UNSPECIFIED' },
    metadata: { ...prepared.meta, 'missive.synthetic': !statusMessage },
  });
  return { task_id: task.id, context_id: contextId, state: persisted.state, artifacts: persisted.artifacts };
}

/** Journals `a2a.send.completed`: the answer's shape, the response row and the task (if any). */
function* journalCompletion(prepared: PreparedSend, answer: SendAnswer, responseMessageId: string, task: SendResult['task']): Steps<void> {
  yield* journal(
    {
      type: 'a2a.send.completed',
      agentAlias: prepared.alias,
      // The context the answer lives in: the task's, else the one a direct message names, else the request's.
      contextId: task?.context_id ?? messageContextOf(answer) ?? prepared.contextId,
      taskId: task?.task_id ?? null,
      payload: { message_id: prepared.messageId, response_shape: shapeOf(answer), response_message_id: responseMessageId, task },
    },
    prepared.outbound.secrets,
  );
}

/** What the caller gets back: the request's ids and sizes, the answer (credentials redacted) and the local row ids. */
function sendResult(prepared: PreparedSend, answer: SendAnswer, responseMessageId: string, task: SendResult['task']): SendResult {
  return {
    agent: prepared.alias,
    selected_interface: prepared.iface,
    request: { message_id: prepared.messageId, context_id: prepared.contextId, task_id: prepared.taskId, parts: prepared.parts, bytes: prepared.requestBytes },
    response_shape: shapeOf(answer),
    response: redactValue(answer, prepared.outbound.secrets),
    task,
    local: { request_message_id: prepared.messageId, response_message_id: responseMessageId },
  };
}

/**
 * The answer text of a SendMessage answer: the direct Message, else the task's status message, else its artifacts
 * (answer-text.ts); null when it has none.
 */
export function responseText(response: unknown): string | null {
  return answerOfResponse(response);
}
