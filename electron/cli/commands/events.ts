/** `missive events list|tail|export|replay`: the redacted journal, and collective steps rebuilt from it. */
import { Option, type Command, type OptionValues } from 'commander';
import { EVENT_OUTCOMES } from '../../core/events/journal-query.js';
import { eventRecord, exportJournal, journalAfter, journalEnd, listJournal, type EventFilter } from '../../core/events/journal.js';
import type { Action } from '../command-context.js';
import { integer } from '../options.js';
import { table } from '../human.js';
import { actorText } from '../actor-text.js';
import { replayContext, replayError } from '../../core/replay/replay.js';
import { replayText } from '../replay-text.js';

const filterOptions = (cmd: Command) =>
  cmd
    .option('--type <type>', 'event type, e.g. a2a.send.completed, or a prefix ending in .*, e.g. a2a.push.*')
    .option('--agent <alias>', 'only events of this agent')
    .option('--context <id>', 'only events of this context')
    .option('--task <id>', 'only events of this task')
    .option('--since <timestamp>', 'only events at or after this ISO-8601 time')
    .option('--search <text>', 'only events whose type, agent, ids or (redacted) payload contain this text, any case')
    .option('--host <host>', 'only events written on this host (its hostname)')
    .option('--user <user>', 'only events written by this OS user')
    .option('--actor <id>', 'only events written by this actor: a gateway id (see gateway status), or cli:<pid>, ui:<pid>, webhook:<pid>')
    .addOption(
      new Option(
        '--outcome <outcome>',
        'failed: only failures (failed calls and runs, refused callbacks, tasks that ended failed or rejected, collectives that did not succeed)',
      ).choices([...EVENT_OUTCOMES]),
    );

const filterOf = (o: Record<string, string | undefined>, limit?: number): EventFilter => ({
  type: o.type,
  agent: o.agent,
  context: o.context,
  task: o.task,
  since: o.since,
  search: o.search,
  outcome: o.outcome,
  host: o.host,
  user: o.user,
  actor: o.actor,
  limit,
});

type Record_ = ReturnType<typeof eventRecord>;
/** A row changed outside missive that cannot be read shows `[corrupt]` after its type (its error is warned on stderr). */
const row = (e: Record_) => [
  String(e.sequence),
  e.timestamp,
  'corrupt' in e ? `${e.type} [corrupt]` : e.type,
  e.agent ?? '-',
  e.task_id ?? e.context_id ?? '-',
  actorText(e.actor),
];

export function registerEventsCommands(program: Command, action: Action): void {
  const events = program.command('events').description('the local event journal (redacted)');

  filterOptions(events.command('list').description('recent events, oldest first'))
    .option('--limit <n>', 'how many, 1 to 1000000 (default 50)', integer('--limit', 1, 1_000_000), 50)
    .action(
      action(async ({ core, out }, o: OptionValues) => {
        const records = await listJournal(core, filterOf(o, o.limit));
        out.result('events_list', { events: records, count: records.length }, (d) =>
          d.count ? table(['seq', 'time', 'type', 'agent', 'task/context', 'by'], d.events.map(row)) : 'no events match',
        );
      }),
    );

  filterOptions(events.command('tail').description('follow new events until --timeout (or Ctrl-C)'))
    .option('--poll-interval <ms>', 'how often to look for new rows, 50 to 3600000 ms (default 500)', integer('--poll-interval', 50, 3_600_000), 500)
    .action(
      action(async ({ core, out, flags }, o: OptionValues) => {
        const interval: number = o.pollInterval;
        const deadline = flags.timeout ? Date.now() + core.timeoutMs : Number.POSITIVE_INFINITY;
        let stop = false;
        const onSignal = () => (stop = true);
        process.once('SIGINT', onSignal);
        let cursor = await journalEnd(core);
        try {
          while (!stop && Date.now() < deadline) {
            const page = await journalAfter(core, filterOf(o), cursor);
            for (const e of page.events) out.result('event_record', e, (x) => row(x).join('  '));
            cursor = page.cursor;
            // A full page: the next one is read at once.
            if (!page.more) await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, deadline - Date.now()))));
          }
        } finally {
          process.off('SIGINT', onSignal);
        }
      }),
    );

  filterOptions(events.command('export').description('write the journal as redacted NDJSON'))
    .requiredOption('--output <file>', 'where to write')
    .option('--force', 'overwrite an existing file')
    .action(
      action(async ({ core, out, deps }, o: OptionValues) => {
        out.result('events_export', await exportJournal(core, filterOf(o), o.output, deps.cwd, o.force), (d) =>
          d.corrupt ? `wrote ${d.events} event(s) to ${d.output}, ${d.corrupt} of them marked corrupt` : `wrote ${d.events} event(s) to ${d.output}`,
        );
      }),
    );

  events
    .command('replay')
    .description(
      'rebuild the bcast/barrier/gather/reduce summaries of a context from the journal alone and check them against the stored results; exit 0 all match, 65 a mismatch',
    )
    .requiredOption('--context <id>', 'the context (id or name) to replay')
    .action(
      action(async ({ core, out }, o: OptionValues) =>
        out.outcome('events_replay', await replayContext(core, { contextId: o.context }), replayText, replayError),
      ),
    );
}
