/** `missive logs [--source profile-files|event-journal] [--limit N]`: the newest log records of the profile, redacted. */
import { Option, type Command } from 'commander';
import { LOG_SOURCES, readLogs, type LogRecord, type LogsResult } from '../../core/logs/read.js';
import type { Action } from '../command-context.js';
import { integer } from '../options.js';
import { terminalLine } from '../terminal-text.js';

/** One record as a terminal line: where it comes from, then its (escaped) text. */
function recordLine(r: LogRecord): string {
  const where = r.source === 'event-journal' ? `#${r.sequence} ${r.timestamp ?? ''} ${r.level ?? ''}` : `${r.file}${r.line ? `:${r.line}` : ''}`;
  return `${terminalLine(where.trim())}  ${terminalLine(r.message)}`;
}

function logsText(d: LogsResult): string {
  if (d.count === 0) {
    const hint = d.source === 'profile-files' ? '\n(missive logs --source event-journal shows the event journal)' : '';
    return `${terminalLine(d.note ?? 'no log records')}${hint}`;
  }
  const from = d.source === 'profile-files' ? `${d.files?.length ?? 0} file(s) in ${d.directory}` : 'the event journal';
  return [`${d.count} record(s) from ${terminalLine(from)}`, ...d.records.map(recordLine)].join('\n');
}

export function registerLogsCommand(program: Command, action: Action): void {
  program
    .command('logs')
    .description('the newest log records of the profile (log files or the event journal), redacted')
    .addOption(
      new Option('--source <source>', 'profile-files: <state>/logs/*.{log,txt,ndjson,jsonl,json}; event-journal: the newest journal events')
        .choices([...LOG_SOURCES])
        .default('profile-files'),
    )
    .option('--limit <n>', 'how many records, 1 to 100000', integer('--limit', 1, 100_000), 50)
    .action(
      action(async ({ core, out }, o: { source: string; limit: number }) => {
        const logs = await readLogs(core, { source: o.source, limit: o.limit });
        if (out.mode !== 'ndjson') return out.result('logs', logs, logsText);
        // NDJSON: the source first, then one line per record, as they would stream.
        const { records, ...source } = logs;
        out.event('log_source', source, () => '');
        for (const r of records) out.event('log_record', r, () => '');
      }),
    );
}
