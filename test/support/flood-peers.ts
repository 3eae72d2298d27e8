/**
 * Hostile stream peers on 127.0.0.1 for the stream bounds (issue 32, findings 8, 9 and 14): raw node:http routes that
 * send one SSE line or event that never ends, or valid events without end, on the 1.0 HTTP+JSON and JSON-RPC wires and
 * the v0.3 JSON-RPC wire the SDK speaks; and the SDK's own gRPC service behind an executor that floods. Every flood is
 * bounded in bytes or events, and stops as soon as the client goes away: what it wrote is counted, so a test can tell
 * that missive closed the connection instead of reading to the end.
 */
import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import express from 'express';
import * as grpc from '@grpc/grpc-js';
import { AGENT_CARD_PATH, AgentCard, Task, TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';

/** What one flood wrote before it stopped, and why it stopped. */
export interface Flooded {
  bytes: number;
  /** The client closed the connection (else the flood reached its own bound and ended the answer). */
  clientLeft: boolean;
}

/**
 * Writes `head`, then `next(i)` for i = 0, 1, … (honouring backpressure) until the client leaves, `maxBytes` are written
 * or `next` returns null; then ends the answer. Resolves with what was written.
 */
export function flood(res: ServerResponse, head: string, next: (i: number) => string | null, maxBytes: number): Promise<Flooded> {
  return new Promise((resolve) => {
    let bytes = 0;
    let left = false;
    let i = 0;
    const finish = () => resolve({ bytes, clientLeft: left });
    res.once('close', () => {
      left = !res.writableFinished;
      finish();
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const write = (text: string) => {
      bytes += Buffer.byteLength(text);
      return res.write(text);
    };
    const pump = () => {
      for (;;) {
        if (res.destroyed || left) return;
        const text = bytes === 0 ? head : next(i++);
        if (text === null || bytes >= maxBytes) {
          res.end();
          return;
        }
        if (!write(text)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/** A 1.0 artifactUpdate event's JSON of about `size` bytes (one text part). */
export const artifactUpdate = (taskId: string, i: number, size: number) =>
  JSON.stringify({
    artifactUpdate: {
      taskId,
      contextId: `c-${taskId}`,
      artifact: { artifactId: `a-${i}`, parts: [{ text: 'y'.repeat(size) }] },
      append: false,
      lastChunk: true,
    },
  });
/** A 1.0 statusUpdate event's JSON: still working. */
export const workingUpdate = (taskId: string) =>
  JSON.stringify({ statusUpdate: { taskId, contextId: `c-${taskId}`, status: { state: 'TASK_STATE_WORKING' } } });
/** A 1.0 task in the working state. */
export const workingTask = (taskId: string) => ({ id: taskId, contextId: `c-${taskId}`, status: { state: 'TASK_STATE_WORKING' } });

/** A task holding `count` one-part artifacts: about 47 bytes each on the wire (150,000 of them: 7 MB, finding 14). */
export function manyArtifactsTask(taskId: string, count: number): string {
  const artifacts = new Array<string>(count);
  for (let i = 0; i < count; i++) artifacts[i] = `{"artifactId":"a${i}","parts":[{"text":"x"}]}`;
  return `{"id":"${taskId}","contextId":"c-${taskId}","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[${artifacts.join(',')}]}`;
}

export interface FloodGrpcPeer {
  baseUrl: string;
  grpcTarget: string;
  /** How many artifact updates the executor published, per task. */
  published: Map<string, number>;
  close(): Promise<void>;
}

/**
 * The SDK's gRPC service (A2A 1.0) whose executor, for `flood N SIZE`, publishes a working task then up to N artifact
 * updates of SIZE bytes as fast as they go (stopping when the call is cancelled), and for `many N` completes a task
 * holding N one-part artifacts.
 */
class FloodExecutor implements AgentExecutor {
  readonly #cancelled = new Set<string>();
  constructor(private readonly published: Map<string, number>) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const [verb, n = '0', size = '0'] = text.split(' ');
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    if (verb === 'many') {
      const artifacts = Array.from({ length: Number(n) }, (_, i) => ({ artifactId: `a${i}`, parts: [{ text: 'x' }] }));
      bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_COMPLETED' }, artifacts })));
      return bus.finished();
    }
    bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_WORKING' } })));
    const body = 'z'.repeat(Number(size));
    for (let i = 0; i < Number(n) && !this.#cancelled.has(ctx.taskId); i++) {
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({ ...ids, artifact: { artifactId: `a-${i}`, parts: [{ text: body }] }, append: false, lastChunk: true }),
        ),
      );
      this.published.set(ctx.taskId, i + 1);
      // Lets the server write (and notice a cancelled call) between events.
      await new Promise((r) => setImmediate(r));
    }
    bus.finished();
  }

  async cancelTask(taskId: string): Promise<void> {
    this.#cancelled.add(taskId);
  }
}

export async function startFloodGrpcPeer(): Promise<FloodGrpcPeer> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rpc = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    rpc.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const grpcTarget = `127.0.0.1:${port}`;
  const card = AgentCard.fromJSON({
    name: 'flood peer',
    description: 'streams without end',
    version: '1.0.0',
    supportedInterfaces: [{ url: grpcTarget, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'flood', name: 'Flood', description: 'floods', tags: ['test'] }],
  });
  const published = new Map<string, number>();
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new FloodExecutor(published));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  rpc.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  return {
    baseUrl,
    grpcTarget,
    published,
    close: () =>
      new Promise<void>((resolve) => {
        rpc.forceShutdown();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
