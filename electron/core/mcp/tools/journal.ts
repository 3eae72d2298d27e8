/**
 * The journal as tools: search_journal (the events, filtered, one bounded page at a time, as the desktop's Events view
 * reads them) and history (the sends and streams, as `missive history` lists them). Everything is redacted on write
 * and again on read; the server scrubs the result once more.
 */
import { z } from 'zod';
import { usageError } from '../../../../shared/errors.js';
import { queryJournalPage, type JournalPageInput } from '../../events/journal-page.js';
import { eventRecord, toQuery } from '../../events/journal.js';
import { EVENT_OUTCOMES } from '../../events/journal-query.js';
import { getHistoryEntry, listHistory } from '../../history/service.js';
import type { HistoryEntry } from '../../../../shared/ipc/contract.js';
import { defineTool, type ToolSpec } from '../tool-spec.js';

/** The most events or history entries one call answers. */
export const MAX_PAGE = 200;
/** How much of one event's payload its line shows (structured content has it whole). */
const PAYLOAD_CHARS = 300;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** `before:<sequence>` as search_journal answers it → where the next page starts. */
function parseCursor(cursor: string | undefined): Pick<JournalPageInput, 'beforeSequence' | 'afterSequence'> {
  if (cursor === undefined) return {};
  const match = /^(before|after):(\d{1,15})$/.exec(cursor);
  if (!match)
    throw usageError(
      'invalid_cursor',
      `cursor "${cut(cursor, 40)}" is not one search_journal gave`,
      'Pass back next_cursor of the previous answer as it is, or leave it out.',
    );
  return match[1] === 'before' ? { beforeSequence: Number(match[2]) } : { afterSequence: Number(match[2]) };
}

const cursorOf = (next: { beforeSequence: number } | { afterSequence: number } | undefined): string | null =>
  !next ? null : 'beforeSequence' in next ? `before:${next.beforeSequence}` : `after:${next.afterSequence}`;

type EventRecord = ReturnType<typeof eventRecord>;

const eventLine = (e: EventRecord) => {
  const where = [e.agent && `agent ${e.agent}`, e.task_id && `task ${e.task_id}`, !e.task_id && e.context_id && `context ${e.context_id}`]
    .filter(Boolean)
    .join(', ');
  const who = e.actor ? ` by ${e.actor.id}` : '';
  const payload = e.payload === null || e.payload === undefined ? '' : ` ${cut(JSON.stringify(e.payload), PAYLOAD_CHARS)}`;
  return `#${e.sequence} ${e.timestamp} ${e.type} [${e.source}${who}]${where ? ` (${where})` : ''}${payload}`;
};

