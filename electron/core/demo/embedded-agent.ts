/**
 * An embedded A2A v1.0 agent built on the official SDK server (hosted by agent-host.ts): JSON-RPC at /a2a/jsonrpc,
 * HTTP+JSON at /a2a/rest, optionally gRPC on a port of its own, and the Agent Card at /.well-known/agent-card.json, on
 * 127.0.0.1 and random ports. It backs `missive demo` and the tests.
 *
 * It answers v0.3 clients too, through the SDK's v0.3 compatibility layer (`legacyCompat`): the card lists each HTTP
 * URL a second time with protocolVersion 0.3 (JSON-RPC first, the binding every v0.3 client speaks), so a client asking
 * for the card without `A2A-Version` (or with 0.3) gets the v0.3 shape (url, preferredTransport,
 * additionalInterfaces); JSON-RPC tells the versions apart by that header, HTTP+JSON by the v0.3 `/v1/…` paths.
 */
import { randomUUID } from 'node:crypto';
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { hostInterfaces, startAgentHost, type CardBuilder } from './agent-host.js';

/**
 * echo: a direct Message; task: a completed Task with an artifact (with `failOnRequest`, a failed one when the text
 * starts with "fail"); input: a Task that asks for more input; chunks: a Task whose artifact arrives in `chunks` appended pieces;
 * fail: a Task that fails; slow: a completed Task after `delayMs`, or after the duration the text names
 * ("take 60s", at most 10 minutes), cancellable meanwhile; reducer: a Message that condenses a reduce prompt (one line
 * per `### rank (agent)` input block).
 */
export type AgentBehaviour = 'echo' | 'task' | 'input' | 'chunks' | 'fail' | 'slow' | 'reducer';

export interface EmbeddedAgentOptions {
  name?: string;
  behaviour?: AgentBehaviour;
  streaming?: boolean;
  /** Accept push notification configs and deliver callbacks with the SDK's push sender (v0.3 bodies to v0.3 configs). */
  pushNotifications?: boolean;
  skills?: Array<{ id: string; name: string; tags?: string[]; description?: string }>;
  host?: string;
  /** Artifact chunks for `chunks` (default 5). */
  chunks?: number;
  /** Delay before answering, for `slow` (default 2000 ms); other behaviours answer at once unless set. */
  delayMs?: number;
  /** Also serve gRPC (the SDK's gRPC service) on another loopback port, listed in the card after the HTTP bindings. */
  grpc?: boolean;
  /** `task`: a message whose text starts with "fail" gets a failed task (the demo's failure on request). */
  failOnRequest?: boolean;
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
  /** `host:port` of the gRPC service, when `grpc` was asked for. */
  grpcTarget: string | null;
  card: unknown;
  requests: RecordedRequest[];
  close(): Promise<void>;
  /** Simulates an outage: stops listening and drops every connection, keeping tasks and running work. */
  pause(): Promise<void>;
  /** Listens again on the same port, with the same tasks. */
  resume(): Promise<void>;
}

const textOf = (message: Message) =>
  message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');

const SKILL_NAMES: Record<AgentBehaviour, string> = {
  echo: 'Echo',
  task: 'Task runner',
  input: 'Asks for input',
  chunks: 'Streams chunks',
  fail: 'Always fails',
  slow: 'Slow worker',
  reducer: 'Reducer',
};

/** The reducer's answer: how many input blocks the prompt held, and the first text line of each. */
function condense(prompt: string): string {
  const blocks = prompt.split(/^### /m).slice(1);
  const lines = blocks.map((b) => {
    const [head, ...rest] = b.split('\n');
    const text = rest.find((l) => l.trim() && !l.startsWith('status:')) ?? '';
    return `- ${head!.trim()}: ${text.trim()}`;
  });
  return [`Reduced ${blocks.length} input(s):`, ...lines].join('\n');
}

/** The longest a `slow` agent works on a message that names a duration ("take 10m"). */
export const MAX_SLOW_MS = 10 * 60_000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** The duration a message asks a `slow` agent to take ("take 60s", "take 1.5m", "take 500ms"), capped; or null. */
export function requestedDelayMs(text: string): number | null {
  const match = /\btake\s+(\d+(?:\.\d+)?)\s*(ms|s|m)\b/i.exec(text);
  return match ? Math.min(Math.round(Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]!), MAX_SLOW_MS) : null;
}

class DemoExecutor implements AgentExecutor {
  readonly #cancelled = new Set<string>();
  /** Tasks waiting out their delay: wakes each one early (on cancel or close), with its context id. */
  readonly #waiting = new Map<string, { wake: () => void; contextId: string }>();
  constructor(
    private readonly behaviour: AgentBehaviour,
    private readonly options: { chunks: number; delayMs: number; failOnRequest: boolean },
  ) {}

