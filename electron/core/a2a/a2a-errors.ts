/**
 * The A2A errors (A2A 1.0 §3.3.2 and §5.4; A2A 0.3 §8.2) and how each is known on every binding, mapped to one missive
 * error: one stable code, one exit code, one help, whatever wire carried it.
 *
 * | identity | JSON-RPC | HTTP+JSON | gRPC |
 * | --- | --- | --- | --- |
 * | 1.0 | `error.code` -32001…-32009 (an ErrorInfo `reason` in `error.data` when the code is another) | `google.rpc.ErrorInfo` `reason` in `error.details` | ErrorInfo `reason` in the status details |
 * | 0.3 | `error.code` -32001…-32007 | a body `{code: -3200x, message}` | ErrorInfo when sent; a `<Name>Error: …` status detail (the Python SDK); else the status where one operation makes it unique |
 *
 * The SDK decodes the 1.0 and 0.3 shapes of its transports into errors carrying the same `reason`, so one lookup
 * serves missive's own wire code and the SDK's.
 */
import { MissiveError, protocolError } from '../../../shared/errors.js';
import { redactUrl } from '../security/redact.js';
import { oneLine } from './remote-text.js';

export type A2AErrorName =
  | 'TaskNotFound'
  | 'TaskNotCancelable'
  | 'PushNotificationNotSupported'
  | 'UnsupportedOperation'
  | 'ContentTypeNotSupported'
  | 'InvalidAgentResponse'
  | 'ExtendedAgentCardNotConfigured'
  | 'ExtensionSupportRequired'
  | 'VersionNotSupported';

export interface A2AErrorSpec {
  name: A2AErrorName;
  /** The google.rpc.ErrorInfo `reason` (A2A 1.0 §10.6 / §11.6). */
  reason: string;
  /** The JSON-RPC `error.code` (1.0 §5.4; 0.3 §8.2 for -32001…-32007). */
  jsonRpcCode: number;
  /** The reason part of missive's stable code: `missive::protocol::<code>`. */
  code: string;
  /** What the agent said, as the first half of the message. */
  says: string;
  /** The help line; `<agent>` is the agent's alias. */
  help: string;
}

/** Every A2A error is a protocol error: the agent answered, and its answer was that error (exit 76). */
export const A2A_ERROR_SPECS: readonly A2AErrorSpec[] = [
  {
    name: 'TaskNotFound',
    reason: 'TASK_NOT_FOUND',
    jsonRpcCode: -32001,
    code: 'task_not_found',
    says: 'the agent has no task with that id',
    help: 'Check the task id (missive task list shows the tasks missive journaled); the agent may have expired or purged the task.',
  },
  {
    name: 'TaskNotCancelable',
    reason: 'TASK_NOT_CANCELABLE',
    jsonRpcCode: -32002,
    code: 'task_not_cancelable',
    says: 'the agent cannot cancel the task in its current state',
    help: 'The task has probably ended already: see its state with missive task get <task-id> --agent <agent>.',
  },
  {
    name: 'PushNotificationNotSupported',
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    jsonRpcCode: -32003,
    code: 'push_notification_not_supported',
    says: 'the agent does not support push notifications',
    help: 'Follow the task with missive task wait or missive stream instead; missive agent capabilities <agent> shows what the agent offers.',
  },
  {
    name: 'UnsupportedOperation',
    reason: 'UNSUPPORTED_OPERATION',
    jsonRpcCode: -32004,
    code: 'unsupported_operation',
    says: 'the agent does not support this operation',
    help: 'See what the agent offers with missive agent inspect <agent>, and use another operation or agent.',
  },
  {
    name: 'ContentTypeNotSupported',
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    jsonRpcCode: -32005,
    code: 'content_type_not_supported',
    says: 'the agent does not accept a media type of the request',
    help: 'Use the input and output modes its card lists (missive agent inspect <agent>): --media-type for parts, --accepted-output-mode for the answer.',
  },
  {
    name: 'InvalidAgentResponse',
    reason: 'INVALID_AGENT_RESPONSE',
    jsonRpcCode: -32006,
    code: 'invalid_agent_response',
    says: 'the agent produced an invalid response of its own',
    help: "The fault is the agent's: try again later, or report it to the agent's operator.",
  },
  {
    name: 'ExtendedAgentCardNotConfigured',
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    jsonRpcCode: -32007,
    code: 'extended_agent_card_not_configured',
    says: 'the agent has no extended Agent Card configured',
    help: 'Use its public card (missive agent inspect <agent>, without --extended); its card should not advertise an extended one.',
  },
  {
    name: 'ExtensionSupportRequired',
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    jsonRpcCode: -32008,
    code: 'extension_support_required',
    says: 'the agent requires an A2A extension the request did not activate',
    help: 'Activate the extension its card requires (capabilities.extensions in missive agent inspect <agent>) with --a2a-extension URI.',
  },
  {
    name: 'VersionNotSupported',
    reason: 'VERSION_NOT_SUPPORTED',
    jsonRpcCode: -32009,
    code: 'version_not_supported',
    says: 'the agent does not support the A2A protocol version',
    help: 'Try --protocol-version with a version the Agent Card lists, or set [protocol].protocol_version.',
  },
];

const BY_REASON = new Map(A2A_ERROR_SPECS.map((s) => [s.reason, s]));
const BY_CODE = new Map(A2A_ERROR_SPECS.map((s) => [s.jsonRpcCode, s]));
/** Class names as the SDKs write them (`TaskNotFoundError`); 0.3 called -32007 `AuthenticatedExtendedCardNotConfiguredError`. */
const BY_CLASS = new Map<string, A2AErrorSpec>([
  ...A2A_ERROR_SPECS.map((s) => [`${s.name}Error`, s] as const),
  ['AuthenticatedExtendedCardNotConfiguredError', BY_CODE.get(-32007)!],
]);

