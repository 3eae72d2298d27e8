/**
 * Waiting for an A2A task in an MCP call: ask the agent (GetTask) until the task is decided (tasks/service.ts
 * WAIT_OUTCOMES: done, or waiting for the user), the deadline passes, or the client cancels the call. It is
 * service.ts's waitForTask with two things an MCP call needs and the CLI's does not: a deadline of the call's own
 * (wait_task's timeout_seconds, an MCP task's longer wait) rather than the process's --timeout, and the call's abort
 * signal. Polls start fast and back off, so a quick task answers quickly and a slow one costs few requests.
 */
import type { Core } from '../handle.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import { refreshTask, WAIT_OUTCOMES } from '../tasks/service.js';

export interface WaitOutcome {
  state: TaskStateName;
  /** The deadline passed with the task still undecided. */
  timed_out: boolean;
  polls: number;
  elapsed_ms: number;
}

const FIRST_INTERVAL_MS = 200;
const MAX_INTERVAL_MS = 2000;

/** Resolves after `ms`, or at once when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => (clearTimeout(timer), signal.removeEventListener('abort', done), resolve());
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export async function waitDecided(core: Core, taskId: string, options: { timeoutMs: number; signal: AbortSignal; agent?: string }): Promise<WaitOutcome> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  let interval = FIRST_INTERVAL_MS;
  for (let polls = 1; ; polls++) {
    const { state } = await refreshTask(core, taskId, options.agent, 'GetTask', 'mcp wait_task');
    const elapsed = Date.now() - started;
    if (WAIT_OUTCOMES[state] !== undefined) return { state, timed_out: false, polls, elapsed_ms: elapsed };
    if (options.signal.aborted || Date.now() + interval > deadline) return { state, timed_out: true, polls, elapsed_ms: elapsed };
    await pause(interval, options.signal);
    interval = Math.min(MAX_INTERVAL_MS, Math.round(interval * 1.5));
  }
}
