/** `missive context …`: local names, forks, closing and redacted export of A2A contexts. */
import type { Command } from 'commander';
import {
  closeContext,
  createContext,
  exportContext,
  forkContext,
  listContextSummaries,
  nameContext,
  showContext,
  type ContextListItem,
} from '../../core/contexts/service.js';
import type { ContextRow } from '../../core/store/rows/contexts.js';
import { contextThread, type ThreadArtifact, type ThreadMessage } from '../../core/contexts/thread.js';
import { terminalBlock, terminalLine } from '../terminal-text.js';
import type { Action } from '../command-context.js';
import { integer } from '../options.js';
import { keyValues, table } from '../human.js';

const contextText = (c: ContextRow) =>
  keyValues([
    ['context', c.context_id],
    ['name', c.name],
    ['state', c.state],
    ['parent', c.parent_context_id],
    ['created', c.created_at],
  ]);

export function registerContextCommands(program: Command, action: Action): void {
  const context = program.command('context').description('A2A contexts: local names, forks, close, and a redacted export');
  context
    .command('create')
    .description('create a context (a new UUID unless --id)')
    .option('--name <name>', 'a local name usable wherever --context is')
    .option('--id <id>', 'use this contextId')
    .action(action(async ({ core, out }, o: { name?: string; id?: string }) => out.result('context_create', await createContext(core, o), contextText)));
  context
    .command('name <context> <name>')
    .description('give a context a local name')
    .action(action(async ({ core, out }, ref: string, name: string) => out.result('context_name', await nameContext(core, ref, name), contextText)));
  context
    .command('list')
    .description('contexts, most recently updated first')
    .option('--limit <n>', 'at most N, 1 to 1000000 (default 100)', integer('--limit', 1, 1_000_000))
    .action(
      action(async ({ core, out }, o: { limit?: number }) =>
        out.result('context_list', { contexts: await listContextSummaries(core, o.limit) }, (d: { contexts: ContextListItem[] }) =>
          d.contexts.length
            ? table(
                ['CONTEXT', 'NAME', 'STATE', 'TASKS', 'MESSAGES', 'UPDATED'],
                d.contexts.map((c) => [c.context_id, c.name ?? '-', c.state, String(c.tasks), String(c.messages), c.updated_at]),
              )
            : 'No contexts yet: missive context create --name <name>, or send with --context.',
        ),
      ),
    );
  context
    .command('show <context>')
    .description('a context (by id or name) with its counts and tasks')
    .action(
      action(async ({ core, out }, ref: string) =>
        out.result('context_show', await showContext(core, ref), (d: Awaited<ReturnType<typeof showContext>>) =>
          [
            contextText(d.context),
            `counts     ${d.counts.messages} messages, ${d.counts.tasks} tasks, ${d.counts.artifacts} artifacts, ${d.counts.events} events`,
            '',
            table(
              ['TASK', 'AGENT', 'STATE'],
              d.tasks.map((t) => [String(t.task_id), String(t.agent_alias), String(t.state)]),
            ),
          ].join('\n'),
        ),
      ),
    );
  context
    .command('thread <context>')
    .description('a context (by id or name) as a conversation: its messages and artifacts, oldest first')
    .action(
      action(async ({ core, out }, ref: string) =>
        out.result('context_thread', await contextThread(core, ref), (d: Awaited<ReturnType<typeof contextThread>>) =>
          [
            contextText(d.context),
            '',
            ...(d.items.length ? d.items.map((item) => threadItemText(item as ThreadMessage | ThreadArtifact)) : ['(nothing in this context yet)']),
          ].join('\n'),
        ),
      ),
    );
  context
    .command('fork <context>')
    .description('start a new context from this one (the parent is recorded)')
    .option('--name <name>', 'name of the new context')
    .action(action(async ({ core, out }, ref: string, o: { name?: string }) => out.result('context_fork', await forkContext(core, ref, o.name), contextText)));
  context
    .command('close <context>')
    .description('close a context locally (sends into it are refused; fork to continue)')
    .action(action(async ({ core, out }, ref: string) => out.result('context_close', await closeContext(core, ref), contextText)));
  context
    .command('export <context>')
    .description('the context with its messages, tasks, artifacts and events, redacted; to stdout or --output')
    .option('--output <file>', 'write the JSON document here')
    .option('--force', 'overwrite an existing file')
    .action(
      action(async ({ core, out, deps }, ref: string, o: { output?: string; force?: boolean }) => {
        const result = await exportContext(core, ref, { output: o.output, force: o.force, cwd: deps.cwd });
        if (result.document) out.result('context_export', result.document, (d) => JSON.stringify(d, null, 2));
        else out.result('context_export', { path: result.path, counts: result.counts }, (d) => `exported to ${d.path}`);
      }),
    );
}

/** One thread item for the terminal: who and when on one line, the text indented below it. */
function threadItemText(item: ThreadMessage | ThreadArtifact): string {
  const indent = (text: string) => terminalBlock(text).replace(/^/gm, '    ');
  if (item.kind === 'artifact') {
    const head = `${item.at}  artifact ${terminalLine(item.name ?? item.artifact_id)} v${item.version} (${terminalLine(item.summary)}) · task ${item.task_id}`;
    return item.text ? `${head}\n${indent(item.text)}${item.text_truncated ? '\n    …' : ''}` : head;
  }
  const who = item.direction === 'request' ? 'you' : terminalLine(item.agent_alias ?? item.role);
  const state = item.state ? ` · ${item.state.replace(/^TASK_STATE_/, '').toLowerCase()}` : '';
  return `${item.at}  ${who} (${item.role})${state}${item.task_id ? ` · task ${item.task_id}` : ''}\n${indent(item.text ?? '(no text)')}`;
}
