/**
 * A2A servers from npm that are not built on the `@a2a-js/sdk` server, on 127.0.0.1 random ports, their "LLM" a
 * deterministic echo. What they answer is theirs; only the HTTP glue and the echo are ours.
 *
 * - `@voltagent/a2a-server` (VoltAgent): its own JSON-RPC implementation of A2A 0.2/0.3 (message/send, message/stream,
 *   tasks/get, tasks/cancel). Tasks and stream events come without the `kind` discriminator, and a stream is a series of
 *   whole tasks. The package has no HTTP server of its own (VoltAgent's hono server mounts `handleRequest`), so a
 *   node:http listener mounts it here: the card at /.well-known/agent-card.json, the agent at /a2a/<agent id>.
 *   `@voltagent/core` (its peer) starts fetching a model registry from the internet when it is imported outside
 *   production, so it is imported with NODE_ENV=production: nothing leaves the loopback.
 * - `a2a-js` (0.2): its own express app (card at /.well-known/agent.json, JSON-RPC at /). The executor is the user's:
 *   it answers with A2A 0.1-era objects as the package's types describe them (parts typed with `type`, no `kind`), plus
 *   the messageId A2A 0.2 requires. It streams only over its own `message/sendStream` method, so its card says no
 *   streaming.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonRpcRequest } from '@voltagent/a2a-server';
import {
  A2AServer as A2aJsServer,
  DefaultA2ARequestHandler,
  InMemoryTaskStore,
  Role,
  TaskState,
  type AgentCard as A2aJsCard,
  type Task as A2aJsTask,
} from 'a2a-js';

export interface IndependentPeer {
  /** What `agent add` takes. */
  baseUrl: string;
  /** JSON-RPC bodies received, in order. */
  calls: Array<{ method: string }>;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closer = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** The text of a request's parts, whichever generation names their kind. */
const textOfParts = (parts: unknown): string =>
  Array.isArray(parts) ? parts.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('') : '';

/** The VoltAgent agent the A2A server calls: generateText / streamText answering `echo: <input>`, no model. */
function voltEchoAgent(id: string) {
  return {
    id,
    name: id,
    purpose: 'echoes what it is sent',
    getTools: () => [],
    generateText: async (input: string) => ({ text: `echo: ${input}`, finishReason: 'stop' }),
    streamText: async (input: string) => {
      const chunks = ['echo: ', input];
      return {
        textStream: (async function* () {
          yield* chunks;
        })(),
        text: Promise.resolve(chunks.join('')),
        finishReason: Promise.resolve('stop'),
      };
    },
  };
}

/** `@voltagent/a2a-server`, imported with NODE_ENV=production so that @voltagent/core fetches nothing on import. */
async function loadVoltAgent(): Promise<typeof import('@voltagent/a2a-server')> {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await import('@voltagent/a2a-server');
  } finally {
    process.env.NODE_ENV = previous;
  }
}

/** `@voltagent/a2a-server` serving one echo agent (`volt-echo`). */
export async function startVoltAgentPeer(agentId = 'volt-echo'): Promise<IndependentPeer> {
  const { A2AServer: VoltA2AServer } = await loadVoltAgent();
  const a2a = new VoltA2AServer({ name: 'voltagent-peer', version: '1.0.0', agents: { [agentId]: voltEchoAgent(agentId) as never } });
  a2a.initialize({ agentRegistry: { getAllAgents: () => [] } } as never);
  const calls: IndependentPeer['calls'] = [];
  let baseUrl = '';
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise; a throw in this test peer surfaces as an unhandled rejection, which fails the run
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(a2a.getAgentCard(agentId, { requestUrl: baseUrl })));
      return;
    }
    if (req.method !== 'POST' || path !== `/a2a/${agentId}`) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest;
    calls.push({ method: request.method });
    const result = await a2a.handleRequest(agentId, request, { requestUrl: `${baseUrl}${path}` });
    if ('kind' in result && result.kind === 'stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for await (const event of result.stream) res.write(`data: ${JSON.stringify(event)}\n\n`);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  });
  baseUrl = await listen(server);
  return { baseUrl, calls, close: closer(server) };
}

/** `a2a-js`'s express server with an echo executor written against its own types. */
export async function startA2aJsPeer(): Promise<IndependentPeer> {
  const store = new InMemoryTaskStore();
  const calls: IndependentPeer['calls'] = [];
  const executor = {
    async onMessageSend(request: { id: string | number; params: { id?: string; sessionId?: string; message: { parts: unknown } } }) {
      const text = textOfParts(request.params.message.parts);
      const task: A2aJsTask = {
        id: request.params.id ?? randomUUID(),
        sessionId: request.params.sessionId ?? randomUUID(),
        // a2a-js's Message type (A2A 0.1) has no messageId, which A2A 0.2+ requires and missive does not invent.
        status: {
          state: TaskState.Completed,
          message: { role: Role.Agent, messageId: randomUUID(), parts: [{ type: 'text', text: `echo: ${text}` }] } as A2aJsTask['status']['message'],
          timestamp: new Date().toISOString(),
        },
        history: [],
      };
      await store.save(task);
      return { jsonrpc: '2.0', id: request.id, result: task };
    },
    async *onMessageStream() {},
    async onCancel(request: { id: string | number }, task: A2aJsTask) {
      const canceled: A2aJsTask = { ...task, status: { state: TaskState.Canceled, timestamp: new Date().toISOString() } };
      return { jsonrpc: '2.0', id: request.id, result: canceled };
    },
    async *onResubscribe() {},
  };
  const server = createServer();
  const baseUrl = await listen(server);
  const card: A2aJsCard = {
    name: 'a2a-js-echo',
    description: 'echoes what it is sent',
    url: `${baseUrl}/`,
    version: '1.0.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
  };
  const app = new A2aJsServer(card, new DefaultA2ARequestHandler(executor as never, store)).app();
  server.on('request', (req, res) => {
    if (req.method === 'POST') calls.push({ method: 'POST' });
    app(req, res);
  });
  return { baseUrl, calls, close: closer(server) };
}
