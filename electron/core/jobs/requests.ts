/**
 * What an operator job asks for, as stored in `gateway_jobs.request_json`, and its public summary.
 *
 * A job is data, never a pointer into the gateway's host: the queue may be written by anyone who can write the store
 * (every teammate, any holder of the database role), and the gateway that runs a job may be another user's on another
 * host. So a stored request holds
 *   - the message's parts as `job start` built them on the host that queued the job (file contents read there, within
 *     `qos.max_request_bytes`), never a path, a working directory or an env var name for the gateway to read;
 *   - for a reduce, at most the *name* of a command the gateway's own config defines (`[gateway.commands]`), never a
 *     command line;
 *   - never a credential (jobs/credentials.ts): auth comes from the agent's auth ref as the gateway's host binds it,
 *     within the gateway's `[gateway] job_auth_refs`.
 * `parseJobRequest` checks a row read back against this shape (and the JSON depth limit) before the gateway acts on
 * it: anything else is `storage::corrupt_row` naming the job, and the job fails without running.
 */
import { z } from 'zod';
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { Execution, FailurePolicy } from '../collectives/fan-out.js';
import type { MessageInputs } from '../collectives/bcast.js';
import { checkReduceInput, type ReduceInput } from '../collectives/reduce.js';
import { BINDINGS } from '../config/schema.js';
import type { SendInput } from '../messaging/send.js';
import { buildParts, type CapturedParts } from '../messaging/parts.js';
import { storedJsonAs, storedRow } from '../store/stored-json.js';
import type { OperatorKind } from '../store/rows/gateway-jobs.js';

/** The message settings a stored send keeps beside its captured parts. */
type MessageSettings = Pick<SendInput, 'taskId' | 'metadata' | 'acceptedOutputModes' | 'returnImmediately' | 'pushUrl' | 'binding'>;

/** A send or stream job's message: its parts as captured at `job start`, the message id fixed then. */
export type StoredSendInput = MessageSettings & { agent: string; contextId?: string; messageId: string; captured: CapturedParts };

/** A bcast job's message, the same for every member. */
export type StoredMessage = MessageSettings & { captured: CapturedParts };

/** A reduce job: the reduction's settings, and the gateway's own command by name (never a command line). */
export type StoredReduceInput = Omit<ReduceInput, 'command' | 'cwd'> & { gatewayCommand?: string };

export type JobRequest =
  | { kind: 'send'; input: StoredSendInput }
  | { kind: 'stream'; input: StoredSendInput; force?: boolean }
  | { kind: 'wait'; taskId: string; agent?: string }
  | { kind: 'reduce'; input: StoredReduceInput }
  | { kind: 'bcast'; group: string; contextId?: string; inputs: StoredMessage; execution?: Execution; maxConcurrency?: number; failurePolicy?: FailurePolicy };

/** What `job start` (and a fan-out `--via-jobs`) is given: the local inputs, before they are captured. */
export type JobInput =
  | { kind: 'send'; input: SendInput & { messageId: string } }
  | { kind: 'stream'; input: SendInput & { messageId: string }; force?: boolean }
  | { kind: 'wait'; taskId: string; agent?: string }
  | { kind: 'reduce'; input: Omit<ReduceInput, 'cwd'> & { cwd?: string; gatewayCommand?: string } }
  | { kind: 'bcast'; group: string; contextId?: string; inputs: MessageInputs; execution?: Execution; maxConcurrency?: number; failurePolicy?: FailurePolicy };

/** What every job view shows of the request: never its text, never a secret. */
export interface JobSummary {
  kind: OperatorKind;
  agent?: string;
  group?: string;
  context_id?: string | null;
  task_id?: string;
  message_id?: string;
  parts?: number;
  bytes?: number;
  strategy?: string | null;
  reducer?: 'local' | 'agent' | 'command';
  /** The gateway's command a reduce runs, by name. */
  gateway_command?: string;
}

// ------------------------------------------------------------------------------------------------ capture at start

/** The message settings of a send's input, without its local inputs. */
function settingsOf(input: Omit<SendInput, 'agent'>): MessageSettings {
  const settings: MessageSettings = {
    taskId: input.taskId,
    metadata: input.metadata,
    acceptedOutputModes: input.acceptedOutputModes,
    returnImmediately: input.returnImmediately,
    pushUrl: input.pushUrl,
    binding: input.binding,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))) as MessageSettings;
}

/** Reads the message's local inputs here, now (files, stdin, JSON parts), within `qos.max_request_bytes`. */
function capture(core: Core, input: Omit<SendInput, 'agent'>): CapturedParts {
  if (input.pushTokenEnv) {
    throw usageError(
      'push_token_in_job',
      '--push-token-env cannot go with a job: the gateway would read an environment variable of its own host, and a job never holds a secret',
      'Register the push callback when the task exists (missive push create … --token-env VAR), or send with missive send.',
    );
  }
  const { parts, inputBytes } = buildParts(input, input.cwd, core.config.qos.maxRequestBytes);
  if (parts.length === 0) throw usageError('empty_message', 'the job has no message parts', 'Give a message, --part, --file, --json-part or --stdin.');
  return { parts, bytes: inputBytes };
}

const refuseCommand = (): never => {
  throw usageError(
    'command_in_job',
    "a job cannot carry a command line: a gateway (maybe another user's, on another host) runs only the reducer commands its own config names",
    'Name one in the gateway\'s config, [gateway.commands] NAME = "…", and queue it with --gateway-command NAME (or run `missive reduce --command` here).',
  );
};

