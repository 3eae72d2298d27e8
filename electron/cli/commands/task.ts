/** `missive task get|cancel|wait`. */
import { Option, type Command, type OptionValues } from 'commander';
import { cancelTask, localTask, remoteTask, taskAnswer, waitError, waitForTask, type TaskView, type WaitResult } from '../../core/tasks/service.js';
import { parseDuration } from '../../core/config/duration.js';
import { listTaskPage, type TaskListResult } from '../../core/tasks/list.js';
import { exportArtifacts, listArtifacts, saveArtifact, showArtifact } from '../../core/artifacts/service.js';
import type { StoredArtifact } from '../../core/store/rows/conversation.js';
import type { Action } from '../command-context.js';
import { collect, integer } from '../options.js';
import { keyValues, table } from '../human.js';
import { BINDINGS } from '../../core/config/schema.js';

/** `--binding` of the commands that call the agent: every call of the invocation goes over it. */
const bindingOption = () => new Option('--binding <binding>', 'require this binding when calling the agent').choices([...BINDINGS]);
import type { Core } from '../../core/handle.js';

/** A task view with the task's answer as journaled (answer-text.ts): status message, else artifacts. */
type AnsweredTask = TaskView & { answer_text: string | null };
const answered = async (core: Core, v: TaskView): Promise<AnsweredTask> => ({ ...v, answer_text: await taskAnswer(core, v.task.task_id) });

const taskText = (v: TaskView & { answer_text?: string | null }) =>
  keyValues([
    ['task', v.task.task_id],
    ['agent', v.task.agent_alias],
    ['state', `${v.task.state}${v.task.remote_state ? ` (${v.task.remote_state})` : ''}`],
    ['context', v.task.context_id],
    ['updated', v.task.updated_at],
    ['artifacts', v.artifacts.map((a) => `${a.artifact_id} v${a.version} (${a.kind})`)],
  ]) + (v.answer_text ? `\n\n${v.answer_text}` : '');

