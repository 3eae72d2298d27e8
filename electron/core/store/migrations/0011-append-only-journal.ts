/**
 * Schema v11: the journal is append-only history. `events.agent_alias` and `messages.agent_alias` no longer reference
 * `agents`: they record the alias an event or message was written under, so `agent remove` no longer blanks them
 * (ON DELETE SET NULL) and `agent rename` no longer rewrites them (ON UPDATE CASCADE). Live state — tasks, contexts,
 * group members, push configs, jobs — still follows the agent. Both tables are rebuilt (SQLite cannot drop a foreign
 * key in place) with the same columns in the same order, every row with its rowid (history orders messages by it)
 * and sequence, the events AUTOINCREMENT counter, and every index (v1, v4, v5, v6). The other foreign keys stay.
 */
export const name = 'append_only_journal';

const ts = `TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
const json = (column: string) => `${column} TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(${column}))`;

const EVENT_COLUMNS = 'sequence, event_id, timestamp, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json, redacted';
const MESSAGE_COLUMNS = 'message_id, agent_alias, context_id, task_id, direction, role, ordinal, protocol_message_id, content_json, metadata_json, created_at';

export const sql = `
CREATE TABLE events_v11 (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  timestamp ${ts},
  source TEXT NOT NULL DEFAULT 'cli',
  event_type TEXT NOT NULL,
  agent_alias TEXT,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id TEXT,
  dedupe_key TEXT UNIQUE,
  ${json('payload_json')},
  ${json('metadata_json')},
  redacted INTEGER NOT NULL DEFAULT 1 CHECK (redacted IN (0,1))
) STRICT;

INSERT INTO events_v11 (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM events ORDER BY sequence;
DELETE FROM sqlite_sequence WHERE name = 'events_v11';
INSERT INTO sqlite_sequence (name, seq) SELECT 'events_v11', seq FROM sqlite_sequence WHERE name = 'events';
DROP TABLE events;
ALTER TABLE events_v11 RENAME TO events;

CREATE INDEX idx_events_type ON events(event_type, sequence);
CREATE INDEX idx_events_context ON events(context_id, sequence);
CREATE INDEX idx_events_task ON events(task_id, sequence);
CREATE INDEX idx_events_timestamp ON events(timestamp);
CREATE INDEX idx_events_agent ON events(agent_alias, sequence);
CREATE INDEX idx_events_calls ON events(agent_alias, event_type, sequence) WHERE event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed');
CREATE INDEX idx_events_request_message ON events(json_extract(payload_json, '$.message_id')) WHERE event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed');

CREATE TABLE messages_v11 (
  message_id TEXT PRIMARY KEY,
  agent_alias TEXT,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id TEXT REFERENCES tasks(task_id) ON DELETE SET NULL,
  direction TEXT NOT NULL CHECK (direction IN ('request','response','stream_event','push','local')),
  role TEXT NOT NULL DEFAULT 'unknown' CHECK (role IN ('user','agent','system','tool','unknown')),
  ordinal INTEGER NOT NULL DEFAULT 0,
  protocol_message_id TEXT,
  ${json('content_json')},
  ${json('metadata_json')},
  created_at ${ts}
) STRICT;

INSERT INTO messages_v11 (rowid, ${MESSAGE_COLUMNS}) SELECT rowid, ${MESSAGE_COLUMNS} FROM messages ORDER BY rowid;
DROP TABLE messages;
ALTER TABLE messages_v11 RENAME TO messages;

CREATE INDEX idx_messages_task ON messages(task_id, ordinal);
CREATE INDEX idx_messages_context ON messages(context_id, created_at);
`;