/** The request as stored: local inputs captured, nothing for the gateway's host to read or run. */
export function storedRequest(core: Core, job: JobInput): JobRequest {
  switch (job.kind) {
    case 'send':
    case 'stream': {
      const { input } = job;
      const stored: StoredSendInput = {
        agent: input.agent,
        messageId: input.messageId,
        ...(input.contextId ? { contextId: input.contextId } : {}),
        ...settingsOf(input),
        captured: capture(core, input),
      };
      return job.kind === 'send' ? { kind: 'send', input: stored } : { kind: 'stream', input: stored, ...(job.force ? { force: true } : {}) };
    }
    case 'bcast': {
      const { inputs, ...rest } = job;
      return { ...rest, inputs: { ...settingsOf(inputs), captured: capture(core, inputs) } };
    }
    case 'reduce': {
      const { command, cwd: _cwd, ...input } = job.input;
      if (command !== undefined) refuseCommand();
      return { kind: 'reduce', input };
    }
    case 'wait':
      return job;
  }
}

// ------------------------------------------------------------------------------------------- the stored request

function requestSchema() {
  const text = z.string().max(64 * 1024 * 1024);
  const name = z.string().min(1).max(256);
  const part = z
    .strictObject({
      text: text.optional(),
      raw: text.optional(),
      url: text.optional(),
      data: z.unknown().optional(),
      filename: z.string().max(4096).optional(),
      mediaType: z.string().max(256).optional(),
    })
    .refine((p) => [p.text, p.raw, p.url, p.data].filter((v) => v !== undefined).length === 1, 'a part holds exactly one of text, raw, url, data');
  const captured = z.strictObject({ parts: z.array(part).min(1).max(10_000), bytes: z.number().int().min(0) });
  const settings = {
    taskId: name.optional(),
    metadata: z.array(z.string().max(4096)).max(256).optional(),
    acceptedOutputModes: z.array(z.string().max(256)).max(64).optional(),
    returnImmediately: z.boolean().optional(),
    pushUrl: z.string().max(4096).optional(),
    binding: z.enum(BINDINGS).optional(),
  };
  const send = z.strictObject({ agent: name, contextId: name.optional(), messageId: name, captured, ...settings });
  return z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('send'), input: send }),
    z.strictObject({ kind: z.literal('stream'), input: send, force: z.boolean().optional() }),
    z.strictObject({ kind: z.literal('wait'), taskId: name, agent: name.optional() }),
    z.strictObject({
      kind: z.literal('reduce'),
      input: z.strictObject({
        group: name,
        contextId: name,
        strategy: z.string().max(64).optional(),
        template: z
          .string()
          .max(1024 * 1024)
          .optional(),
        reducerAgent: name.optional(),
        gatewayCommand: name.optional(),
        acceptedOutputModes: z.array(z.string().max(256)).max(64).optional(),
        metadata: z.array(z.string().max(4096)).max(256).optional(),
      }),
    }),
    z.strictObject({
      kind: z.literal('bcast'),
      group: name,
      contextId: name.optional(),
      inputs: z.strictObject({ captured, ...settings }),
      execution: z.enum(['concurrent', 'sequential']).optional(),
      maxConcurrency: z.number().int().min(1).max(10_000).optional(),
      failurePolicy: z.enum(['stop', 'continue']).optional(),
    }),
  ]);
}

let schema: ReturnType<typeof requestSchema> | undefined;

/**
 * A stored request read back, checked before anything acts on it: the depth limit and this file's schema (no path, no
 * command line, no env var name has a place in it), else `storage::corrupt_row` naming the job.
 */
export function parseJobRequest(jobId: string, json: unknown): JobRequest {
  return storedJsonAs(json, storedRow('gateway_jobs', { job_id: jobId }), 'request_json', (schema ??= requestSchema())) as JobRequest;
}

// --------------------------------------------------------------------------------------------------- summaries

const partsOf = (captured: CapturedParts) => ({ parts: captured.parts.length, bytes: captured.bytes });

export async function summarise(core: Core, request: JobRequest): Promise<JobSummary> {
  switch (request.kind) {
    case 'send':
    case 'stream':
      return {
        kind: request.kind,
        agent: request.input.agent,
        context_id: request.input.contextId ?? null,
        message_id: request.input.messageId,
        ...partsOf(request.input.captured),
      };
    case 'wait':
      return { kind: 'wait', task_id: request.taskId, ...(request.agent ? { agent: request.agent } : {}) };
    case 'reduce':
      if (request.input.reducerAgent && request.input.gatewayCommand)
        throw usageError('conflicting_reducers', 'use --reducer-agent or --gateway-command, not both');
      await checkReduceInput(core, request.input);
      return {
        kind: 'reduce',
        group: request.input.group,
        context_id: request.input.contextId,
        strategy: request.input.strategy ?? null,
        reducer: request.input.reducerAgent ? 'agent' : request.input.gatewayCommand ? 'command' : 'local',
        ...(request.input.reducerAgent ? { agent: request.input.reducerAgent } : {}),
        ...(request.input.gatewayCommand ? { gateway_command: request.input.gatewayCommand } : {}),
      };
    case 'bcast':
      return { kind: 'bcast', group: request.group, context_id: request.contextId ?? null, ...partsOf(request.inputs.captured) };
  }
}
