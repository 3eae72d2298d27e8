/** Task operations: local view, remote GetTask / CancelTask, and wait with deterministic outcome codes. */
import { MissiveError, OUTCOME_EXIT_CODES, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { connect } from '../agents/connection.js';
import type { Binding } from '../config/schema.js';
import type { ArtifactSummary, StoredTask, TaskStateName } from '../store/rows/conversation.js';
import { storedTaskAnswer } from './answer-text.js';
import { observeTaskSteps } from './observe.js';

export interface TaskView {
  task: StoredTask;
  artifacts: ArtifactSummary[];
  source: 'local' | 'remote';
}

async function view(core: Core, taskId: string, source: TaskView['source']): Promise<TaskView> {
  const { conversation } = await core.storage();
  return { task: (await conversation.getTask(taskId))!, artifacts: await conversation.listArtifactsOfTask(taskId), source };
}

async function agentOf(core: Core, taskId: string, agent?: string): Promise<string> {
  if (agent) return agent;
  const local = await (await core.storage()).conversation.getTask(taskId);
  if (local) return local.agent_alias;
  throw usageError('unknown_task', `task ${taskId} is not in the local journal`, 'Pass --agent <alias> to ask an agent about it.');
}

/** A journaled task's answer text (its status message, else its artifacts), on either store. */
export const taskAnswer = async (core: Core, taskId: string): Promise<string | null> => (await core.storage()).read(storedTaskAnswer(taskId));

export async function localTask(core: Core, taskId: string): Promise<TaskView> {
  if (!(await (await core.storage()).conversation.getTask(taskId)))
    throw usageError('unknown_task', `task ${taskId} is not in the local journal`, 'Try --remote --agent <alias>.');
  return view(core, taskId, 'local');
}

/** How to reach the agent about a task: `binding` (`--binding`) restricts the call to that binding, else the card decides. */
export interface TaskCallOptions {
  historyLength?: number;
  binding?: Binding;
}

export async function refreshTask(
  core: Core,
  taskId: string,
  agent: string | undefined,
  method: 'GetTask' | 'CancelTask',
  observedBy: string,
  options: TaskCallOptions = {},
) {
  const { historyLength, binding } = options;
  const alias = await agentOf(core, taskId, agent);
  const connection = await connect(core, alias, { binding });
  const { iface, client } = connection;
  const params = { id: taskId, ...(historyLength !== undefined ? { historyLength } : {}) };
  const task = method === 'CancelTask' ? await client.cancelTask(params) : await client.getTask(params);
  return (await core.storage()).write(function* () {
    const persisted = yield* observeTaskSteps(connection, task, {
      observedBy,
      linkRequests: 'when-new',
      journalAs: method === 'CancelTask' ? 'a2a.task.cancel_requested' : undefined,
    });
    return { ...persisted, interface: iface };
  });
}

export async function remoteTask(core: Core, taskId: string, options: TaskCallOptions & { agent?: string } = {}): Promise<TaskView> {
  await refreshTask(core, taskId, options.agent, 'GetTask', 'task get', options);
  return view(core, taskId, 'remote');
}

export async function cancelTask(core: Core, taskId: string, agent?: string, binding?: Binding): Promise<TaskView> {
  await refreshTask(core, taskId, agent, 'CancelTask', 'task cancel', { binding });
  return view(core, taskId, 'remote');
}

/** States that end a wait, and the exit code each gives. */
export const WAIT_OUTCOMES: Partial<Record<TaskStateName, number>> = {
  completed: 0,
  failed: OUTCOME_EXIT_CODES.task_failed,
  cancelled: OUTCOME_EXIT_CODES.cancelled,
  input_required: OUTCOME_EXIT_CODES.input_required,
  rejected: OUTCOME_EXIT_CODES.rejected,
  auth_required: OUTCOME_EXIT_CODES.auth_required,
};

export interface WaitResult extends TaskView {
  outcome: TaskStateName | 'timeout';
  exit_code: number;
  attempts: number;
  elapsed_ms: number;
}

export async function waitForTask(
  core: Core,
  taskId: string,
  options: { agent?: string; local?: boolean; intervalMs?: number; binding?: Binding } = {},
): Promise<WaitResult> {
  const started = Date.now();
  const interval = Math.min(options.intervalMs ?? 1000, 5000);
  let attempts = 0;
  for (;;) {
    attempts++;
    const state = options.local
      ? (await localTask(core, taskId)).task.state
      : (await refreshTask(core, taskId, options.agent, 'GetTask', 'task wait', { binding: options.binding })).state;
    const code = WAIT_OUTCOMES[state];
    const elapsed = Date.now() - started;
    if (code !== undefined)
      return { ...(await view(core, taskId, options.local ? 'local' : 'remote')), outcome: state, exit_code: code, attempts, elapsed_ms: elapsed };
    if (elapsed + interval > core.timeoutMs) {
      return {
        ...(await view(core, taskId, options.local ? 'local' : 'remote')),
        outcome: 'timeout',
        exit_code: OUTCOME_EXIT_CODES.timeout,
        attempts,
        elapsed_ms: elapsed,
      };
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

export const waitError = (result: WaitResult) =>
  new MissiveError('orchestration', `task_${result.outcome}`, `task ${result.task.task_id} ended ${result.outcome} after ${result.attempts} poll(s)`, {
    exitCode: result.exit_code,
  });
