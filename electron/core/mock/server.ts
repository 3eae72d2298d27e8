/**
 * `missive mock serve`: an A2A agent on the SDK server (demo/agent-host.ts) that answers what a recorded agent
 * answered. Each SendMessage / SendStreamingMessage is matched (match.ts) before the executor runs: a match is
 * replayed by replay-executor.ts, a miss is answered with the A2A error UnsupportedOperation (JSON-RPC -32004, HTTP 400
 * with reason UNSUPPORTED_OPERATION, gRPC UNIMPLEMENTED) whose message names the closest recorded request, and an
 * exchange the agent answered with an A2A error is answered with that error. Push configs are accepted: the SDK's push
 * store and legacy-aware sender call back each replayed event.
 */
import { Message, type SendMessageRequest } from '@a2a-js/sdk';
import * as sdkErrors from '@a2a-js/sdk/errors';
import type { A2AError } from '@a2a-js/sdk/errors';
import { MissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { JsonObject } from '../a2a/operations.js';
import { A2A_ERROR_SPECS } from '../a2a/a2a-errors.js';
import { startAgentHost, hostInterfaces, type CardBuilder, type HostBinding, type HostVersion } from '../demo/agent-host.js';
import { createMatcher, requestText } from './match.js';
import { ReplayExecutor, recordedIds, type Latency } from './replay-executor.js';
import type { MatchMode, RecordedExchange, Recording } from './recording.js';

export interface MockServeOptions {
  recording: Recording;
  port?: number;
  host?: string;
  bindings?: readonly HostBinding[];
  versions?: readonly HostVersion[];
  latency?: Latency;
  match?: MatchMode;
  strict?: boolean;
}

export interface MockShutdown {
  /** The matcher's diff (empty when every request matched), with the exchanges never served under --strict. */
  diff: string;
  misses: number;
  /** Indexes of the recorded exchanges no request was answered with. */
  unserved: number[];
}

export interface MockServer {
  url: string;
  port: number;
  /** The card as served (A2A 1.0 JSON). */
  card: Record<string, unknown>;
  cardUrl: string;
  bindings: HostBinding[];
  versions: HostVersion[];
  grpcTarget: string | null;
  close(): Promise<MockShutdown>;
}

const clip = (text: string, max = 80) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** The A2A error a miss is answered with: UnsupportedOperation, naming the closest recorded request. */
export function missError(text: string, closest: RecordedExchange | null, reason: string): A2AError {
  const near = closest ? `; closest: #${closest.index} "${clip(closest.text)}"` : '; the recording has no request to compare';
  // The matcher's reason ends with why the closest one is not it ("(normalised text differs)"): that part is kept.
  const why = /\(([^()]+)\)\s*$/.exec(reason)?.[1];
  return new sdkErrors.UnsupportedOperationError(`mock: no recorded request matches "${clip(text)}"${near}${why ? ` (${why})` : ''}`);
}

/** The A2A error a recorded exchange was answered with (its class by name; UnsupportedOperation when unknown). */
function recordedError(error: NonNullable<RecordedExchange['error']>): A2AError {
  const named = (error as { a2a?: string }).a2a ?? A2A_ERROR_SPECS.find((s) => error.code.endsWith(`::${s.code}`) || error.code === s.code)?.name;
  const ErrorClass =
    (named && (sdkErrors as unknown as Record<string, typeof sdkErrors.UnsupportedOperationError>)[`${named}Error`]) || sdkErrors.UnsupportedOperationError;
  return new ErrorClass(error.message);
}

/**
 * The mock's card: the recorded one pointed at the mock (no signatures; no security, or this launch's bearer scheme with
 * `bearer`), or a minimal one naming the agent.
 */
export function mockCardBuilder(
  recording: Recording,
  bindings: readonly HostBinding[],
  versions: readonly HostVersion[],
  options: { about?: string; push?: boolean; bearer?: boolean } = {},
): CardBuilder {
  const recorded = recording.card ?? {};
  const streams = recording.exchanges.some((e) => e.operation === 'stream');
  const about = options.about ?? `A missive mock of "${recording.agent}", replaying ${recording.source}.`;
  return ({ baseUrl, grpcTarget }) => {
    // Dropped: the mock asks for no credentials, signs nothing, and lists only its own interfaces.
    const { securitySchemes, securityRequirements, security, signatures, supportedInterfaces, url, additionalInterfaces, ...kept } = recorded as JsonObject;
    const capabilities = (kept.capabilities as JsonObject | undefined) ?? {};
    return {
      version: '1.0.0',
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'replay', name: 'Replay', description: `Answers what ${recording.agent} answered`, tags: ['mock'] }],
      ...kept,
      name: typeof kept.name === 'string' && kept.name ? kept.name : recording.agent,
      description: typeof kept.description === 'string' && kept.description ? `${about} ${kept.description}` : about,
      supportedInterfaces: hostInterfaces(baseUrl, grpcTarget, bindings, versions),
      ...(options.bearer
        ? { securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] }
        : {}),
      capabilities: {
        ...capabilities,
        streaming: capabilities.streaming === true || streams,
        pushNotifications: options.push ?? true,
        extendedAgentCard: false,
      },
    };
  };
}

