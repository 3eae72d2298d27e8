/**
 * What an operator job asks for, as stored in `gateway_jobs.request_json`, and its public summary. The request keeps
 * the message inputs (the agent gets them as typed) but never a credential: auth comes from the agent's auth ref when
 * the gateway executes the job. The summary (kind, agent or group, parts count and bytes) is all a job view shows.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import type { Execution, FailurePolicy } from '../collectives/fan-out.js';
import type { MessageInputs } from '../collectives/bcast.js';
import { checkReduceInput, type ReduceInput } from '../collectives/reduce.js';
import type { SendInput } from '../messaging/send.js';
import { buildParts } from '../messaging/parts.js';
import type { OperatorKind } from '../store/repos/gateway-jobs.js';

/** The message inputs a send or stream job keeps: no wire capture, no deadline (those belong to one process). */
export type StoredSendInput = Omit<SendInput, 'wire' | 'deadline'> & { messageId: string };

export type JobRequest =
  | { kind: 'send'; input: StoredSendInput }
  | { kind: 'stream'; input: StoredSendInput; force?: boolean }
  | { kind: 'wait'; taskId: string; agent?: string }
  | { kind: 'reduce'; input: ReduceInput }
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
}

/** Checks the message inputs now (files readable, size limits) and counts them, so a bad job fails at `job start`. */
function partsOf(core: Core, input: Omit<SendInput, 'agent'>): { parts: number; bytes: number } {
  const { parts, inputBytes } = buildParts(input, input.cwd, core.config.qos.maxRequestBytes);
  if (parts.length === 0) throw usageError('empty_message', 'the job has no message parts', 'Give a message, --part, --file, --json-part or --stdin.');
  return { parts: parts.length, bytes: inputBytes };
}

export async function summarise(core: Core, request: JobRequest): Promise<JobSummary> {
  switch (request.kind) {
    case 'send':
    case 'stream':
      return { kind: request.kind, agent: request.input.agent, context_id: request.input.contextId ?? null, message_id: request.input.messageId, ...partsOf(core, request.input) };
    case 'wait':
      return { kind: 'wait', task_id: request.taskId, ...(request.agent ? { agent: request.agent } : {}) };
    case 'reduce':
      await checkReduceInput(core, request.input);
      return {
        kind: 'reduce',
        group: request.input.group,
        context_id: request.input.contextId,
        strategy: request.input.strategy ?? null,
        reducer: request.input.reducerAgent ? 'agent' : request.input.command ? 'command' : 'local',
        ...(request.input.reducerAgent ? { agent: request.input.reducerAgent } : {}),
      };
    case 'bcast':
      return { kind: 'bcast', group: request.group, context_id: request.contextId ?? null, ...partsOf(core, request.inputs) };
  }
}
