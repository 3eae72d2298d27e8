/**
 * The A2A client: one object per connection with a typed method per operation (operations.ts). Under it is one
 * seam, `A2ATransport`, which each wire implements and each cross-cutting concern wraps with the same interface, the
 * way the A2A JS SDK's client stacks its `Transport` and decorators:
 *
 *   A2AClient (named methods)
 *   └ deadlined          deadline.ts, only with `deadline`: the time left before a shared deadline as the time limit
 *     └ reauthenticating reauth.ts: after a 401, renew the credentials and rebuild what is below, once
 *       └ tenanted       the interface's tenant on every request that names none
 *         └ wireTransport the wire of the interface, answers read once (unary-answer.ts):
 *                        1.0 HTTP+JSON / JSON-RPC: json-wire.ts (unary), sse.ts (streams)
 *                        v0.3 dialect (v0.3, v0.2 agents) and gRPC: sdk-transport.ts (the SDK's transports)
 *
 * Below the seam every wire shares the HTTP layer: wire capture, secret redaction, time limits and the wire limits
 * (wire-limits.ts) are applied per exchange there (http.ts, sdk-fetch.ts), because they see bytes, not operations.
 */
import type { BindingCall } from './binding-call.js';
import { deadlined } from './deadline.js';
import { viaSdk } from './interfaces.js';
import { jsonWireCall } from './json-wire.js';
import type {
  A2ATransport,
  CreatePushConfigParams,
  ExtendedCard,
  ListPushConfigsParams,
  ListTasksParams,
  PushConfigJson,
  PushConfigPage,
  PushConfigParams,
  SendAnswer,
  SendMessageParams,
  SequencedRecord,
  StreamOptions,
  TaskIdParams,
  TaskJson,
  TaskPage,
} from './operations.js';
import { reauthenticating } from './reauth.js';
import { openStreamOnce } from './sse.js';
import { readAnswer } from './unary-answer.js';

export interface A2AClient {
  sendMessage(params: SendMessageParams): Promise<SendAnswer>;
  sendMessageStream(params: SendMessageParams, options?: StreamOptions): AsyncGenerator<SequencedRecord>;
  getTask(params: TaskIdParams): Promise<TaskJson>;
  cancelTask(params: TaskIdParams): Promise<TaskJson>;
  listTasks(params: ListTasksParams): Promise<TaskPage>;
  /** Resubscribes to a task's updates (SubscribeToTask). */
  subscribe(params: TaskIdParams, options?: StreamOptions): AsyncGenerator<SequencedRecord>;
  createPushConfig(params: CreatePushConfigParams): Promise<PushConfigJson | null>;
  getPushConfig(params: PushConfigParams): Promise<PushConfigJson>;
  listPushConfigs(params: ListPushConfigsParams): Promise<PushConfigPage>;
  deletePushConfig(params: PushConfigParams): Promise<void>;
  getExtendedCard(): Promise<ExtendedCard>;
  /** The seam under the named methods, for code that goes by operation name (the conformance probe). */
  transport: A2ATransport;
}

/** The interface's wire, each answer read once into its typed form. */
export function wireTransport(call: BindingCall): A2ATransport {
  return {
    async unary(method, params) {
      const raw = viaSdk(call.iface) ? await (await import('./sdk-transport.js')).callViaSdk(call, method, params) : await jsonWireCall(call, method, params);
      return readAnswer(method, raw);
    },
    stream: (method, params, options) => openStreamOnce({ ...call, signal: options?.signal }, method, params),
  };
}

/** The decorator that gives every request the interface's tenant, unless it names one itself. */
export function tenanted(inner: A2ATransport, tenant: string | null | undefined): A2ATransport {
  if (!tenant) return inner;
  return {
    unary: (method, params) => inner.unary(method, params.tenant ? params : { tenant, ...params }),
    stream: (method, params, options) => inner.stream(method, params.tenant ? params : { tenant, ...params }, options),
  };
}

/** The named methods over a transport. */
export function clientOf(transport: A2ATransport): A2AClient {
  return {
    transport,
    sendMessage: (params) => transport.unary('SendMessage', params),
    sendMessageStream: (params, options) => transport.stream('SendStreamingMessage', params, options),
    getTask: (params) => transport.unary('GetTask', params),
    cancelTask: (params) => transport.unary('CancelTask', params),
    listTasks: (params) => transport.unary('ListTasks', params),
    subscribe: (params, options) => transport.stream('SubscribeToTask', params, options),
    createPushConfig: (params) => transport.unary('CreateTaskPushNotificationConfig', params),
    getPushConfig: (params) => transport.unary('GetTaskPushNotificationConfig', params),
    listPushConfigs: (params) => transport.unary('ListTaskPushNotificationConfigs', params),
    deletePushConfig: (params) => transport.unary('DeleteTaskPushNotificationConfig', params),
    getExtendedCard: () => transport.unary('GetExtendedAgentCard', {}),
  };
}

export interface ClientOptions {
  /** Epoch ms by which every call must be answered (a collective's shared deadline); absent: each call's own limit. */
  deadline?: number | null;
}

/** The client for a call's interface, with its decorators (deadline outermost, then reauth, then tenant, then the wire). */
export function a2aClient(call: BindingCall, options: ClientOptions = {}): A2AClient {
  const authenticated = (c: BindingCall) => reauthenticating(c, (renewed) => tenanted(wireTransport(renewed), renewed.iface.tenant));
  const { deadline } = options;
  return clientOf(deadline === undefined || deadline === null ? authenticated(call) : deadlined(call, deadline, authenticated));
}