  /** Waits `ms` unless the task is cancelled (or the agent closed) first; the timer never holds the process open. */
  #delay(taskId: string, contextId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiting.delete(taskId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.#waiting.set(taskId, { wake, contextId });
    });
  }

  /** Ends every wait at once, as if each task were cancelled (the agent is closing). */
  stop(): void {
    for (const [taskId, { wake }] of this.#waiting) {
      this.#cancelled.add(taskId);
      wake();
    }
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage);
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const agentMessage = (value: string) => ({ messageId: randomUUID(), ...ids, role: 'ROLE_AGENT', parts: [{ text: value }] });
    const status = (state: string, message?: string, final = false) =>
      bus.publish(
        AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state, ...(message ? { message: agentMessage(message) } : {}) }, final })),
      );
    const delayMs = (this.behaviour === 'slow' ? requestedDelayMs(text) : null) ?? this.options.delayMs;
    if (delayMs > 0) {
      if (this.behaviour === 'slow') {
        bus.publish(
          AgentEvent.task(
            Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_WORKING' }, history: [Message.toJSON(ctx.userMessage)] }),
          ),
        );
      }
      await this.#delay(ctx.taskId, ctx.contextId, delayMs);
      if (this.#cancelled.delete(ctx.taskId)) return bus.finished();
    }
    if (this.behaviour === 'reducer') {
      bus.publish(
        AgentEvent.message(Message.fromJSON({ messageId: randomUUID(), contextId: ctx.contextId, role: 'ROLE_AGENT', parts: [{ text: condense(text) }] })),
      );
      return bus.finished();
    }
    if (this.behaviour === 'echo') {
      bus.publish(
        AgentEvent.message(Message.fromJSON({ messageId: randomUUID(), contextId: ctx.contextId, role: 'ROLE_AGENT', parts: [{ text: `echo: ${text}` }] })),
      );
      return bus.finished();
    }
    if (this.behaviour !== 'slow' || delayMs <= 0) {
      bus.publish(
        AgentEvent.task(
          Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [Message.toJSON(ctx.userMessage)] }),
        ),
      );
    }
    if (this.behaviour === 'input') {
      status('TASK_STATE_INPUT_REQUIRED', 'which file?', true);
      return bus.finished();
    }
    if (this.behaviour === 'fail' || (this.behaviour === 'task' && this.options.failOnRequest && /^\s*fail/i.test(text))) {
      status('TASK_STATE_FAILED', `cannot do: ${text}`, true);
      return bus.finished();
    }
    status('TASK_STATE_WORKING');
    const pieces = this.behaviour === 'chunks' ? Math.max(1, this.options.chunks) : 1;
    for (let i = 0; i < pieces; i++) {
      const chunk = this.behaviour === 'chunks' ? `chunk ${i + 1} of ${pieces} for: ${text}\n` : `result for: ${text}`;
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            artifact: { artifactId: 'result', name: 'result.txt', parts: [{ text: chunk, mediaType: 'text/plain' }] },
            append: i > 0,
            lastChunk: i === pieces - 1,
          }),
        ),
      );
    }
    status('TASK_STATE_COMPLETED', `done: ${text}`, true);
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.#cancelled.add(taskId);
    const waiting = this.#waiting.get(taskId);
    waiting?.wake();
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId, ...(waiting ? { contextId: waiting.contextId } : {}), status: { state: 'TASK_STATE_CANCELED' }, final: true }),
      ),
    );
    bus.finished();
  }
}

export async function startEmbeddedAgent(options: EmbeddedAgentOptions = {}): Promise<EmbeddedAgent> {
  const requests: RecordedRequest[] = [];
  const executor = new DemoExecutor(options.behaviour ?? 'echo', {
    chunks: options.chunks ?? 5,
    delayMs: options.delayMs ?? (options.behaviour === 'slow' ? 2000 : 0),
    failOnRequest: options.failOnRequest === true,
  });
  const buildCard: CardBuilder = ({ baseUrl, grpcTarget }) => ({
    name: options.name ?? 'missive demo agent',
    description: `An embedded ${options.behaviour ?? 'echo'} agent for trying missive.`,
    version: '1.0.0',
    provider: { organization: 'missive (embedded demo)' },
    supportedInterfaces: hostInterfaces(baseUrl, grpcTarget),
    capabilities: { streaming: options.streaming ?? true, pushNotifications: options.pushNotifications ?? false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: (options.skills ?? [{ id: options.behaviour ?? 'echo', name: SKILL_NAMES[options.behaviour ?? 'echo'], tags: ['demo'] }]).map((s) => ({
      description: s.description ?? s.name,
      ...s,
    })),
  });
  const host = await startAgentHost(buildCard, executor, {
    host: options.host,
    bindings: options.grpc ? ['http+json', 'json-rpc', 'grpc'] : ['http+json', 'json-rpc'],
    versions: ['1.0', '0.3'],
    pushNotifications: options.pushNotifications,
    onRequest: (req) => requests.push({ method: req.method, path: req.path, headers: { ...req.headers } }),
  });
  return {
    baseUrl: host.baseUrl,
    jsonRpcUrl: host.jsonRpcUrl,
    restUrl: host.restUrl,
    grpcTarget: host.grpcTarget,
    card: host.card,
    requests,
    close: async () => {
      executor.stop();
      await host.close();
    },
    pause: host.pause,
    resume: host.resume,
  };
}
