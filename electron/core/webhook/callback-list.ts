/**
 * The push callbacks the journal holds, newest first: what the webhook receivers of this profile took in (the app's,
 * `webhook run`'s, a gateway's) and what they refused. Each is its journal event (`a2a.push.<variant>` or
 * `a2a.push.rejected`), read through the journal's reader (rows redacted on write) and redacted again, as `events list`
 * gives it; the body is the update the callback carried, as journaled (its headers, and so any token, are never stored).
 */
import type { Core } from '../handle.js';
import type { EventRow } from '../store/rows/events.js';
import { redactValue } from '../security/redact.js';
import { withCallbackAgents } from '../tasks/callback-agents.js';
import { VARIANT_EVENT, type StreamVariant } from '../a2a/stream-response.js';
import { localTaskState } from '../tasks/task-state.js';
import { REJECTED_EVENT } from './rejection-log.js';

export interface ReceivedCallback {
  sequence: number;
  at: string;
  event_type: string;
  /** Accepted (HTTP 202, journaled) or refused (its status and reason). */
  outcome: 'accepted' | 'rejected';
  /** HTTP status answered to a refused callback; null for an accepted one. */
  status: number | null;
  reason: string | null;
  agent: string | null;
  task_id: string | null;
  context_id: string | null;
  variant: StreamVariant | null;
  /** The task state the body carried (a task or a status update), else null. */
  state: string | null;
  /** The update as journaled (redacted); null for a refused callback. */
  body: unknown;
}

const VARIANT_OF_TYPE = new Map(Object.entries(VARIANT_EVENT).map(([variant, name]) => [`a2a.push.${name}`, variant as StreamVariant]));

export const DEFAULT_CALLBACKS = 50;

/** The newest `limit` callbacks, newest first. */
export async function listCallbacks(core: Core, input: { limit?: number } = {}): Promise<{ callbacks: ReceivedCallback[] }> {
  const limit = input.limit ?? DEFAULT_CALLBACKS;
  const storage = await core.storage();
  // One exact-type read per kind (each from the type index), merged: `a2a.push.*` would also list the push configs.
  const reads = await Promise.all([...VARIANT_OF_TYPE.keys(), REJECTED_EVENT].map((type) => storage.journalReads.list({ type, limit })));
  const newest = reads
    .flat()
    .sort((a, b) => b.sequence - a.sequence)
    .slice(0, limit);
  // A callback that beat its send is shown under its task's agent (tasks/callback-agents.ts), as in `events list`.
  return redactValue({ callbacks: (await withCallbackAgents(storage, newest)).map(callbackOf) });
}

function callbackOf(e: EventRow): ReceivedCallback {
  const payload = (e.payload ?? {}) as Record<string, unknown>;
  const variant = VARIANT_OF_TYPE.get(e.type) ?? null;
  const body = variant ? (payload[variant] ?? null) : null;
  const rejected = e.type === REJECTED_EVENT;
  return {
    sequence: e.sequence,
    at: e.timestamp,
    event_type: e.type,
    outcome: rejected ? 'rejected' : 'accepted',
    status: rejected && typeof payload.status === 'number' ? payload.status : null,
    reason: rejected && typeof payload.reason === 'string' ? payload.reason : null,
    agent: e.agentAlias,
    task_id: e.taskId ?? (typeof payload.task_id === 'string' ? payload.task_id : null),
    context_id: e.contextId,
    variant,
    state: stateOf(body),
    body,
  };
}

/** The local name (`working`, `completed`…) of the `status.state` a task or status update carried. */
function stateOf(body: unknown): string | null {
  const state = (body as { status?: { state?: unknown } } | null)?.status?.state;
  return typeof state === 'string' ? localTaskState(state) : null;
}
