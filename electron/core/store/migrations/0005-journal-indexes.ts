/**
 * Schema v5: `events list --agent` reads the agent's newest events from an index instead of walking the whole
 * journal (the other filters already had theirs: type, context, task, timestamp). One index, so an insert stays cheap.
 */
export const name = 'journal_indexes';

export const sql = `
CREATE INDEX idx_events_agent ON events(agent_alias, sequence);
`;