export function registerTaskCommands(program: Command, action: Action): void {
  const task = program.command('task').description('follow A2A tasks and their artifacts: the local journal, or GetTask / ListTasks / CancelTask');

  task
    .command('get <id>')
    .description('show a task (local by default; --remote asks the agent and records the answer)')
    .option('--remote', 'call GetTask on the agent')
    .option('--agent <alias>', 'agent to ask when the task is not in the journal')
    .option('--history-length <n>', 'history messages to ask for (0 to 1000000)', integer('--history-length', 0, 1_000_000))
    .addOption(bindingOption())
    .action(
      action(async ({ core, out }, id: string, o: { remote?: boolean; agent?: string; historyLength?: number; binding?: (typeof BINDINGS)[number] }) => {
        const v =
          o.remote || o.agent ? await remoteTask(core, id, { agent: o.agent, historyLength: o.historyLength, binding: o.binding }) : await localTask(core, id);
        out.result('task_get', await answered(core, v), taskText);
      }),
    );

  task
    .command('list')
    .description('list tasks from the local journal, or ask an agent with ListTasks (--remote --agent A); remote tasks are recorded')
    .option('--remote', 'call ListTasks on --agent')
    .option('--agent <alias>', 'only tasks of this agent (required with --remote)')
    .option('--context <id>', 'only tasks of this context')
    .option('--status <state>', 'only tasks in this state (completed, working, input-required, ...)')
    .option('--page-size <n>', 'tasks per page, 1 to 1000 (default 50)', integer('--page-size', 1, 1000))
    .option('--page-token <token>', 'continue from a previous page')
    .option('--history-length <n>', 'history messages per task (remote; 0 to 1000000)', integer('--history-length', 0, 1_000_000))
    .option('--include-artifacts', 'ask the agent to include artifacts (remote)')
    .addOption(bindingOption())
    .action(
      action(async ({ core, out }, o: OptionValues) => {
        const result = await listTaskPage(core, {
          remote: o.remote,
          agent: o.agent,
          contextId: o.context,
          status: o.status,
          pageSize: o.pageSize,
          pageToken: o.pageToken,
          historyLength: o.historyLength,
          includeArtifacts: o.includeArtifacts,
          binding: o.binding,
        });
        out.result('task_list', result, (r: TaskListResult) => {
          if (r.tasks.length === 0)
            return r.source === 'local' ? 'No tasks in the journal yet. Send one with `missive send <agent> ...`.' : `Agent ${r.agent} lists no tasks.`;
          const rows = r.tasks.map((t) => [t.task_id, t.agent_alias, t.state, t.context_id ?? '-', 'updated_at' in t ? t.updated_at : '-']);
          const next = r.next_page_token ? `\nnext page: --page-token ${r.next_page_token}` : '';
          return `${table(['TASK', 'AGENT', 'STATE', 'CONTEXT', 'UPDATED'], rows)}${next}`;
        });
      }),
    );

  task
    .command('cancel <id>')
    .description('ask the agent to cancel a task (CancelTask)')
    .option('--agent <alias>', 'agent to ask when the task is not in the journal')
    .addOption(bindingOption())
    .action(
      action(async ({ core, out }, id: string, o: { agent?: string; binding?: (typeof BINDINGS)[number] }) => {
        return out.result('task_cancel', await cancelTask(core, id, o.agent, o.binding), taskText);
      }),
    );

  task
    .command('wait <id>')
    .description('poll until the task is decided; exit 0 completed, 80 failed, 81 cancelled, 82 timeout, 83 input-required, 84 rejected, 85 auth-required')
    .option('--local', 'read the local journal only (no GetTask)')
    .option('--interval <duration>', 'poll interval, at most 5s (default 1s)')
    .option('--agent <alias>', 'agent to ask when the task is not in the journal')
    .addOption(bindingOption())
    .action(
      action(async ({ core, out }, id: string, o: { local?: boolean; interval?: string; agent?: string; binding?: (typeof BINDINGS)[number] }) => {
        const result = await waitForTask(core, id, {
          local: o.local,
          agent: o.agent,
          binding: o.binding,
          intervalMs: o.interval ? parseDuration(o.interval, '--interval') : undefined,
        });
        return out.outcome('task_wait', result, (r: WaitResult) => `${taskText(r)}\noutcome    ${r.outcome} after ${r.attempts} poll(s)`, waitError);
      }),
    );

  const artifact = task.command('artifact').description('artifacts of a task: list, show, save one to a file, export all to a directory');
  artifact
    .command('list <task-id>')
    .description('list the stored artifacts of a task')
    .action(
      action(async ({ core, out }, taskId: string) =>
        out.result('artifact_list', await listArtifacts(core, taskId), (r: Awaited<ReturnType<typeof listArtifacts>>) =>
          r.artifacts.length
            ? table(
                ['ARTIFACT', 'NAME', 'KIND', 'MEDIA TYPE', 'VERSION', 'CHUNKS'],
                r.artifacts.map((a) => [
                  a.artifact_id,
                  a.name ?? '-',
                  a.kind,
                  a.mime_type ?? '-',
                  String(a.version),
                  `${a.chunks}${a.last_chunk ? ' (complete)' : ''}`,
                ]),
              )
            : `Task ${r.task_id} has no artifacts.`,
        ),
      ),
    );
  artifact
    .command('show <task-id> <artifact-id>')
    .description('show one artifact: text parts inline, other parts summarised')
    .action(
      action(async ({ core, out }, taskId: string, artifactId: string) =>
        out.result('artifact_show', await showArtifact(core, taskId, artifactId), (a: StoredArtifact) => {
          const parts = (a.content.parts as Array<Record<string, unknown>> | undefined) ?? [];
          const body = parts.map((p) =>
            typeof p.text === 'string'
              ? p.text
              : 'raw' in p
                ? `[bytes: ${Buffer.from(String(p.raw), 'base64').length} B ${p.mediaType ?? ''}]`
                : 'url' in p
                  ? `[url: ${p.url}]`
                  : `[data] ${JSON.stringify(p.data)}`,
          );
          return `${keyValues([
            ['artifact', a.artifact_id],
            ['name', a.name],
            ['kind', a.kind],
            ['version', a.version],
          ])}\n\n${body.join('')}`;
        }),
      ),
    );
  artifact
    .command('save <task-id> <artifact-id>')
    .description('write one artifact to a file: text as-is, bytes decoded, data as JSON, url parts as a manifest')
    .requiredOption('--output <file>', 'file to write')
    .option('--force', 'overwrite an existing file')
    .action(
      action(async ({ core, out, deps }, taskId: string, artifactId: string, o: { output: string; force?: boolean }) =>
        out.result(
          'artifact_save',
          await saveArtifact(core, taskId, artifactId, o.output, { force: o.force, cwd: deps.cwd }),
          (r) => `saved ${r.bytes} bytes to ${r.path}`,
        ),
      ),
    );
  artifact
    .command('export <task-id>')
    .description('write every artifact of a task into a directory with safe file names and a manifest.json')
    .requiredOption('--output-dir <dir>', 'directory to write (created when missing)')
    .option('--artifact <id>', 'only this artifact (repeatable)', collect, [])
    .option('--force', 'overwrite existing files')
    .action(
      action(async ({ core, out, deps }, taskId: string, o: { outputDir: string; artifact: string[]; force?: boolean }) =>
        out.result('artifact_export', await exportArtifacts(core, taskId, o.outputDir, { force: o.force, cwd: deps.cwd, artifactIds: o.artifact }), (r) =>
          [
            `exported ${r.files.length} file(s) to ${r.directory}`,
            ...r.files.map((f: { file: string; kind: string; bytes: number }) => `  ${f.file}  (${f.kind}, ${f.bytes} B)`),
          ].join('\n'),
        ),
      ),
    );
}
