/**
 * Each agent's newest call events on PostgreSQL (agent health): SQLite's `latestCallEvent` for every (agent, type)
 * pair in one statement. Each pair is one backward read of v1's partial index idx_events_calls (agent_alias,
 * event_type, sequence), stopped at its first row: the cost grows with the pairs asked, not with the journal. The
 * statement repeats the index's `event_type IN (…)` term, so the planner knows the partial index applies whatever the
 * types asked. Agents and types are arrays (one round trip); `agent_alias` collates "C", which the comparison then uses
 * (a non-default implicit collation wins over the parameters' default one), as the index needs.
 *
 * "Newest" is the highest sequence, as on SQLite: sequences follow inserts, not commits, which for one agent's calls
 * differs only between transactions in flight at the same moment.
 */
import { CALL_EVENT_TYPES, callEventOf, type CallEventType, type JournalRow, type RawJournalRow } from '../../rows/history.js';
import type { CallEventReader } from '../../storage.js';
import { run, type Query } from './query.js';

/** The event types idx_events_calls holds (its predicate in 0001-init.ts, same list, same order). */
const CALL_TYPES = `event_type IN (${CALL_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`;

/** The statement `newest` runs (tests EXPLAIN it): $1 the agents, $2 the types. */
export const newestCallEventsSql = `SELECT e.* FROM unnest($1::text[]) AS a(alias) CROSS JOIN unnest($2::text[]) AS t(type) CROSS JOIN LATERAL (
  SELECT sequence, timestamp, event_type, agent_alias, context_id, task_id, payload_json FROM events
  WHERE agent_alias = a.alias AND event_type = t.type AND ${CALL_TYPES}
  ORDER BY sequence DESC LIMIT 1
) AS e`;

export function callEventReader(query: Query): CallEventReader {
  return {
    async newest(agents: readonly string[], types: readonly CallEventType[]): Promise<JournalRow[]> {
      if (agents.length === 0 || types.length === 0) return [];
      const result = await run<RawJournalRow & { [column: string]: unknown }>(query, 'callEvents.newest', newestCallEventsSql, [agents, types]);
      return result.rows.map(callEventOf);
    },
  };
}
