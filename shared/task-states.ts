/**
 * missive's local task states, written once: the core (the tasks table, filters, waits), the IPC contract's output
 * schemas and the renderer all take the list and its sets from here. A2A's `TASK_STATE_*` wire names map onto these in
 * electron/core/tasks/task-state.ts. Isomorphic: no node:*, no DOM, no electron.
 */

/** Every state a task row may hold (the `tasks.state` CHECK of both engines); `unknown`: the agent named none we know. */
export const TASK_STATES = ['submitted', 'working', 'input_required', 'auth_required', 'completed', 'failed', 'cancelled', 'rejected', 'unknown'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** The states a task never leaves: nothing more comes from the agent, and it cannot be waited on or cancelled. */
export const TERMINAL_TASK_STATES: readonly TaskState[] = ['completed', 'failed', 'cancelled', 'rejected'];

/** The states in which the agent waits for the user (more input, or authorization): the next message answers in the same task. */
export const INTERRUPTED_TASK_STATES: readonly TaskState[] = ['input_required', 'auth_required'];

/** The states a user may pick or filter by: every state but `unknown`, which only an agent's answer produces. */
export const SELECTABLE_TASK_STATES: readonly TaskState[] = TASK_STATES.filter((state) => state !== 'unknown');

const has = (set: readonly TaskState[], state: string | null | undefined): boolean => (set as readonly string[]).includes(state ?? '');

/** Whether a state (any string: a row, an answer, a filter) is one a task never leaves. */
export const isTerminalTaskState = (state: string | null | undefined): boolean => has(TERMINAL_TASK_STATES, state);
/** Whether a state (any string) is one in which the agent waits for the user. */
export const isInterruptedTaskState = (state: string | null | undefined): boolean => has(INTERRUPTED_TASK_STATES, state);
