/**
 * The A2A wires missive does not write itself, through the official SDK: the v0.3 dialect (v0.3 and v0.2 agents) over
 * JSON-RPC and HTTP+JSON with the SDK's compat transports, and gRPC (v1.0 and v0.3) with its gRPC transports. Every
 * HTTP byte still goes through missive's undici dispatcher (`sdkFetch`). Requests come in and results go out as v1.0
 * JSON, exactly what the 1.0 wire code takes and returns, so persistence, outputs and exit codes cannot tell which wire
 * carried a call. Only one piece is missive's own: the v0.3 HTTP+JSON push-config create, whose body the SDK gets wrong
 * for v0.3 servers (see legacy-rest-push.ts). gRPC has no fetch to record, so its calls are recorded for the wire view
 * here (`call.wire`): the RPC, the target, the metadata, and the request and results as JSON.
 */
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { RequestOptions, Transport } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { v1MethodToLegacyGrpc, v1MethodToLegacyJsonRpc } from '@a2a-js/sdk/compat/v0_3';
import { MissiveError, protocolError } from '../../../shared/errors.js';
import { isTooDeep, tooDeepError } from '../security/json-depth.js';
import { redactUrl } from '../security/redact.js';
import { networkError, streamBrokenError } from './http.js';
import type { BindingCall } from './binding-call.js';
import type { OutgoingRequest, WireRecorder } from './wire.js';
import { createLegacyRestPushConfig } from './legacy-rest-push.js';
import { sdkFetch, type HttpTrace } from './sdk-fetch.js';
import { fromSdkError } from './sdk-errors.js';
import { grpcTransport } from './grpc-transport.js';
import { assertFewObjects, type StreamBudget } from './wire-limits.js';
import type { ParamsOf, StreamMethod, StreamOperations, UnaryMethod } from './operations.js';

type Params = object;

/** Each unary operation: typed v1.0 JSON params → SDK call → v1.0 JSON result (read once by unary-answer.ts). */
const UNARY: { [M in UnaryMethod]: (t: Transport, p: ParamsOf<M>, o: RequestOptions) => Promise<unknown> } = {
  SendMessage: async (t, p, o) => {
    const result = await t.sendMessage(SendMessageRequest.fromJSON(p), o);
    return 'messageId' in result ? { message: Message.toJSON(result) } : { task: Task.toJSON(result) };
  },
  GetTask: async (t, p, o) => Task.toJSON(await t.getTask(GetTaskRequest.fromJSON(p), o)),
  CancelTask: async (t, p, o) => Task.toJSON(await t.cancelTask(CancelTaskRequest.fromJSON(p), o)),
  ListTasks: async (t, p, o) => ListTasksResponse.toJSON(await t.listTasks(ListTasksRequest.fromJSON(p), o)),
  CreateTaskPushNotificationConfig: async (t, p, o) =>
    TaskPushNotificationConfig.toJSON(await t.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON(p), o)),
  GetTaskPushNotificationConfig: async (t, p, o) =>
    TaskPushNotificationConfig.toJSON(await t.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON(p), o)),
  ListTaskPushNotificationConfigs: async (t, p, o) =>
    ListTaskPushNotificationConfigsResponse.toJSON(await t.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON(p), o)),
  DeleteTaskPushNotificationConfig: async (t, p, o) => {
    await t.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON(p), o);
    return null;
  },
  // v0.3: `agent/getAuthenticatedExtendedCard` (JSON-RPC) or `GET /v1/card` (HTTP+JSON), translated to a 1.0 card by the SDK.
  GetExtendedAgentCard: async (t, p, o) => AgentCard.toJSON(await t.getExtendedAgentCard(GetExtendedAgentCardRequest.fromJSON(p), o)),
};

/** Operations A2A 0.3 does not have, and what to do instead. */
const NOT_IN_03: Partial<Record<string, string>> = {
  ListTasks: 'List what missive has journaled instead: missive task list --agent <alias> (without --remote).',
};

/** The v0.3 wire name of a method, for messages (`SendMessage` → `message/send`). */
function wireName(call: BindingCall, method: string): string | undefined {
  if (call.iface.dialect !== '0.3') return undefined;
  try {
    return v1MethodToLegacyJsonRpc(method);
  } catch {
    return undefined;
  }
}

/** A2A-Version, extensions and auth travel as service parameters: HTTP headers, or gRPC metadata. */
function serviceParameters(call: BindingCall): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'accept' || lower === 'content-type') continue;
    out[call.iface.binding === 'grpc' ? lower : name] = value;
  }
  return out;
}

/** The gRPC method path of an operation: `/lf.a2a.v1.A2AService/SendMessage` (1.0), `/a2a.v1.A2AService/…` (v0.3). */
export function grpcMethodPath(call: Pick<BindingCall, 'iface'>, method: string): string {
  if (call.iface.dialect !== '0.3') return `/lf.a2a.v1.A2AService/${method}`;
  try {
    return `/a2a.v1.A2AService/${v1MethodToLegacyGrpc(method)}`;
  } catch {
    return `/a2a.v1.A2AService/${method}`;
  }
}

