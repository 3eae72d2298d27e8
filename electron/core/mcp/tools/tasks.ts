/** A2A tasks as tools: get_task, wait_task, cancel_task, list_tasks (the same core services as `missive task`). */
import { z } from 'zod';
import { usageError } from '../../../../shared/errors.js';
import { SELECTABLE_TASK_STATES } from '../../../../shared/task-states.js';
import type { Core } from '../../handle.js';
import type { StoredTask } from '../../store/rows/conversation.js';
import { cancelTask, remoteTask } from '../../tasks/service.js';
import { listTaskPage, type TaskListInput } from '../../tasks/list.js';
import { defineTool, type ToolSpec } from '../tool-spec.js';
import { answerResult, readTask, stateNote, taskFacts, type TaskSnapshot } from '../answer-content.js';
import { waitDecided } from '../task-wait.js';

const taskId = z.string().min(1).describe('The task_id an answer of send_message (or list_tasks) gave.');
const agent = z
  .string()
  .min(1)
  .optional()
  .describe('The alias of the agent that owns the task; needed only for a task missive has not recorded (it knows the agent of its own tasks).');

/** The journaled task, or a usage error saying how to reach one missive never recorded. */
async function journaled(core: Core, id: string): Promise<TaskSnapshot> {
  const snapshot = await readTask(core, id);
  if (!snapshot) throw usageError('unknown_task', `task ${id} is not in missive's journal`, 'Call get_task with remote: true and the agent that owns it.');
  return snapshot;
}

/** The agent to ask about a task: the one given, else the one that answered it; an unknown task needs one. */
async function ownerOf(core: Core, id: string, given?: string): Promise<string> {
  if (given) return given;
  const snapshot = await readTask(core, id);
  if (!snapshot) throw usageError('unknown_task', `task ${id} is not in missive's journal`, 'Give the agent that owns it.');
  return snapshot.task.agent_alias;
}

const taskResult = (snapshot: TaskSnapshot, extra: Record<string, unknown>, notes: Array<string | null> = []) => {
  const facts = { ...taskFacts(snapshot), ...extra };
  return answerResult(facts, snapshot.artifacts, [...notes, stateNote(facts)], false);
};

const getTask = defineTool({
  name: 'get_task',
  title: 'Get an A2A task',
  description: [
    "Shows one A2A task now: its state, the agent's last message (its question, when it waits for input) and its",
    'artifacts, with structuredContent {agent, task_id, context_id, state, reply, artifacts, next}. By default it reads',
    "missive's journal (what the agent last said); remote: true asks the agent for the task's current state first.",
    'To wait until the task is done, call wait_task instead.',
  ].join(' '),
  input: z.strictObject({
    task_id: taskId,
    remote: z.boolean().optional().describe("Ask the agent (A2A GetTask) rather than read missive's journal; default false."),
    agent,
  }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(args, { core }) {
    if (args.remote) await remoteTask(core, args.task_id, { agent: await ownerOf(core, args.task_id, args.agent) });
    return taskResult(await journaled(core, args.task_id), { source: args.remote ? 'remote' : 'local' });
  },
});

const waitTask = defineTool({
  name: 'wait_task',
  title: 'Wait for an A2A task',
  description: [
    'Waits until an A2A task is decided (completed, failed, cancelled, rejected, or waiting for input or',
    'authentication) or timeout_seconds pass, asking the agent as it goes, and returns it as get_task does. When the',
    'time is up first, the result says the task is still running and gives its state: call wait_task again.',
    'When the task waits for input, reply with send_message with the same task_id and context_id.',
  ].join(' '),
  input: z.strictObject({
    task_id: taskId,
    timeout_seconds: z.number().int().min(1).max(600).optional().describe('How long to wait at most, 1 to 600 seconds; default 60.'),
    agent,
  }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async run(args, { core, signal }) {
    const owner = await ownerOf(core, args.task_id, args.agent);
    const timeout = args.timeout_seconds ?? 60;
    const waited = await waitDecided(core, args.task_id, { timeoutMs: timeout * 1000, signal, agent: owner });
    const note = waited.timed_out ? `Task ${args.task_id} is still ${waited.state} after ${Math.round(waited.elapsed_ms / 1000)} s of waiting.` : null;
    return taskResult(await journaled(core, args.task_id), { timed_out: waited.timed_out, polls: waited.polls }, [note]);
  },
});

const cancel = defineTool({
  name: 'cancel_task',
  title: 'Cancel an A2A task',
  description: [
    'Asks the agent to cancel a task it is still working on (A2A CancelTask) and returns the task as the agent then',
    'reports it (state cancelled when it complied). A task already finished cannot be cancelled: the agent refuses.',
  ].join(' '),
  input: z.strictObject({ task_id: taskId, agent }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, { core }) {
    await cancelTask(core, args.task_id, await ownerOf(core, args.task_id, args.agent));
    return taskResult(await journaled(core, args.task_id), {});
  },
});

const listTasks = defineTool({
  name: 'list_tasks',
  title: 'List A2A tasks',
  description: [
    "Lists the A2A tasks in missive's journal, most recently updated first: task_id, agent, state, context_id, updated",
    'time. Filter by agent, state or context_id; page with limit and the next_cursor of the previous page.',
    'Then get_task (or wait_task) one of them.',
  ].join(' '),
  input: z.strictObject({
    agent: z.string().min(1).optional().describe('Only the tasks of this agent (alias).'),
    state: z
      .enum(SELECTABLE_TASK_STATES as [string, ...string[]])
      .optional()
      .describe('Only the tasks in this state.'),
    context_id: z.string().min(1).optional().describe('Only the tasks of this context (conversation).'),
    limit: z.number().int().min(1).max(200).optional().describe('At most this many tasks, 1 to 200; default 20.'),
    cursor: z.string().min(1).optional().describe('The next_cursor of the previous page.'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, { core }) {
    const query: TaskListInput & { remote: false } = {
      remote: false,
      ...(args.agent ? { agent: args.agent } : {}),
      ...(args.state ? { status: args.state } : {}),
      ...(args.context_id ? { contextId: args.context_id } : {}),
      pageSize: args.limit ?? 20,
      ...(args.cursor ? { pageToken: args.cursor } : {}),
    };
    const page = await listTaskPage(core, query);
    const tasks = (page.tasks as StoredTask[]).map((t) => ({
      task_id: t.task_id,
      agent: t.agent_alias,
      state: t.state,
      context_id: t.context_id,
      updated_at: t.updated_at,
    }));
    const lines = tasks.map((t) => `${t.task_id}  ${t.agent}  ${t.state}  context ${t.context_id ?? '-'}  updated ${t.updated_at}`);
    if (page.next_page_token) lines.push(`More tasks: call list_tasks with cursor "${page.next_page_token}".`);
    return {
      content: [{ type: 'text', text: lines.join('\n') || 'No tasks match.' }],
      structuredContent: { tasks, next_cursor: page.next_page_token },
    };
  },
});

export const TASK_TOOLS: readonly ToolSpec[] = [getTask, waitTask, cancel, listTasks];
