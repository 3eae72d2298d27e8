/** `task list`: the local journal (offset page tokens) or an agent's ListTasks, whose tasks are persisted as seen. */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { connect } from '../agents/connection.js';
import type { Binding } from '../config/schema.js';
import type { ListTasksParams } from '../a2a/operations.js';
import type { StoredTask, TaskStateName } from '../store/rows/conversation.js';
import { TASK_STATE_NAMES, wireTaskState } from './task-state.js';
import type { PersistedTask } from './persist.js';
import { observeTaskSteps } from './observe.js';

/** The A2A ListTasks parameters (`status`: a local state, or a wire one), and where to ask. */
export interface TaskListInput extends Omit<ListTasksParams, 'tenant'> {
  remote?: boolean;
  agent?: string;
  /** `--binding`: ask over this binding only (else the card decides). */
  binding?: Binding;
}

export interface TaskListResult {
  source: 'local' | 'remote';
  agent: string | null;
  tasks: Array<StoredTask | (PersistedTask & { agent_alias: string })>;
  next_page_token: string | null;
  total_size: number | null;
}

const DEFAULT_PAGE = 50;

function stateFilter(status: string | undefined): TaskStateName | undefined {
  if (!status) return undefined;
  const normalized = status
    .toLowerCase()
    .replace(/-/g, '_')
    .replace(/^task_state_/, '')
    .replace(/^canceled$/, 'cancelled') as TaskStateName;
  if (!TASK_STATE_NAMES.includes(normalized))
    throw usageError('invalid_status', `unknown task status "${status}"`, `Use one of: ${TASK_STATE_NAMES.join(', ')}.`);
  return normalized;
}

function pageSize(n: number | undefined): number {
  if (n === undefined) return DEFAULT_PAGE;
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw usageError('invalid_page_size', `--page-size must be an integer from 1 to 1000, not ${n}`);
  return n;
}

const encodeOffset = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
function decodeOffset(token: string | undefined): number {
  if (!token) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!match) throw usageError('invalid_page_token', 'the page token was not issued by `missive task list`', 'Start again without --page-token.');
  return Number(match[1]);
}

/** Without `remote`, the journal's page: its tasks are stored rows (what the `tasks.list` IPC channel answers). */
export function listTaskPage(core: Core, input: TaskListInput & { remote?: false }): Promise<TaskListResult & { source: 'local'; tasks: StoredTask[] }>;
export function listTaskPage(core: Core, input: TaskListInput): Promise<TaskListResult>;
export async function listTaskPage(core: Core, input: TaskListInput): Promise<TaskListResult> {
  const state = stateFilter(input.status);
  const size = pageSize(input.pageSize);
  if (!input.remote) {
    const offset = decodeOffset(input.pageToken);
    const rows = await (await core.storage()).conversation.listTasks({ agent: input.agent, contextId: input.contextId, state, limit: size + 1, offset });
    return {
      source: 'local',
      agent: input.agent ?? null,
      tasks: rows.slice(0, size),
      next_page_token: rows.length > size ? encodeOffset(offset + size) : null,
      total_size: null,
    };
  }
  if (!input.agent) throw usageError('agent_required', '`task list --remote` needs --agent <alias>: ListTasks asks one agent');
  const connection = await connect(core, input.agent, { binding: input.binding });
  const { alias, client } = connection;
  const page = await client.listTasks({
    ...(input.contextId ? { contextId: input.contextId } : {}),
    ...(state ? { status: wireTaskState(state) } : {}),
    ...(input.pageSize !== undefined ? { pageSize: size } : {}),
    ...(input.pageToken ? { pageToken: input.pageToken } : {}),
    ...(input.historyLength !== undefined ? { historyLength: input.historyLength } : {}),
    ...(input.includeArtifacts ? { includeArtifacts: true } : {}),
  });
  const tasks = await (
    await core.storage()
  ).write(function* () {
    const persistedTasks: Array<PersistedTask & { agent_alias: string }> = [];
    for (const t of page.tasks) {
      // A task the agent lists may be one an unconfirmed send made: its request gets it (history names it then).
      const persisted = yield* observeTaskSteps(connection, t, { observedBy: 'task list', linkRequests: 'always' });
      persistedTasks.push({ ...persisted, agent_alias: alias });
    }
    return persistedTasks;
  });
  return { source: 'remote', agent: alias, tasks, next_page_token: page.nextPageToken, total_size: page.totalSize };
}