/** A gRPC call as the wire view shows it, when the call is recorded: method path, target, metadata, request JSON. */
function grpcWire(call: BindingCall, method: string, params: Params, stream: boolean): WireRecorder | undefined {
  if (!call.wire || call.iface.binding !== 'grpc') return undefined;
  return call.wire.begin(
    method,
    { protocol: 'grpc', method: grpcMethodPath(call, method), url: call.iface.url, headers: serviceParameters(call), body: JSON.stringify(params), stream },
    call.secrets,
  );
}

/** gRPC status OK: what a recorded gRPC exchange shows as its status once results arrive. */
const GRPC_OK = 0;

interface Prepared {
  transport: Transport;
  options: RequestOptions;
  trace: HttpTrace;
  timedOut: () => boolean;
  /** gRPC: restarts the time limit (after each stream event). */
  rearm: () => void;
  done: () => void;
  /** Closes whatever is still open (a stream the caller stopped reading). */
  abort: () => void;
}

/**
 * The SDK transport for the interface, with missive's time limits: HTTP is limited inside sdkFetch; gRPC has no fetch,
 * so the whole unary call, or each wait for the next stream event, is limited here.
 */
async function prepare(call: BindingCall, method: string, signal?: AbortSignal, budget?: StreamBudget): Promise<Prepared> {
  const trace: HttpTrace = { status: null, url: null };
  const { iface } = call;
  const fetchImpl = sdkFetch({ call, method, trace, budget });
  const transport: Transport =
    iface.binding === 'grpc'
      ? await grpcTransport(iface, call.grpcTls)
      : iface.binding === 'json-rpc'
        ? new LegacyJsonRpcTransport({ endpoint: iface.url, fetchImpl })
        : new LegacyRestTransport({ endpoint: iface.url, fetchImpl });
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const rearm = () => {
    if (iface.binding !== 'grpc') return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException(`no answer within ${call.timeoutMs} ms`, 'TimeoutError'));
    }, call.timeoutMs).unref();
  };
  rearm();
  return {
    transport,
    options: { signal: controller.signal, serviceParameters: serviceParameters(call) },
    trace,
    timedOut: () => timedOut,
    rearm,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
    abort: () => controller.abort(new DOMException('the stream was closed by missive', 'AbortError')),
  };
}

function refuseMissing(call: BindingCall, method: string): void {
  const instead = call.iface.dialect === '0.3' ? NOT_IN_03[method] : undefined;
  if (instead) {
    throw protocolError(
      'not_in_dialect',
      `${method} is not part of A2A 0.3, which ${call.alias ? `"${call.alias}"` : 'this agent'} speaks`,
      instead.replace('<alias>', call.alias ?? '<alias>'),
    );
  }
}

/**
 * A gRPC answer as v1.0 JSON, refused when it nests deeper than MAX_JSON_DEPTH or holds more JSON objects than
 * `[qos] max_answer_objects`, before missive reads or records it; returns its JSON text (what a stream's budget counts
 * and the wire view shows), undefined on the JSON wires. sdkFetch bounds the JSON wires; the protobuf decoder has no depth limit: a
 * google.protobuf.Struct 1,000 deep decodes but the journal cannot store it (one deeper still overflows the decoder,
 * which sdk-errors.ts reports as too_deeply_nested). grpc-js refuses a message over 4 MiB before it is decoded.
 */
function boundedGrpc(call: BindingCall, value: unknown, what: string): string | undefined {
  if (call.iface.binding !== 'grpc') return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeepError(`${what} from ${redactUrl(call.iface.url)}`);
    throw error;
  }
  if (text === undefined) return undefined;
  if (isTooDeep(text)) throw tooDeepError(`${what} from ${redactUrl(call.iface.url)}`);
  assertFewObjects(text, what, call);
  return text;
}

/** One unary operation over the SDK; returns the v1.0 JSON result (null for a delete). */
export async function callViaSdk<M extends UnaryMethod>(call: BindingCall, method: M, params: ParamsOf<M>): Promise<unknown> {
  refuseMissing(call, method);
  if (method === 'CreateTaskPushNotificationConfig' && call.iface.binding === 'http+json' && call.iface.dialect === '0.3') {
    return createLegacyRestPushConfig(call, params as ParamsOf<'CreateTaskPushNotificationConfig'>);
  }
  const prepared = await prepare(call, method);
  const wire = grpcWire(call, method, params, false);
  try {
    const result = await (UNARY[method] as (t: Transport, p: ParamsOf<M>, o: RequestOptions) => Promise<unknown>)(prepared.transport, params, prepared.options);
    // Serialised once: checked, then shown in the wire view (recorded on gRPC only, where it is made).
    const text = boundedGrpc(call, result, `the ${method} answer`);
    wire?.response(GRPC_OK, {});
    wire?.body(text ?? null);
    wire?.end();
    return result;
  } catch (error) {
    const failure = fromSdkError(error, {
      call,
      method,
      wireMethod: wireName(call, method),
      url: call.iface.url,
      trace: prepared.trace,
      timedOut: prepared.timedOut(),
    });
    wire?.fail(failure);
    throw failure;
  } finally {
    prepared.done();
  }
}

