/** `missive history list|show`: the sends and streams the journal remembers, as the desktop History view shows them. */
import { Option, type Command } from 'commander';
import { getHistoryEntry, listHistory } from '../../core/history/service.js';
import { findRequestMessageId } from '../../core/history/find.js';
import { findTaskCommand } from '../../core/history/unconfirmed.js';
import type { HistoryEntry } from '../../../shared/ipc/contract.js';
import { missiveCommand } from '../../../shared/copy-as.js';
import type { Action } from '../command-context.js';
import { integer } from '../options.js';
import { keyValues, table } from '../human.js';
import { terminalBlock } from '../terminal-text.js';
import { actorText } from '../actor-text.js';

const outcome = (e: HistoryEntry) => (e.state ? `${e.outcome} (${e.state.replace(/^TASK_STATE_/, '').toLowerCase()})` : e.outcome);

/** The command that sends the same request again (what "Re-run" does in the desktop app). */
const rerun = (e: HistoryEntry) => (e.agent_alias ? missiveCommand({ operation: e.operation, agent: e.agent_alias, inputs: e.inputs }) : null);

export function registerHistoryCommands(program: Command, action: Action): void {
  const history = program.command('history').description('sends and streams from the journal, newest first (the desktop History view)');
  history
    .command('list')
    .description('the newest sends and streams')
    .option('--agent <alias>', 'only requests to this agent')
    .addOption(new Option('--operation <op>', 'only send or only stream').choices(['send', 'stream']))
    .option('--limit <n>', 'how many, 1 to 1000', integer('--limit', 1, 1000), 50)
    .option('--before <sequence>', 'the page before this journal sequence (next_before_sequence of the last page)', integer('--before', 1))
    .action(
      action(async ({ core, out }, o: { agent?: string; operation?: 'send' | 'stream'; limit: number; before?: number }) => {
        const page = await listHistory(core, { agent: o.agent, operation: o.operation, limit: o.limit, beforeSequence: o.before });
        out.result('history_list', page, (d: typeof page) =>
          d.entries.length
            ? [
                table(
                  ['STARTED', 'OP', 'AGENT', 'OUTCOME', 'REQUEST', 'ANSWER', 'MESSAGE ID'],
                  d.entries.map((e) => [
                    e.started_at,
                    e.operation,
                    e.agent_alias ?? '-',
                    outcome(e),
                    e.request_text,
                    e.answer_text ?? (e.error ? e.error.code : '-'),
                    e.message_id,
                  ]),
                ),
                ...(d.next_before_sequence ? [`more: missive history list --before ${d.next_before_sequence}`] : []),
              ].join('\n')
            : 'No sends or streams in the journal yet: missive send <agent> <text>.',
        );
      }),
    );
  history
    .command('show <message-id>')
    .description('one request by its message id (or a unique prefix of it): what was sent, what came back, and the command to run it again')
    .action(
      action(async ({ core, out }, idOrPrefix: string) => {
        const messageId = await findRequestMessageId(core, idOrPrefix);
        // The CLI process keeps no wire between runs: `missive send --show-wire` prints it as it happens.
        const shown = await getHistoryEntry(core, messageId, () => null);
        out.result('history_show', { ...shown, rerun: rerun(shown.entry) }, (d: typeof shown & { rerun: string | null }) =>
          [
            keyValues([
              ['message', d.entry.message_id],
              ['operation', d.entry.operation],
              ['agent', d.entry.agent_alias],
              ['context', d.entry.context_id],
              ['task', d.entry.task_id],
              ['started', d.entry.started_at],
              ['finished', d.entry.finished_at],
              ['outcome', outcome(d.entry)],
              ['error', d.entry.error ? `${d.entry.error.code}: ${d.entry.error.message}` : null],
              ['by', d.entry.actor ? actorText(d.entry.actor) : null],
            ]),
            '',
            'request:',
            terminalBlock(d.entry.request_text || '(no text parts)'),
            '',
            'answer:',
            terminalBlock(d.entry.answer_text ?? '(no text)'),
            // Whether the agent got it is unknown until it is asked: that records its task on this request.
            ...(d.entry.outcome === 'unconfirmed' && !d.entry.task_id ? ['', `find its task: ${findTaskCommand(d.entry.agent_alias)}`] : []),
            ...(d.rerun ? ['', `run again: ${terminalBlock(d.rerun)}`] : []),
          ].join('\n'),
        );
      }),
    );
}
