/** Reading the event journal: list, follow and export. Rows were redacted on write; output is redacted again. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import { listEvents, type EventRow } from '../store/repos/events.js';
import { journalEvents, parseOutcome, parseTypeFilter, type JournalQuery } from './journal-query.js';
import { redactValue } from '../security/redact.js';
import { writePrivateFile } from '../security/private-files.js';

export interface EventFilter {
  /** An exact event type, or a prefix ending in `.*` (`a2a.push.*`). */
  type?: string;
  agent?: string;
  context?: string;
  task?: string;
  since?: string;
  /** Free text: case-insensitive, against type, agent, ids and the redacted payload (the Events view's search). */
  search?: string;
  /** `failed`: only the events that record a failure (see journal-query.ts). */
  outcome?: string;
  limit?: number;
}

export function eventRecord(row: EventRow) {
  return redactValue({
    sequence: row.sequence,
    event_id: row.eventId,
    timestamp: row.timestamp,
    source: row.source,
    type: row.type,
    agent: row.agentAlias,
    context_id: row.contextId,
    task_id: row.taskId,
    payload: row.payload,
    metadata: row.metadata,
  });
}

/** The repository query for a CLI filter; validates --since, --limit, --type and --outcome. */
export function toQuery(filter: EventFilter): JournalQuery {
  if (filter.since && Number.isNaN(Date.parse(filter.since))) throw usageError('invalid_since', `--since "${filter.since}" is not an ISO-8601 timestamp`);
  if (filter.limit !== undefined && (!Number.isInteger(filter.limit) || filter.limit < 1)) throw usageError('invalid_limit', '--limit must be a positive integer');
  const type = parseTypeFilter(filter.type);
  return {
    type: type.exact,
    typePrefix: type.prefix,
    outcome: parseOutcome(filter.outcome),
    agentAlias: filter.agent,
    contextId: filter.context,
    taskId: filter.task,
    since: filter.since ? new Date(filter.since).toISOString() : undefined,
    search: filter.search || undefined,
    limit: filter.limit,
  };
}

export const listJournal = (core: Core, filter: EventFilter) => journalEvents(core.store().db, toQuery(filter)).map(eventRecord);

/** Events after `afterSequence`, oldest first, for `events tail`. */
export const journalAfter = (core: Core, filter: EventFilter, afterSequence: number) =>
  journalEvents(core.store().db, { ...toQuery(filter), afterSequence, limit: 500 }).map(eventRecord);

export function latestSequence(core: Core): number {
  return listEvents(core.store().db, { limit: 1 }).at(-1)?.sequence ?? 0;
}

/** Writes the filtered journal as redacted NDJSON; refuses to overwrite without `force`. */
export function exportJournal(core: Core, filter: EventFilter, output: string, cwd: string, force = false) {
  const path = resolve(cwd, output);
  if (existsSync(path) && !force) throw usageError('output_exists', `${path} exists`, 'Pass --force to overwrite it.');
  let after = 0;
  const lines: string[] = [];
  for (;;) {
    const batch = journalEvents(core.store().db, { ...toQuery({ ...filter, limit: undefined }), afterSequence: after, limit: 1000 });
    if (batch.length === 0) break;
    for (const row of batch) lines.push(JSON.stringify(eventRecord(row)));
    after = batch.at(-1)!.sequence;
  }
  writePrivateFile(path, lines.length ? `${lines.join('\n')}\n` : '');
  return { output: path, events: lines.length };
}
