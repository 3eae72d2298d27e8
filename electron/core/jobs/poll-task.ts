/**
 * One GetTask for a task a job waits on or follows (a gateway's `task_poll` follow job, an operator job settling):
 * what `task get --remote` does (tasks/service.ts refreshTask), except that an answer bringing nothing new (the task
 * exactly as last stored: same state, same artifacts, same messages) writes nothing. A poll that finds a task still
 * working, the common case, then costs the store one read instead of a transaction of writes; the first answer that
 * differs is stored, with its `a2a.task.updated` event, as refreshTask stores it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Core } from '../handle.js';
import { connect } from '../agents/connection.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import { call } from '../store/steps.js';
import type { WireTask } from '../tasks/persist.js';
import { observeTaskSteps } from '../tasks/observe.js';
import { localTaskState } from '../tasks/task-state.js';
import { scrubSecrets } from '../security/redact.js';

export interface PolledTask {
  task_id: string;
  context_id: string | null;
  state: TaskStateName;
  /** Whether the answer differed from the stored task (and was stored). */
  changed: boolean;
}

export async function pollTaskOnce(core: Core, alias: string, taskId: string, observedBy: string): Promise<PolledTask> {
  const connection = await connect(core, alias);
  const { outbound, client } = connection;
  const task = await client.getTask({ id: taskId });
  const storage = await core.storage();
  // The task as persistTaskSteps would store it (our secrets scrubbed), against the JSON stored now.
  const incoming: WireTask = outbound.secrets.length ? scrubSecrets(task, outbound.secrets) : task;
  const stored = await storage.read(call('getTaskJson', taskId));
  if (stored && isDeepStrictEqual(stored, JSON.parse(JSON.stringify(incoming)))) {
    return { task_id: taskId, context_id: incoming.contextId || null, state: localTaskState(incoming.status?.state), changed: false };
  }
  return storage.write(function* () {
    const persisted = yield* observeTaskSteps(connection, task, { observedBy, linkRequests: 'when-new' });
    return { task_id: persisted.task_id, context_id: persisted.context_id, state: persisted.state, changed: true };
  });
}