/** A connection that dropped or stalled, as opposed to an answer the agent gave. */
function isNetworkFailure(error: unknown): boolean {
  const e = error as { name?: string; message?: string; cause?: { code?: unknown } } | null;
  if (!e) return false;
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return true;
  const code = typeof e.cause?.code === 'string' ? e.cause.code : '';
  return (
    code.startsWith('UND_ERR') || code.startsWith('ECONN') || (e.name === 'TypeError' && /terminated|fetch failed|other side closed/i.test(e.message ?? ''))
  );
}

/** Why a stream over the SDK stopped: a broken connection (with how many events arrived), else the SDK error mapped. */
function streamFailure(error: unknown, call: BindingCall, method: StreamMethod, prepared: Prepared, received: number): MissiveError {
  if (!(error instanceof MissiveError) && isNetworkFailure(error) && !prepared.timedOut()) {
    const where = redactUrl(call.iface.url);
    return streamBrokenError(where, received, networkError(error, where, call.timeoutMs, call.secrets));
  }
  return fromSdkError(error, { call, method, wireMethod: wireName(call, method), url: call.iface.url, trace: prepared.trace, timedOut: prepared.timedOut() });
}

/**
 * A stream over the SDK: yields each StreamResponse as v1.0 JSON. Breaking out of the loop closes it. `budget` counts
 * the bytes received: sdkFetch counts them on the HTTP wires, here each gRPC event's JSON.
 */
export async function* streamViaSdk<M extends StreamMethod>(
  call: BindingCall,
  method: M,
  params: StreamOperations[M],
  signal?: AbortSignal,
  budget?: StreamBudget,
): AsyncGenerator<unknown> {
  const prepared = await prepare(call, method, signal, budget);
  const { transport, options } = prepared;
  const events =
    method === 'SendStreamingMessage'
      ? transport.sendMessageStream(SendMessageRequest.fromJSON(params), options)
      : transport.resubscribeTask(SubscribeToTaskRequest.fromJSON(params), options);
  const wire = grpcWire(call, method, params, true);
  let received = 0;
  try {
    for await (const event of events) {
      received++;
      prepared.rearm();
      const value = StreamResponse.toJSON(event);
      // Serialised once on gRPC: checked, counted against the budget, shown in the wire view (which only gRPC records
      // here; sdkFetch counts and records the HTTP wires).
      const text = boundedGrpc(call, value, `event #${received} of the ${method} stream`);
      if (text !== undefined) {
        budget?.bytes(Buffer.byteLength(text));
        if (wire) {
          if (received === 1) wire.response(GRPC_OK, {});
          wire.frame(null, text);
        }
      }
      yield value;
    }
    if (wire && received === 0) wire.response(GRPC_OK, {});
  } catch (error) {
    const failure = streamFailure(error, call, method, prepared, received);
    wire?.fail(failure);
    throw failure;
  } finally {
    wire?.end();
    prepared.done();
    prepared.abort();
  }
}

/**
 * The HTTP request the SDK's v0.3 transport (JSON-RPC or HTTP+JSON) writes for a send or stream, caught before it
 * leaves: nothing is sent. What requests.preview renders for a v0.3 agent.
 */
export async function legacyHttpRequest(
  call: BindingCall,
  method: 'SendMessage' | 'SendStreamingMessage',
  params: ParamsOf<'SendMessage'>,
): Promise<OutgoingRequest> {
  let captured: OutgoingRequest | undefined;
  const held = new Error('held back: a preview sends nothing');
  const fetchImpl = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = [...new Headers(init.headers as ConstructorParameters<typeof Headers>[0]).entries()];
    captured = { protocol: 'http', method: init.method ?? 'GET', url, headers, body: typeof init.body === 'string' ? init.body : null };
    throw held;
  }) as unknown as typeof fetch;
  const transport =
    call.iface.binding === 'json-rpc'
      ? new LegacyJsonRpcTransport({ endpoint: call.iface.url, fetchImpl })
      : new LegacyRestTransport({ endpoint: call.iface.url, fetchImpl });
  const options: RequestOptions = { serviceParameters: serviceParameters(call) };
  const request = SendMessageRequest.fromJSON(params);
  try {
    if (method === 'SendMessage') await transport.sendMessage(request, options);
    else for await (const _ of transport.sendMessageStream(request, options)) break;
  } catch (error) {
    if (!captured)
      throw fromSdkError(error, { call, method, wireMethod: wireName(call, method), url: call.iface.url, trace: { status: null, url: null }, timedOut: false });
  }
  if (!captured) throw new MissiveError('internal', 'preview_not_captured', `the SDK wrote no ${method} request for ${redactUrl(call.iface.url)}`);
  return captured;
}
