/**
 * Reading the event journal: list, follow and export, on either store (the core's `storage().journalReads`). Rows were
 * redacted on write; output is redacted again.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorFromReport, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { EventRow } from '../store/rows/events.js';
import type { JournalCursor, JournalFilters } from '../store/storage.js';
import { parseOutcome, parseTypeFilter, type JournalQuery } from './journal-query.js';
import { redactValue } from '../security/redact.js';
import { writePrivateFile } from '../security/private-files.js';
import { withCallbackAgents } from '../tasks/callback-agents.js';

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
  /** Only events written on this host (os.hostname()), by this OS user, by this actor (a gateway's id, `cli:<pid>`…). */
  host?: string;
  user?: string;
  actor?: string;
  limit?: number;
}

/**
 * An event as the journal's commands give it. A row changed outside missive that cannot be read is kept in its place
 * with `payload: null`, `metadata: {}` and `corrupt`: the `storage::corrupt_row` error naming it (code, message, help).
 */
export function eventRecord(row: EventRow) {
  const record = {
    sequence: row.sequence,
    event_id: row.eventId,
    timestamp: row.timestamp,
    source: row.source,
    type: row.type,
    agent: row.agentAlias,
    context_id: row.contextId,
    task_id: row.taskId,
    // Who wrote it (host, OS user, actor id); null for events journaled before missive recorded it.
    actor: row.actor,
    payload: row.payload,
    metadata: row.metadata,
  };
  return redactValue(row.corrupt ? { ...record, corrupt: { code: row.corrupt.code, message: row.corrupt.message, help: row.corrupt.help ?? null } } : record);
}

/** Warns (stderr, or a notice in the window) of each corrupt event among `rows` that a listing shows marked. */
function warnCorrupt(core: Core, rows: readonly EventRow[]): void {
  for (const row of rows) if (row.corrupt) core.warn(`event ${row.sequence} is shown marked corrupt: ${errorFromReport(row.corrupt).message}`);
}

/** The repository query for a CLI filter; validates --since, --limit, --type and --outcome. */
export function toQuery(filter: EventFilter): JournalQuery {
  if (filter.since && Number.isNaN(Date.parse(filter.since))) throw usageError('invalid_since', `--since "${filter.since}" is not an ISO-8601 timestamp`);
  if (filter.limit !== undefined && (!Number.isInteger(filter.limit) || filter.limit < 1))
    throw usageError('invalid_limit', '--limit must be a positive integer');
  const type = parseTypeFilter(filter.type);
  return {
    type: type.exact,
    typePrefix: type.prefix,
    outcome: parseOutcome(filter.outcome),
    agentAlias: filter.agent,
    contextId: filter.context,
    taskId: filter.task,
    actorHost: filter.host || undefined,
    actorUser: filter.user || undefined,
    actorId: filter.actor || undefined,
    since: filter.since ? new Date(filter.since).toISOString() : undefined,
    search: filter.search || undefined,
    limit: filter.limit,
  };
}

/** The journal reader of the core's store (SQLite or PostgreSQL). */
const reader = async (core: Core) => (await core.storage()).journalReads;

/** How many events `events tail` reads at a time. */
export const TAIL_PAGE = 500;
/** How many events `events export` reads at a time. */
const EXPORT_PAGE = 1000;

/** The newest `filter.limit` (default 50) matching events, oldest first, redacted. */
export async function listJournal(core: Core, filter: EventFilter) {
  const query = toQuery(filter);
  // Callbacks that beat their send are shown under their task's agent (tasks/callback-agents.ts).
  const rows = await withCallbackAgents(await core.storage(), await (await reader(core)).list(query));
  warnCorrupt(core, rows);
  return rows.map(eventRecord);
}

/** The filters of `filter` for reading on from a cursor (validated). */
function filtersOf(filter: EventFilter): JournalFilters {
  const { limit: _limit, afterSequence: _after, ...filters } = toQuery({ ...filter, limit: undefined });
  return filters;
}

/** The journal's end now, for `events tail`: reading on from it gives the events committed after. */
export const journalEnd = async (core: Core): Promise<JournalCursor> => (await reader(core)).end();

/**
 * The next matching events after `cursor`, oldest first (at most `limit`), redacted, and where to read on from; `more`
 * when the page was full. Never returns an event twice nor skips one, on PostgreSQL too
 * (store/postgres/repos/journal-reads.ts).
 */
export async function journalAfter(core: Core, filter: EventFilter, cursor: JournalCursor, limit = TAIL_PAGE) {
  const filters = filtersOf(filter);
  const page = await (await reader(core)).after(filters, cursor, limit);
  warnCorrupt(core, page.events);
  const events = await withCallbackAgents(await core.storage(), page.events);
  return { events: events.map(eventRecord), cursor: page.cursor, more: page.more };
}

/** Writes the filtered journal as redacted NDJSON; refuses to overwrite without `force`. */
export async function exportJournal(core: Core, filter: EventFilter, output: string, cwd: string, force = false) {
  const path = resolve(cwd, output);
  if (existsSync(path) && !force) throw usageError('output_exists', `${path} exists`, 'Pass --force to overwrite it.');
  const filters = filtersOf(filter);
  const journal = await reader(core);
  let cursor = journal.start();
  const lines: string[] = [];
  let corrupt = 0;
  for (;;) {
    const page = await journal.after(filters, cursor, EXPORT_PAGE);
    for (const row of page.events) {
      if (row.corrupt) corrupt++;
      lines.push(JSON.stringify(eventRecord(row)));
    }
    cursor = page.cursor;
    if (!page.more) break;
  }
  writePrivateFile(path, lines.length ? `${lines.join('\n')}\n` : '');
  if (corrupt) core.warn(`${corrupt} event(s) could not be read (changed outside missive): exported marked "corrupt", with payload null`);
  return { output: path, events: lines.length, corrupt };
}