export const specByReason = (reason: unknown): A2AErrorSpec | undefined => (typeof reason === 'string' ? BY_REASON.get(reason) : undefined);
export const specByJsonRpcCode = (code: unknown): A2AErrorSpec | undefined => (typeof code === 'number' ? BY_CODE.get(code) : undefined);

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/** The A2A error named by a google.rpc.ErrorInfo among `details` (HTTP+JSON `error.details`, JSON-RPC `error.data`). */
export function specFromDetails(details: unknown): A2AErrorSpec | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details as Array<{ '@type'?: unknown; reason?: unknown } | null>) {
    if (detail && typeof detail === 'object' && detail['@type'] === ERROR_INFO_TYPE) {
      const spec = specByReason(detail.reason);
      if (spec) return spec;
    }
  }
  return undefined;
}

/** The ErrorInfo metadata among `details`, for the message (e.g. `taskId`). */
export function errorInfoMetadata(details: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(details)) return undefined;
  const info = (details as Array<{ '@type'?: unknown; metadata?: unknown } | null>).find((d) => d && typeof d === 'object' && d['@type'] === ERROR_INFO_TYPE);
  const metadata = info?.metadata;
  return metadata && typeof metadata === 'object' && Object.keys(metadata).length > 0 ? (metadata as Record<string, unknown>) : undefined;
}

/**
 * The A2A error of an error body, whatever its shape: a JSON-RPC error object (code, else an ErrorInfo in `data`), a
 * google.rpc.Status (`{code, status, message, details}`, the 1.0 HTTP+JSON body's `error`), or the 0.3 HTTP+JSON
 * body `{code, message}`.
 */
export function specOfErrorObject(error: unknown): A2AErrorSpec | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const { code, data, details } = error as { code?: unknown; data?: unknown; details?: unknown };
  return specByJsonRpcCode(code) ?? specFromDetails(details) ?? specFromDetails(data);
}

/** The A2A error a gRPC status detail names, the way the Python SDK writes it: `TaskNotFoundError: …`. */
export function specFromGrpcDetail(detail: string | undefined): A2AErrorSpec | undefined {
  const name = /^\s*([A-Za-z]+Error):/.exec(detail ?? '')?.[1];
  return name ? BY_CLASS.get(name) : undefined;
}

/** gRPC status codes (google.rpc.Code). */
const GRPC = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, FAILED_PRECONDITION: 9, UNIMPLEMENTED: 12 } as const;
const PUSH_OPERATION = /PushNotificationConfigs?$/;

/**
 * The A2A error of a bare gRPC status (no ErrorInfo, as 0.3 servers answer), where the status and the operation leave
 * one candidate: NOT_FOUND is only ever TaskNotFound; FAILED_PRECONDITION to CancelTask is TaskNotCancelable and to
 * GetExtendedAgentCard ExtendedAgentCardNotConfigured; UNIMPLEMENTED to a push-config operation is
 * PushNotificationNotSupported. Anything else stays unnamed.
 */
export function specFromGrpcStatus(status: number, method: string): A2AErrorSpec | undefined {
  if (status === GRPC.NOT_FOUND && method !== 'GetExtendedAgentCard') return BY_REASON.get('TASK_NOT_FOUND');
  if (status === GRPC.FAILED_PRECONDITION && method === 'CancelTask') return BY_REASON.get('TASK_NOT_CANCELABLE');
  if (status === GRPC.FAILED_PRECONDITION && method === 'GetExtendedAgentCard') return BY_REASON.get('EXTENDED_AGENT_CARD_NOT_CONFIGURED');
  if (status === GRPC.UNIMPLEMENTED && PUSH_OPERATION.test(method)) return BY_REASON.get('PUSH_NOTIFICATION_NOT_SUPPORTED');
  return undefined;
}

export interface A2AErrorContext {
  /** The A2A operation, e.g. GetTask. */
  method: string;
  url?: string;
  alias?: string;
  /** The A2A version missive spoke (for VersionNotSupported). */
  protocolVersion?: string;
  /** What the agent said (its message), one line and redacted already. */
  detail?: string;
}

/**
 * The operations that name one push config: A2A has no "config not found" error, so agents (the SDKs among them)
 * answer TaskNotFound for a config id the task does not have, as for a task they do not have.
 */
const ONE_PUSH_CONFIG = /^(Get|Delete)TaskPushNotificationConfig$/;

/** TaskNotFound to a push-config operation: the config or the task is missing, and the help says how to tell which. */
const PUSH_CONFIG_NOT_FOUND = {
  says: 'the agent has no such push notification config for that task (or no such task)',
  help: "List the task's push configs with missive push list <agent> <task-id> and check the config id; missive task get <task-id> --remote --agent <agent> shows whether the agent still has the task.",
};

/** The one missive error of an A2A error, the same on every binding. */
export function a2aError(spec: A2AErrorSpec, ctx: A2AErrorContext): MissiveError {
  const said = ctx.detail ? `: ${oneLine(ctx.detail)}` : '';
  const where = ctx.url ? ` at ${redactUrl(ctx.url)}` : '';
  if (spec.name === 'VersionNotSupported') {
    return protocolError(spec.code, `the agent does not support A2A protocol version ${ctx.protocolVersion ?? '?'} (${spec.name}${said})`, spec.help);
  }
  const { says, help } = spec.name === 'TaskNotFound' && ONE_PUSH_CONFIG.test(ctx.method) ? PUSH_CONFIG_NOT_FOUND : spec;
  return protocolError(spec.code, `${ctx.method}${where}: ${says} (${spec.name}${said})`, help.replaceAll('<agent>', ctx.alias ?? '<agent>'));
}
