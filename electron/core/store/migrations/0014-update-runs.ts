/**
 * Schema v14: an update is a narrow row, found through its run. The updates of a stream, a task subscription or a
 * push callback burst written in one tick of the store's group writer (store.ts) are `events` rows marked
 * `via_run = 1`, indexed only by (task_id, sequence): the type, context, agent and timestamp indexes, and the
 * event_id unique index, become partial (`WHERE via_run IS NULL`), so a narrow row costs two b-trees where it cost
 * nine. `journal_runs` answers the other filters: one row per tick and (agent, context) holding the first and last
 * sequence of the run's updates, which variants it holds (a bit per UPDATE_EVENT_TYPES entry), how many, and the
 * time of its last one. A run's range holds only rows of its own tick (a tick is one transaction), so reading a run is
 * a short walk of the primary key (store/sqlite/journal-runs.ts). Every row keeps every column, so every row-level
 * filter (search, actor, outcome, type prefix) reads it as before.
 *
 * The table is rebuilt (SQLite cannot change a UNIQUE column constraint or drop a CHECK in place) with every row and
 * sequence and the AUTOINCREMENT counter. It drops what cost each append and bought nothing:
 * - the JSON checks (`json_valid` parses the whole payload; every writer serialises with JSON.stringify, and a row
 *   changed outside missive is read as corrupt, stored-json.ts);
 * - the context foreign key (the journal is append-only history, like the agent alias since v11; no context is ever
 *   deleted, and SQLite would need a full index on context_id to honour ON DELETE SET NULL);
 * - dedupe_key's unique index now holds only the rows that have a key;
 * - the two indexes of requests and calls (v6) are behind `via_run IS NULL` too: SQLite evaluated their `IN (…)` lists
 *   for every insert, about 4 µs of a narrow row's 15 (measured side by side, 5 rounds); behind the guard it never
 *   does. Their queries repeat the new predicate (repos/history.ts).
 * Rows written before are not narrow: they stay in every index, and read as before.
 */
export const name = 'update_runs';

const ts = `TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

const EVENT_COLUMNS =
  'sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, redacted, actor_host, actor_user, actor_id';

export const sql = `
-- step: copying the journal's events into their new table
CREATE TABLE events_v14 (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  timestamp ${ts},
  source TEXT NOT NULL DEFAULT 'cli',
  event_type TEXT NOT NULL,
  agent_alias TEXT,
  context_id TEXT,
  task_id TEXT,
  dedupe_key TEXT,
  payload_json TEXT NOT NULL DEFAULT '{}',
  metadata_json TEXT NOT NULL DEFAULT '{}',
  redacted INTEGER NOT NULL DEFAULT 1 CHECK (redacted IN (0,1)),
  actor_host TEXT,
  actor_user TEXT,
  actor_id TEXT,
  via_run INTEGER CHECK (via_run = 1)
) STRICT;

INSERT INTO events_v14 (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM events ORDER BY sequence;
DELETE FROM sqlite_sequence WHERE name = 'events_v14';
INSERT INTO sqlite_sequence (name, seq) SELECT 'events_v14', seq FROM sqlite_sequence WHERE name = 'events';
DROP TABLE events;
ALTER TABLE events_v14 RENAME TO events;

-- step: indexing the journal by task
CREATE INDEX idx_events_task ON events(task_id, sequence);
-- step: indexing the journal by event id and dedupe key
CREATE UNIQUE INDEX idx_events_id ON events(event_id) WHERE via_run IS NULL;
CREATE UNIQUE INDEX idx_events_dedupe ON events(dedupe_key) WHERE dedupe_key IS NOT NULL;
-- step: indexing the journal by type
CREATE INDEX idx_events_type ON events(event_type, sequence) WHERE via_run IS NULL;
-- step: indexing the journal by context
CREATE INDEX idx_events_context ON events(context_id, sequence) WHERE via_run IS NULL;
-- step: indexing the journal by agent
CREATE INDEX idx_events_agent ON events(agent_alias, sequence) WHERE via_run IS NULL;
-- step: indexing the journal by time
CREATE INDEX idx_events_timestamp ON events(timestamp) WHERE via_run IS NULL;
-- step: indexing the journal's requests and calls
CREATE INDEX idx_events_calls ON events(agent_alias, event_type, sequence) WHERE via_run IS NULL AND event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed');
CREATE INDEX idx_events_request_message ON events(json_extract(payload_json, '$.message_id')) WHERE via_run IS NULL AND event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed');

CREATE TABLE journal_runs (
  last_sequence INTEGER PRIMARY KEY,
  first_sequence INTEGER NOT NULL,
  agent_alias TEXT,
  context_id TEXT,
  types INTEGER NOT NULL,
  update_count INTEGER NOT NULL,
  last_timestamp ${ts}
) STRICT;
CREATE INDEX idx_runs_agent ON journal_runs(agent_alias, last_sequence);
CREATE INDEX idx_runs_context ON journal_runs(context_id, last_sequence);
CREATE INDEX idx_runs_timestamp ON journal_runs(last_timestamp);
`;
