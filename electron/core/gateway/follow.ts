/**
 * Following one in-flight task: SubscribeToTask (SSE) when the agent's card advertises streaming, GetTask otherwise.
 * Subscription events are journaled as `a2a.subscription.*` with a stable dedupe key (task, variant, content hash), so
 * a resumed subscription that replays what was already seen adds nothing.
 */
import { createHash } from 'node:crypto';
import { toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { capabilityView } from '../a2a/capabilities.js';
import { openStream } from '../a2a/sse.js';
import { isWireLimit } from '../a2a/wire-limits.js';
import type { StreamRecord } from '../a2a/stream-response.js';
import { connect } from '../agents/connection.js';
import { loadCard } from '../agents/discovery.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import type { FollowKind } from '../store/rows/gateway-jobs.js';
import { updateWriter } from '../tasks/update-writer.js';
import { pollTaskOnce } from '../jobs/poll-task.js';
import { SETTLED_STATES } from '../tasks/task-state.js';

export type FollowOutcome = { settled: true; state: TaskStateName; events: number } | { settled: false; state: TaskStateName | null; events: number };

export const dedupeKey = (taskId: string, record: StreamRecord) =>
  `sub:${taskId}:${record.variant}:${createHash('sha256').update(JSON.stringify(record.payload)).digest('hex').slice(0, 32)}`;

export async function jobKindFor(core: Core, alias: string): Promise<FollowKind> {
  const card = await loadCard(core, alias);
  return capabilityView(card.card).streaming ? 'task_subscription' : 'task_poll';
}

/** One GetTask; a task found as stored (nothing new) writes nothing (jobs/poll-task.ts). */
export async function pollTask(core: Core, alias: string, taskId: string): Promise<FollowOutcome> {
  const refreshed = await pollTaskOnce(core, alias, taskId, 'gateway');
  return SETTLED_STATES.includes(refreshed.state)
    ? { settled: true, state: refreshed.state, events: 0 }
    : { settled: false, state: refreshed.state, events: 0 };
}

/** `source`: who follows, as the journal rows it writes name it (the gateway; `gui` for a console view following a task). */
export async function subscribeTask(core: Core, alias: string, taskId: string, signal: AbortSignal, source = 'gateway'): Promise<FollowOutcome> {
  const conn = await connect(core, alias);
  const storage = await core.storage();
  const meta = conn.meta;
  let events = 0;
  let state: TaskStateName | null = null;
  await storage.journal.append(
    { type: 'a2a.subscription.started', source, agentAlias: alias, taskId, payload: { interface: conn.iface } },
    conn.outbound.secrets,
  );
  // Events are applied as `missive stream` applies them (tasks/update-writer.ts).
  const writer = updateWriter(storage);
  const ensured = new Set<string>();
  try {
    try {
      for await (const record of openStream({ ...conn.call, signal }, 'SubscribeToTask', {
        id: taskId,
        ...(conn.iface.tenant ? { tenant: conn.iface.tenant } : {}),
      })) {
        const applied = await writer.apply(record, {
          eventPrefix: 'a2a.subscription',
          source,
          alias,
          protocolVersion: conn.iface.protocol_version,
          metadata: meta,
          secrets: conn.outbound.secrets,
          dedupeKey: dedupeKey(taskId, record),
          payload: { sequence: record.sequence },
          ensured,
        });
        if (!applied.duplicate) events++;
        if (applied.state) state = applied.state;
        if (state && SETTLED_STATES.includes(state)) return { settled: true, state, events };
      }
    } finally {
      await writer.flush();
    }
  } catch (error) {
    const err = toMissiveError(error);
    // An agent refuses to subscribe to a task that already ended: one GetTask tells the real state. A stream stopped
    // at its bounds (wire-limits.ts) is no refusal: its error stands.
    if ((err.category === 'protocol' && !isWireLimit(err)) || err.code === 'missive::transport::http_status') {
      const polled = await pollTask(core, alias, taskId);
      if (polled.settled) return { ...polled, events };
    }
    throw err;
  }
  await storage.journal.append({ type: 'a2a.subscription.closed', source, agentAlias: alias, taskId, payload: { events, state } });
  return { settled: false, state, events };
}
