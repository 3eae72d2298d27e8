/** A2A `TASK_STATE_*` wire names → missive's local task states. */
import { INTERRUPTED_TASK_STATES, TASK_STATES, TERMINAL_TASK_STATES, type TaskState as TaskStateName } from '../../../shared/task-states.js';

const MAP: Record<string, TaskStateName> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input_required',
  TASK_STATE_AUTH_REQUIRED: 'auth_required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'cancelled',
  TASK_STATE_CANCELLED: 'cancelled',
  TASK_STATE_REJECTED: 'rejected',
};

export const localTaskState = (wire: string | undefined): TaskStateName => (wire ? (MAP[wire] ?? 'unknown') : 'unknown');

/** The wire name of a local state, for filters sent to agents (`--status completed` → `TASK_STATE_COMPLETED`). */
export const wireTaskState = (local: TaskStateName): string | undefined =>
  local === 'cancelled' ? 'TASK_STATE_CANCELED' : Object.entries(MAP).find(([, v]) => v === local)?.[0];

/** Every local task state: the ones a task row may hold. */
export const TASK_STATE_NAMES: readonly TaskStateName[] = TASK_STATES;

/** States after which an agent has nothing more to send (interrupted states wait for the user, not the agent). */
export const SETTLED_STATES: readonly TaskStateName[] = [...TERMINAL_TASK_STATES, ...INTERRUPTED_TASK_STATES];
