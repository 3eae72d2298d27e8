/**
 * Schema v4: `events.task_id` no longer references `tasks`. The journal records callbacks (and other events) for
 * tasks missive has no row for — a push for a task sent from another profile, with no agent to own a placeholder —
 * and they must still be found by task id (`events list --task`). The table is rebuilt (SQLite cannot drop a
 * foreign key in place), keeping every row, its sequence and the AUTOINCREMENT counter.
 */
export const name = 'events_unknown_tasks';

const ts = `TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
const json = (column: string) => `${column} TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(${column}))`;

export const sql = `
CREATE TABLE events_v4 (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  timestamp ${ts},
  source TEXT NOT NULL DEFAULT 'cli',
  event_type TEXT NOT NULL,
  agent_alias TEXT REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id TEXT,
  dedupe_key TEXT UNIQUE,
  ${json('payload_json')},
  ${json('metadata_json')},
  redacted INTEGER NOT NULL DEFAULT 1 CHECK (redacted IN (0,1))
) STRICT;

INSERT INTO events_v4 (sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, redacted)
  SELECT sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, redacted FROM events;
DELETE FROM sqlite_sequence WHERE name = 'events_v4';
INSERT INTO sqlite_sequence (name, seq) SELECT 'events_v4', seq FROM sqlite_sequence WHERE name = 'events';
DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;

CREATE INDEX idx_events_type ON events(event_type, sequence);
CREATE INDEX idx_events_context ON events(context_id, sequence);
CREATE INDEX idx_events_task ON events(task_id, sequence);
CREATE INDEX idx_events_timestamp ON events(timestamp);
`;
