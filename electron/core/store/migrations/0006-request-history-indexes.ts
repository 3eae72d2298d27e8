/**
 * Schema v6: request history and agent health read the journal through two partial indexes that hold only the
 * events of sends, streams and card fetches (a few per request), so an insert of any other event costs nothing more.
 * - idx_events_calls: an agent's newest call events of one type (history filtered by agent, health's last ok / error)
 *   without walking the agent's stream events.
 * - idx_events_request_message: a request's started / completed / failed events by `payload.message_id`
 *   (history.get, and each listed entry's outcome) without scanning the journal.
 * Queries repeat the index's `event_type IN (…)` term verbatim, which is how SQLite knows a partial index applies.
 */
export const name = 'request_history_indexes';

export const sql = `
CREATE INDEX idx_events_calls ON events(agent_alias, event_type, sequence) WHERE event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed');
CREATE INDEX idx_events_request_message ON events(json_extract(payload_json, '$.message_id')) WHERE event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed');
`;
