/** `missive task get|cancel|wait`. */
import type { Command } from 'commander';
import { cancelTask, localTask, remoteTask, waitError, waitForTask, type TaskView, type WaitResult } from '../../core/tasks/service.js';
import { parseDuration } from '../../core/config/duration.js';
import type { Action } from '../program.js';
import { keyValues } from '../human.js';

const taskText = (v: TaskView) =>
  keyValues([
    ['task', v.task.task_id],
    ['agent', v.task.agent_alias],
    ['state', `${v.task.state}${v.task.remote_state ? ` (${v.task.remote_state})` : ''}`],
    ['context', v.task.context_id],
    ['updated', v.task.updated_at],
    ['artifacts', v.artifacts.map((a) => `${a.artifact_id} v${a.version} (${a.kind})`)],
  ]);

export function registerTaskCommands(program: Command, action: Action): void {
  const task = program.command('task').description('follow A2A tasks: local journal or remote GetTask / CancelTask');

  task
    .command('get <id>')
    .description('show a task (local by default; --remote asks the agent and records the answer)')
    .option('--remote', 'call GetTask on the agent')
    .option('--agent <alias>', 'agent to ask when the task is not in the journal')
    .option('--history-length <n>', 'history messages to ask for')
    .action(
      action(async ({ core, out }, id: string, o: { remote?: boolean; agent?: string; historyLength?: string }) => {
        const v = o.remote || o.agent ? await remoteTask(core, id, { agent: o.agent, historyLength: o.historyLength ? Number(o.historyLength) : undefined }) : localTask(core, id);
        out.result('task_get', v, taskText);
      }),
    );

  task
    .command('cancel <id>')
    .description('ask the agent to cancel a task (CancelTask)')
    .option('--agent <alias>', 'agent to ask when the task is not in the journal')
    .action(action(async ({ core, out }, id: string, o: { agent?: string }) => out.result('task_cancel', await cancelTask(core, id, o.agent), taskText)));

  task
    .command('wait <id>')
    .description('poll until the task is decided; exit 0 completed, 80 failed, 81 cancelled, 82 timeout, 83 input-required, 84 rejected, 85 auth-required')
    .option('--local', 'read the local journal only (no GetTask)')
    .option('--interval <duration>', 'poll interval, at most 5s (default 1s)')
    .option('--agent <alias>', 'agent to ask when the task is not in the journal')
    .action(
      action(async ({ core, out }, id: string, o: { local?: boolean; interval?: string; agent?: string }) => {
        const result = await waitForTask(core, id, { local: o.local, agent: o.agent, intervalMs: o.interval ? parseDuration(o.interval, '--interval') : undefined });
        out.result('task_wait', result, (r: WaitResult) => `${taskText(r)}\noutcome    ${r.outcome} after ${r.attempts} poll(s)`);
        if (result.exit_code !== 0) out.error(waitError(result));
        return result.exit_code;
      }),
    );
}
