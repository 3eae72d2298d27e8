/**
 * `missive mock record <alias> --to FILE`: a proxy agent (demo/agent-host.ts) in front of a registered agent. Each
 * request it receives is forwarded through missive's own send or stream (credentials, pinning and the journal as
 * `missive send` / `stream` do them), all in one local context, and what the agent answered is published back to the
 * client with the agent's task and context ids replaced by the proxy's. After each exchange FILE is rewritten with
 * the `context export` document of that context (redacted as every export is), so `mock serve --from-export FILE`
 * replays it. The proxy holds the user's credentials for the agent, so it serves only clients that send this launch's
 * bearer token (the card declares it).
 *
 * Limit: an A2A error the agent answers reaches the proxy's client as a failed task naming the error (the SDK turns
 * an executor's failure into one); the journal, and so the recording, keeps the error itself.
 */
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent, type SendMessageRequest } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { writePrivateFile } from '../security/private-files.js';
import { redactValue } from '../security/redact.js';
import type { JsonObject } from '../a2a/operations.js';
import type { StreamRecord } from '../a2a/stream-response.js';
import { loadCard } from '../agents/discovery.js';
import { createContext, exportContext } from '../contexts/service.js';
import { partBytes } from '../messaging/parts.js';
import { sendMessage } from '../messaging/send.js';
import { streamMessage } from '../messaging/stream.js';
import { startAgentHost, type HostBinding } from '../demo/agent-host.js';
import { listenFailed, mockCardBuilder } from './server.js';
import { rewriteStrings } from './id-rewrite.js';

export interface MockRecordOptions {
  alias: string;
  /** The file the export is written to (resolved against `cwd`). */
  to: string;
  cwd: string;
  port?: number;
  host?: string;
  /** Overwrite FILE when it exists already (else refused before anything is served). */
  force?: boolean;
}

export interface MockRecorder {
  url: string;
  /** This launch's token: the proxy sends with the user's credentials, so only a client holding it may use it. */
  bearer: string;
  port: number;
  cardUrl: string;
  /** The local context the exchanges are journaled in. */
  contextId: string;
  /** The export's path. */
  path: string;
  exchanges(): number;
  close(): Promise<{ exchanges: number; path: string }>;
}

/** Replaces the agent's ids (task, context) with the proxy's in an answer, all the way down. */
function proxied(body: JsonObject, real: { tasks: Map<string, string>; contextId: string }, live: { taskId: string; contextId: string }): JsonObject {
  return rewriteStrings(body, (key, value) => {
    if (key === 'taskId' || key === 'id') for (const [proxyId, realId] of real.tasks) if (realId === value) return proxyId;
    if (key === 'contextId' && value === real.contextId) return live.contextId;
    return value;
  });
}

const VARIANT_EVENT = {
  task: (b: JsonObject) => AgentEvent.task(Task.fromJSON(b)),
  message: (b: JsonObject) => AgentEvent.message(Message.fromJSON(b)),
  statusUpdate: (b: JsonObject) => AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(b)),
  artifactUpdate: (b: JsonObject) => AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON(b)),
} as const;

class ProxyExecutor implements AgentExecutor {
  /** Proxy task id → the agent's task id. */
  readonly tasks = new Map<string, string>();
  /** How each request was asked (beforeSend sees the operation, the executor only the message). */
  readonly operations = new Map<string, 'send' | 'stream'>();
  count = 0;

