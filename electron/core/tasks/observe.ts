/**
 * A task an agent answered with (GetTask, CancelTask, ListTasks, a gateway's poll), stored and journaled: the row as
 * persistTaskSteps stores it, and an `a2a.task.updated` event saying who observed it when it changed (or, with
 * `journalAs`, that event type whatever changed: a cancel request is told even when the state stayed).
 */
import type { Connection } from '../agents/connection.js';
import { journal, type Steps } from '../store/steps.js';
import { persistTaskSteps, type PersistedTask, type PersistOptions, type WireTask } from './persist.js';

export interface ObservedTask {
  /** What asked for it, journaled as `observed_by` (`task get`, `task list`, the gateway's poll). */
  observedBy: string;
  linkRequests: NonNullable<PersistOptions['linkRequests']>;
  /** Journal this event type even when nothing changed (default: `a2a.task.updated`, when it changed). */
  journalAs?: string;
}

export function* observeTaskSteps(
  connection: Pick<Connection, 'alias' | 'iface' | 'outbound' | 'meta'>,
  task: WireTask,
  how: ObservedTask,
): Steps<PersistedTask> {
  const { alias, iface, outbound, meta } = connection;
  const persisted = yield* persistTaskSteps(alias, task, {
    protocolVersion: iface.protocol_version,
    metadata: meta,
    secrets: outbound.secrets,
    linkRequests: how.linkRequests,
  });
  if (persisted.changed || how.journalAs) {
    yield* journal(
      {
        type: how.journalAs ?? 'a2a.task.updated',
        agentAlias: alias,
        contextId: persisted.context_id,
        taskId: persisted.task_id,
        payload: { state: persisted.state, remote_state: persisted.remote_state, observed_by: how.observedBy },
      },
      outbound.secrets,
    );
  }
  return persisted;
}
