/**
 * An embedded A2A v1.0 agent built on the official SDK server: JSON-RPC at /a2a/jsonrpc, HTTP+JSON at /a2a/rest and
 * the Agent Card at /.well-known/agent-card.json, on 127.0.0.1 and a random port. It backs `missive demo` and the tests.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard, Message, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/** echo: a direct Message; task: a completed Task with an artifact; input: a Task that asks for more input. */
export type AgentBehaviour = 'echo' | 'task' | 'input';

export interface EmbeddedAgentOptions {
  name?: string;
  behaviour?: AgentBehaviour;
  streaming?: boolean;
  skills?: Array<{ id: string; name: string; tags?: string[]; description?: string }>;
  host?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface EmbeddedAgent {
  baseUrl: string;
  jsonRpcUrl: string;
  restUrl: string;
  card: unknown;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const textOf = (message: Message) =>
  message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');

class DemoExecutor implements AgentExecutor {
  constructor(private readonly behaviour: AgentBehaviour) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage);
    if (this.behaviour === 'echo') {
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({ messageId: randomUUID(), contextId: ctx.contextId, role: 'ROLE_AGENT', parts: [{ text: `echo: ${text}` }] }),
        ),
      );
      bus.finished();
      return;
    }
    const base = { id: ctx.taskId, contextId: ctx.contextId };
    if (this.behaviour === 'input') {
      bus.publish(
        AgentEvent.task(
          Task.fromJSON({
            ...base,
            status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: 'ROLE_AGENT', parts: [{ text: 'which file?' }] } },
          }),
        ),
      );
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task(Task.fromJSON({ ...base, status: { state: 'TASK_STATE_SUBMITTED' }, history: [Message.toJSON(ctx.userMessage)] })));
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...{ taskId: ctx.taskId, contextId: ctx.contextId }, status: { state: 'TASK_STATE_WORKING' } })));
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({
          ...base,
          status: {
            state: 'TASK_STATE_COMPLETED',
            message: { messageId: randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: 'ROLE_AGENT', parts: [{ text: `done: ${text}` }] },
          },
          artifacts: [{ artifactId: 'result', name: 'result.txt', parts: [{ text: `result for: ${text}`, mediaType: 'text/plain' }] }],
        }),
      ),
    );
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

export async function startEmbeddedAgent(options: EmbeddedAgentOptions = {}): Promise<EmbeddedAgent> {
  const host = options.host ?? '127.0.0.1';
  const app = express();
  const requests: RecordedRequest[] = [];
  app.use((req, _res, next) => {
    requests.push({ method: req.method, path: req.path, headers: { ...req.headers } });
    next();
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, host, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host}:${port}`;
  const cardJson = {
    name: options.name ?? 'missive demo agent',
    description: `An embedded ${options.behaviour ?? 'echo'} agent for trying missive.`,
    version: '1.0.0',
    provider: { organization: 'missive (embedded demo)' },
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: (options.skills ?? [{ id: options.behaviour ?? 'echo', name: options.behaviour === 'task' ? 'Task runner' : 'Echo', tags: ['demo'] }]).map((s) => ({
      description: s.description ?? s.name,
      ...s,
    })),
  };
  const card = AgentCard.fromJSON(cardJson);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new DemoExecutor(options.behaviour ?? 'echo'));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    jsonRpcUrl: `${baseUrl}/a2a/jsonrpc`,
    restUrl: `${baseUrl}/a2a/rest`,
    card: AgentCard.toJSON(card),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
