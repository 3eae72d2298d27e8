/**
 * Every A2A operation missive calls, with its request and its answer typed once. Requests are A2A 1.0 JSON (what the
 * 1.0 wire sends as it is and the SDK's codecs read for the v0.3 and gRPC wires); answers are what the one decoder
 * (unary-answer.ts) makes of the agent's JSON: the SDK codecs' canonical form, or, where a caller journals what the
 * agent sent, that JSON beside it. Adding an operation starts here (see docs/architecture.md, "How to add an A2A
 * operation").
 */
import type { ParsedCard } from './card.js';
import type { StreamRecord } from './stream-response.js';

/** Any JSON value, as parsed from an answer. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object (a message, a task, a part) as the SDK codec writes it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the codec's canonical JSON, read field by field by callers that check each field they use
export type JsonObject = Record<string, any>;

/** A2A 1.0 `Task` JSON after the SDK codec. */
export interface TaskJson {
  id: string;
  contextId?: string;
  status?: { state?: string; message?: JsonObject; timestamp?: string };
  artifacts?: JsonObject[];
  history?: unknown[];
  [field: string]: unknown;
}

/** A2A 1.0 `TaskPushNotificationConfig` JSON. */
export interface PushConfigJson {
  taskId?: string;
  id?: string;
  url?: string;
  token?: string;
  authentication?: { scheme?: string; credentials?: string };
  [field: string]: unknown;
}

/** Sent to every operation: the interface's tenant (the tenant decorator fills it in). */
interface Tenanted {
  tenant?: string;
}

export interface SendMessageParams extends Tenanted {
  message: JsonObject;
  configuration?: { acceptedOutputModes?: string[]; returnImmediately?: boolean; taskPushNotificationConfig?: { url: string; token?: string } };
  metadata?: JsonObject;
}

export interface TaskIdParams extends Tenanted {
  id: string;
  historyLength?: number;
}

export interface ListTasksParams extends Tenanted {
  contextId?: string;
  /** A wire task state (`TASK_STATE_WORKING`). */
  status?: string;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  includeArtifacts?: boolean;
}

export interface PushConfigParams extends Tenanted {
  taskId: string;
  id: string;
}

export interface ListPushConfigsParams extends Tenanted {
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

export type CreatePushConfigParams = PushConfigJson & Tenanted & { taskId: string };

/** A SendMessage answer: a task or a direct message (canonical JSON). */
export type SendAnswer = { task: TaskJson; message?: undefined } | { task?: undefined; message: JsonObject };

export interface TaskPage {
  tasks: TaskJson[];
  nextPageToken: string | null;
  totalSize: number | null;
}

export interface PushConfigPage {
  configs: PushConfigJson[];
  nextPageToken: string | null;
}

/** The extended card, read, with the JSON it was read from (its signature covers that JSON; the output shows it). */
export interface ExtendedCard {
  card: ParsedCard;
  raw: Json;
}

/** Each unary operation (its A2A 1.0 method name): what goes in, what comes back. */
export interface UnaryOperations {
  SendMessage: { params: SendMessageParams; answer: SendAnswer };
  GetTask: { params: TaskIdParams; answer: TaskJson };
  CancelTask: { params: TaskIdParams; answer: TaskJson };
  ListTasks: { params: ListTasksParams; answer: TaskPage };
  /** The answer is the config as the agent sent it (journaled), null when it answered with no body ("as asked"). */
  CreateTaskPushNotificationConfig: { params: CreatePushConfigParams; answer: PushConfigJson | null };
  GetTaskPushNotificationConfig: { params: PushConfigParams; answer: PushConfigJson };
  ListTaskPushNotificationConfigs: { params: ListPushConfigsParams; answer: PushConfigPage };
  DeleteTaskPushNotificationConfig: { params: PushConfigParams; answer: void };
  GetExtendedAgentCard: { params: Tenanted; answer: ExtendedCard };
}

export type UnaryMethod = keyof UnaryOperations;
export type ParamsOf<M extends UnaryMethod> = UnaryOperations[M]['params'];
export type AnswerOf<M extends UnaryMethod> = UnaryOperations[M]['answer'];

/** Each streaming operation: what goes in; every event comes back as a checked StreamResponse record. */
export interface StreamOperations {
  SendStreamingMessage: SendMessageParams;
  SubscribeToTask: TaskIdParams;
}

export type StreamMethod = keyof StreamOperations;

/** One event of a stream, checked: its StreamResponse record and its 1-based position in the stream. */
export interface SequencedRecord extends StreamRecord {
  sequence: number;
}

export interface StreamOptions {
  /** Aborts the stream (the command's overall deadline, Ctrl-C). */
  signal?: AbortSignal;
}

/**
 * The one seam every wire implements and every decorator wraps (client.ts): one typed unary call and one typed stream,
 * each keyed by its operation. `A2AClient` is the same seam with a method per operation.
 */
export interface A2ATransport {
  unary<M extends UnaryMethod>(method: M, params: ParamsOf<M>): Promise<AnswerOf<M>>;
  stream<M extends StreamMethod>(method: M, params: StreamOperations[M], options?: StreamOptions): AsyncGenerator<SequencedRecord>;
}