/** A host that cannot listen, as a missive error (`transport::listen_failed`; EADDRINUSE: pick another port). */
export function listenFailed(error: unknown, host: string | undefined, port: number | undefined): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (!code) return error;
  return new MissiveError('transport', 'listen_failed', `the mock cannot listen on ${host ?? '127.0.0.1'}:${port ?? 0}: ${code}`, {
    help: code === 'EADDRINUSE' ? 'Pick another --port, or leave it out for a free one.' : undefined,
  });
}

export async function serveMock(_core: Core, options: MockServeOptions): Promise<MockServer> {
  const { recording } = options;
  const bindings = [...(options.bindings ?? ['http+json', 'json-rpc', 'grpc'])];
  const versions = [...(options.versions ?? ['1.0', '0.3'])];
  const matcher = createMatcher(recording, options.match ?? 'normalised');
  const matched = new Map<string, RecordedExchange>();
  const served = new Set<number>();
  let misses = 0;
  /** Live task ids the mock handed out → the recorded task id each stands for (what the matcher compares). */
  const recordedTask = new Map<string, string>();
  const executor = new ReplayExecutor(
    (messageId) => {
      const exchange = matched.get(messageId);
      matched.delete(messageId);
      return exchange;
    },
    options.latency ?? 'recorded',
    (exchange, liveTaskId) => {
      const [first] = recordedIds(exchange).tasks;
      if (first && !recordedTask.has(liveTaskId)) recordedTask.set(liveTaskId, first);
    },
  );
  const beforeSend = (params: SendMessageRequest, operation: 'send' | 'stream') => {
    if (!params.message) return;
    const live = Message.toJSON(params.message) as JsonObject;
    const request = { ...live, ...(typeof live.taskId === 'string' && live.taskId ? { taskId: recordedTask.get(live.taskId) ?? live.taskId } : {}) };
    const result = matcher.match(request, operation);
    if (!result.exchange) {
      misses++;
      throw missError(requestText(live), result.closest, result.reason);
    }
    served.add(result.exchange.index);
    if (result.exchange.error) throw recordedError(result.exchange.error);
    matched.set(String(live.messageId), result.exchange);
  };
  const host = await startAgentHost(mockCardBuilder(recording, bindings, versions), executor, {
    host: options.host,
    port: options.port ?? 0,
    bindings,
    versions,
    pushNotifications: true,
    beforeSend,
  }).catch((error: unknown) => {
    throw listenFailed(error, options.host, options.port);
  });
  return {
    url: host.baseUrl,
    port: Number(new URL(host.baseUrl).port),
    card: host.card,
    cardUrl: `${host.baseUrl}/.well-known/agent-card.json`,
    bindings,
    versions,
    grpcTarget: host.grpcTarget,
    async close() {
      executor.stop();
      await host.close();
      const unserved = recording.exchanges.filter((e) => !served.has(e.index)).map((e) => e.index);
      let diff = matcher.diff();
      if (options.strict && unserved.length && !diff) {
        diff = ['exchanges never served:', ...unserved.map((i) => `  #${i} "${clip(recording.exchanges.find((e) => e.index === i)?.text ?? '')}"`)].join('\n');
      }
      return { diff, misses, unserved };
    },
  };
}
