/** Non-streaming SendMessage: build, size-check, send over the negotiated binding, persist request and response. */
import { randomUUID } from 'node:crypto';
import { rowId } from '../store/row-id.js';
import { Message, SendMessageRequest, SendMessageResponse } from '@a2a-js/sdk';
import { authError, dataError, protocolError, toMissiveError, transportError, usageError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import type { Binding } from '../config/schema.js';
import { callUnary, type BindingCall } from '../a2a/bindings.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import type { CardResult } from '../agents/discovery.js';
import type { Outbound } from '../agents/outbound.js';
import { connect } from '../agents/connection.js';
import { assertContextOpen, resolveContextId } from '../contexts/service.js';
import { parseMetadata, validateBaseUrl } from '../agents/registry.js';
import { appendEvent } from '../store/repos/events.js';
import { ensureContext, insertMessage, linkMessageToTask, type TaskStateName } from '../store/repos/conversation.js';
import { canonicalTask, persistTask } from '../tasks/persist.js';
import { redactUrl, redactValue, scrubSecrets } from '../security/redact.js';
import { buildParts, textOfParts, type PartInputs } from './parts.js';

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
function withContext<T extends { contextId?: string }>(core: Core, input: T): T {
  if (!input.contextId) return input;
  const contextId = resolveContextId(core.store().db, input.contextId);
  assertContextOpen(core.store().db, contextId);
  return { ...input, contextId };
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

/** Time left before `deadline`, capped by the per-request timeout; a passed deadline is a timeout before sending. */
function remainingMs(deadline: number, timeoutMs: number): number {
  const left = deadline - Date.now();
  if (left <= 0) throw transportError('timeout', 'the deadline passed before the request was sent', 'Raise --timeout.');
  return Math.min(left, timeoutMs);
}

/** Everything both send and stream do before the request leaves: parts, limits, card, interface, request row. */
export interface PreparedSend {
  alias: string;
  card: CardResult;
  iface: SelectedInterface;
  outbound: Outbound;
  call: BindingCall;
  messageId: string;
  message: Record<string, unknown>;
  request: Record<string, unknown>;
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
  input = withContext(core, input);
  const max = core.config.qos.maxRequestBytes;
  const { parts, inputBytes } = buildParts(input, input.cwd, max);
  const push = inlinePush(core, input);
  const connection = await connect(core, input.agent, { binding: input.binding, checkCard, bodySecrets: push?.token ? [`the push token of --push-token-env ${input.pushTokenEnv}`] : [] });
  const { card, iface, outbound, call } = connection;
  const messageId = randomUUID();
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
  ) as Record<string, unknown>;
  const requestBytes = Buffer.byteLength(JSON.stringify(request));
  if (requestBytes > max) {
    throw dataError('request_too_large', `the serialized request is ${requestBytes} bytes, over qos.max_request_bytes = ${max}; nothing was sent`);
  }

  const meta = connection.meta;
  return { alias: card.agent.alias, card, iface, outbound, call, messageId, message, request, requestBytes, inputBytes, parts: parts.length, meta, contextId: input.contextId ?? null, operation, taskId: input.taskId ?? null, pushUrl: push ? redactUrl(push.url) : null, deadline: input.deadline ?? null };
}

/** Writes the request row and `a2a.<op>.started`; call inside a transaction (fan-outs record every member in one). */
export function recordRequest(core: Core, p: PreparedSend): void {
  const db = core.store().db;
  if (p.contextId) ensureContext(db, p.contextId, p.alias);
  // The agent gets the message as typed; the journal never keeps our own credentials, even when typed into it.
  insertMessage(db, { messageId: p.messageId, agentAlias: p.alias, contextId: p.contextId, taskId: null, direction: 'request', role: 'user', protocolMessageId: p.messageId, content: scrubSecrets(p.message, p.outbound.secrets), metadata: p.meta });
  appendEvent(db, { type: `a2a.${p.operation}.started`, agentAlias: p.alias, contextId: p.contextId, payload: { message_id: p.messageId, interface: p.iface, parts: p.parts, bytes: p.inputBytes, push_url: p.pushUrl } }, p.outbound.secrets);
}

/** Builds and records the request in one step (send and stream). */
export async function prepareSend(core: Core, input: SendInput, operation: 'send' | 'stream', checkCard?: (card: CardResult) => void): Promise<PreparedSend> {
  const prepared = await buildSend(core, input, operation, checkCard);
  core.store().transaction(() => recordRequest(core, prepared));
  return prepared;
}

export async function sendMessage(core: Core, input: SendInput): Promise<SendResult> {
  return deliverSend(core, await prepareSend(core, input, 'send'));
}

/**
 * Sends a recorded request and persists the answer in one transaction. `inTransaction` runs inside it, so a caller's
 * own journal rows (a fan-out's member event) commit together with the response.
 */
export async function deliverSend(core: Core, prepared: PreparedSend, inTransaction?: (result: SendResult) => void): Promise<SendResult> {
  const { alias, iface, outbound, messageId, request, requestBytes, parts, meta } = prepared;
  const input = { contextId: prepared.contextId ?? undefined, taskId: prepared.taskId ?? undefined };

  const db = core.store().db;

  let raw: unknown;
  try {
    // Queued members of a fan-out get only what is left of the shared deadline when they actually leave.
    const call = prepared.deadline === null ? prepared.call : { ...prepared.call, timeoutMs: remainingMs(prepared.deadline, core.timeoutMs) };
    raw = await callUnary(call, 'SendMessage', request);
  } catch (error) {
    const err = toMissiveError(error);
    appendEvent(db, { type: 'a2a.send.failed', agentAlias: alias, contextId: input.contextId ?? null, payload: { message_id: messageId, error: err.toReport() } }, outbound.secrets);
    throw err;
  }

  const decoded = scrubSecrets(SendMessageResponse.toJSON(SendMessageResponse.fromJSON(raw as object)), outbound.secrets) as { task?: Record<string, unknown>; message?: Record<string, unknown> };
  const responseMessageId = rowId();
  let result: SendResult['task'] = null;
  const shape: 'message' | 'task' = decoded.task ? 'task' : 'message';
  if (!decoded.task && !decoded.message) {
    appendEvent(db, { type: 'a2a.send.failed', agentAlias: alias, payload: { message_id: messageId, error: 'response is neither task nor message' } });
    throw protocolError('invalid_send_response', 'the SendMessage response holds neither a task nor a message');
  }
  return core.store().batch(() => {
    if (decoded.message) {
      const m = decoded.message as { messageId?: string; contextId?: string; taskId?: string };
      if (m.contextId) ensureContext(db, m.contextId, alias);
      insertMessage(db, { messageId: responseMessageId, agentAlias: alias, contextId: m.contextId ?? input.contextId ?? null, taskId: null, direction: 'response', role: 'agent', protocolMessageId: m.messageId ?? null, content: decoded.message, metadata: meta });
    } else {
      const task = canonicalTask(decoded.task);
      const persisted = persistTask(db, alias, task, { protocolVersion: iface.protocol_version, metadata: meta, lastMessageId: responseMessageId, fallbackContextId: input.contextId });
      const contextId = persisted.context_id;
      linkMessageToTask(db, messageId, task.id, contextId);
      const statusMessage = task.status?.message;
      insertMessage(db, {
        messageId: responseMessageId,
        agentAlias: alias,
        contextId,
        taskId: task.id,
        direction: 'response',
        role: statusMessage ? 'agent' : 'system',
        protocolMessageId: (statusMessage?.messageId as string | undefined) ?? null,
        content: statusMessage ?? { synthetic: true, task_id: task.id, state: task.status?.state ?? 'TASK_STATE_UNSPECIFIED' },
        metadata: { ...meta, 'missive.synthetic': !statusMessage },
      });
      result = { task_id: task.id, context_id: contextId, state: persisted.state, artifacts: persisted.artifacts };
    }
    appendEvent(
      db,
      { type: 'a2a.send.completed', agentAlias: alias, contextId: result?.context_id ?? input.contextId ?? null, taskId: result?.task_id ?? null, payload: { message_id: messageId, response_shape: shape, task: result } },
      outbound.secrets,
    );
    const sent: SendResult = {
      agent: alias,
      selected_interface: iface,
      request: { message_id: messageId, context_id: input.contextId ?? null, task_id: input.taskId ?? null, parts, bytes: requestBytes },
      response_shape: shape,
      response: redactValue(decoded, outbound.secrets),
      task: result,
      local: { request_message_id: messageId, response_message_id: responseMessageId },
    };
    inTransaction?.(sent);
    return sent;
  });
}

/** The text of a SendMessage answer: the direct Message, else the task's status message; null when it has none. */
export function responseText(response: unknown): string | null {
  const r = response as { message?: { parts?: unknown }; task?: { status?: { message?: { parts?: unknown } } } } | null;
  return textOfParts((r?.message ?? r?.task?.status?.message)?.parts);
}
