/**
 * The journal's filters as both engines read them: SQLite's event query (repos/events.ts, repos/journal-query.ts) and
 * PostgreSQL's (postgres/repos/journal-reads.ts). Neither engine owns this module.
 */

export interface EventQuery {
  type?: string;
  since?: string;
  agentAlias?: string;
  contextId?: string;
  taskId?: string;
  /** Who wrote it (store/actor.ts): the host, the OS user, the actor id (a gateway's id, `cli:<pid>`…); exact. */
  actorHost?: string;
  actorUser?: string;
  actorId?: string;
  afterSequence?: number;
  /** Only sequences below this one, and with `fromSequence` from that one on: the window of sequences one statement of a bounded read scans (sqlite/journal-reads.ts `page`). */
  beforeSequence?: number;
  fromSequence?: number;
  limit?: number;
  /** Free text, matched case-insensitively as a substring of the type, agent, context id, task id or redacted payload. */
  search?: string;
}

export const EVENT_OUTCOMES = ['failed'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];

/** The event query with the filters SQLite's has no column for: a type prefix (`--type a2a.push.*`) and an outcome. */
export interface JournalQuery extends EventQuery {
  typePrefix?: string;
  outcome?: EventOutcome;
}