const searchJournal = defineTool({
  name: 'search_journal',
  title: 'Search the event journal',
  description: [
    "Searches missive's event journal (every send, answer, task update, push callback, collective step and MCP call,",
    'with credentials redacted), newest matching events first page by page, each page oldest first. Filter by event type',
    '(exact, or a prefix like "a2a.send.*"), agent, context, task, time, free text, or outcome "failed" (only failures).',
    'A page holds at most `limit` events; when next_cursor is given, pass it back as `cursor` for older events.',
  ].join(' '),
  input: z.strictObject({
    type: z
      .string()
      .min(1)
      .max(200)
      .regex(/^(?:[^*]+|[^*]*[^*.]\.\*)$/, 'is neither an event type nor a prefix ending in ".*"')
      .optional()
      .describe('An event type (a2a.send.completed, missive.mcp.call) or a prefix ending in ".*" (a2a.send.*, missive.mcp.*).'),
    agent: z.string().min(1).max(200).optional().describe('Only events of this agent alias.'),
    context_id: z.string().min(1).max(200).optional().describe('Only events of this A2A context id.'),
    task_id: z.string().min(1).max(200).optional().describe('Only events of this A2A task id.'),
    since: z
      .string()
      .min(1)
      .max(64)
      .refine((v) => !Number.isNaN(Date.parse(v)), 'is not an ISO-8601 time (2026-01-31T12:00:00Z)')
      .optional()
      .describe('Only events at or after this ISO-8601 time (2026-01-31T12:00:00Z).'),
    search: z.string().min(1).max(500).optional().describe('Free text, any case, matched in the type, agent, ids and the (redacted) payload.'),
    outcome: z
      .enum(EVENT_OUTCOMES)
      .optional()
      .describe('failed: only the events that record a failure (failed calls, tasks that ended failed or rejected, collectives that did not succeed).'),
    limit: z.number().int().min(1).max(MAX_PAGE).optional().describe(`How many events at most (1 to ${MAX_PAGE}, default 50).`),
    cursor: z.string().min(1).max(64).optional().describe('next_cursor of the previous answer, for the page of older events.'),
  }),
  annotations: { title: 'Search the event journal', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { core }) {
    const { limit: _limit, ...filters } = toQuery({
      type: args.type,
      agent: args.agent,
      context: args.context_id,
      task: args.task_id,
      since: args.since,
      search: args.search,
      outcome: args.outcome,
    });
    const input: JournalPageInput = { ...filters, limit: args.limit ?? 50, ...parseCursor(args.cursor) };
    const page = await queryJournalPage(core, input);
    const events = page.events.map(eventRecord);
    const next = cursorOf(page.next);
    const text = [
      events.length ? `${events.length} event(s), oldest first:` : 'No events match.',
      ...events.map(eventLine),
      ...(next ? ['', `More may match: call again with cursor "${next}".`] : []),
    ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: { events, count: events.length, next_cursor: next } };
  },
});

const entryLine = (e: HistoryEntry) => {
  const answer = e.error ? `error: ${e.error.message}` : e.answer_text ? `answer: ${JSON.stringify(e.answer_text)}` : `(${e.outcome})`;
  const ids = [e.task_id && `task ${e.task_id}${e.state ? ` ${e.state}` : ''}`, e.context_id && `context ${e.context_id}`].filter(Boolean).join(', ');
  return `${e.started_at} ${e.operation} to ${e.agent_alias ?? '?'} [${e.outcome}] message ${e.message_id}${ids ? ` (${ids})` : ''}\n  request: ${JSON.stringify(e.request_text)}\n  ${answer}`;
};

const history = defineTool({
  name: 'history',
  title: 'Request history',
  description: [
    "Lists the messages sent to agents (by missive's CLI, desktop app, gateways or this MCP server), newest first: the",
    'agent, what was sent, the answer (texts shortened to 200 characters), outcome, task and context ids. Give',
    'message_id for one request in full, with its request and response JSON.',
  ].join(' '),
  input: z.strictObject({
    agent: z.string().min(1).max(200).optional().describe('Only requests to this agent alias.'),
    operation: z.enum(['send', 'stream']).optional().describe('Only sends (send_message) or only streams.'),
    message_id: z.string().min(1).max(200).optional().describe('One request by its message id (as listed): the entry whole, with the request and response.'),
    limit: z.number().int().min(1).max(MAX_PAGE).optional().describe(`How many entries at most (1 to ${MAX_PAGE}, default 20).`),
    cursor: z.number().int().min(1).optional().describe('next_cursor of the previous answer, for older entries.'),
  }),
  annotations: { title: 'Request history', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { core }) {
    if (args.message_id) {
      const found = await getHistoryEntry(core, args.message_id, () => null);
      const { wire: _wire, ...rest } = found;
      return { content: [{ type: 'text', text: entryLine(found.entry) }], structuredContent: rest };
    }
    const page = await listHistory(core, { agent: args.agent, operation: args.operation, limit: args.limit ?? 20, beforeSequence: args.cursor });
    const next = page.next_before_sequence;
    const text = [
      page.entries.length ? `${page.entries.length} request(s), newest first:` : 'No requests match.',
      ...page.entries.map(entryLine),
      ...(next !== null ? ['', `Older requests: call again with cursor ${next}.`] : []),
    ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: { entries: page.entries, next_cursor: next } };
  },
});

export const JOURNAL_TOOLS: readonly ToolSpec[] = [searchJournal, history];