  constructor(
    private readonly core: Core,
    private readonly options: MockRecordOptions,
    private readonly contextId: string,
    private readonly exported: () => Promise<void>,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = Message.toJSON(ctx.userMessage) as JsonObject;
    const operation = this.operations.get(ctx.userMessage.messageId) ?? 'send';
    this.operations.delete(ctx.userMessage.messageId);
    const parts = (message.parts as Record<string, unknown>[]) ?? [];
    const realTask = this.tasks.get(ctx.taskId);
    const input = {
      agent: this.options.alias,
      cwd: this.options.cwd,
      contextId: this.contextId,
      ...(realTask ? { taskId: realTask } : {}),
      captured: { parts, bytes: parts.reduce((sum, p) => sum + partBytes(p), 0) },
    };
    const live = { taskId: ctx.taskId, contextId: ctx.contextId };
    const real = { tasks: this.tasks, contextId: this.contextId };
    const learn = (variant: StreamRecord['variant'], payload: JsonObject) => {
      const id = variant === 'task' ? payload.id : variant === 'message' ? undefined : payload.taskId;
      if (typeof id === 'string' && !this.tasks.has(ctx.taskId)) this.tasks.set(ctx.taskId, id);
    };
    try {
      if (operation === 'stream') {
        await streamMessage(this.core, {
          ...input,
          force: true,
          onEvent: (_view, record) => {
            learn(record.variant, record.payload);
            bus.publish(VARIANT_EVENT[record.variant](proxied(record.payload, real, live)));
          },
        });
      } else {
        const result = await sendMessage(this.core, input);
        const answer = result.response as { task?: JsonObject; message?: JsonObject };
        if (answer.task) {
          learn('task', answer.task);
          bus.publish(VARIANT_EVENT.task(proxied(answer.task, real, live)));
        } else if (answer.message) bus.publish(VARIANT_EVENT.message(proxied(answer.message, real, live)));
      }
    } finally {
      this.count++;
      await this.exported();
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, status: { state: 'TASK_STATE_CANCELED' } })));
    bus.finished();
  }
}

export async function startMockRecord(core: Core, options: MockRecordOptions): Promise<MockRecorder> {
  const path = resolve(options.cwd, options.to);
  if (existsSync(path) && !options.force) throw usageError('output_exists', `${path} already exists; nothing was recorded`, 'Pass --force to overwrite it.');
  const card = await loadCard(core, options.alias);
  const context = await createContext(core);
  const contextId = context.context_id;
  // The agent's card beside the export (load-recording reads a top-level `card`), so the mock serves the real one.
  const cardJson = redactValue(AgentCard.toJSON(card.card.typed) as JsonObject);
  let chain: Promise<unknown> = Promise.resolve();
  // One export at a time, in the order exchanges end; each rewrites the whole file (redacted, as every export is).
  const exported = () => {
    chain = chain.then(async () => {
      const { document } = await exportContext(core, contextId, { cwd: options.cwd });
      writePrivateFile(path, `${JSON.stringify({ ...document, card: cardJson }, null, 2)}\n`);
    });
    return chain.then(() => undefined);
  };
  await exported();
  const executor = new ProxyExecutor(core, options, contextId, exported);
  const bindings: HostBinding[] = ['http+json', 'json-rpc'];
  // The proxy calls the agent with the user's credentials: another local user (or a page on another local port) must
  // not get to, so every A2A request needs this launch's token.
  const bearer = randomBytes(24).toString('base64url');
  const recording = { source: `record ${card.agent.alias}`, agent: card.agent.alias, card: cardJson, exchanges: [] };
  const host = await startAgentHost(
    mockCardBuilder(recording, bindings, ['1.0', '0.3'], {
      about: `A missive recording proxy of "${card.agent.alias}" (mock record).`,
      push: false,
      bearer: true,
    }),
    executor,
    {
      host: options.host,
      port: options.port ?? 0,
      bindings,
      versions: ['1.0', '0.3'],
      bearer,
      beforeSend: (params: SendMessageRequest, operation) => {
        if (params.message) executor.operations.set(params.message.messageId, operation);
      },
    },
  ).catch((error: unknown) => {
    throw listenFailed(error, options.host, options.port);
  });
  return {
    url: host.baseUrl,
    bearer,
    port: Number(new URL(host.baseUrl).port),
    cardUrl: `${host.baseUrl}/.well-known/agent-card.json`,
    contextId,
    path,
    exchanges: () => executor.count,
    async close() {
      await host.close();
      await chain;
      return { exchanges: executor.count, path };
    },
  };
}
