/** Schema v1: every table the spec uses. STRICT tables, CHECK constraints, JSON in json_valid text columns. */
export const name = 'init';

const ts = `TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;
const json = (column: string, fallback = `'{}'`) => `${column} TEXT NOT NULL DEFAULT ${fallback} CHECK (json_valid(${column}))`;
const jsonNullable = (column: string) => `${column} TEXT CHECK (${column} IS NULL OR json_valid(${column}))`;

export const sql = `
CREATE TABLE auth_refs (
  name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 63),
  kind TEXT NOT NULL CHECK (kind IN ('env','keyring')),
  source TEXT NOT NULL DEFAULT 'local' CHECK (source IN ('local','config_seed')),
  header_name TEXT NOT NULL DEFAULT 'Authorization',
  scheme TEXT NOT NULL DEFAULT 'Bearer',
  env_var TEXT,
  keyring_service TEXT,
  keyring_account TEXT,
  ${json('metadata_json')},
  created_at ${ts},
  updated_at ${ts},
  CHECK ((kind = 'env' AND env_var IS NOT NULL) OR (kind = 'keyring' AND keyring_service IS NOT NULL AND keyring_account IS NOT NULL))
) STRICT;

CREATE TABLE agents (
  alias TEXT PRIMARY KEY CHECK (length(alias) BETWEEN 1 AND 63),
  source TEXT NOT NULL DEFAULT 'local' CHECK (source IN ('local','config_seed','discovered')),
  base_url TEXT NOT NULL,
  ${json('interface_urls_json')},
  ${json('binding_preference_json', `'["http+json","json-rpc"]'`)},
  auth_ref_name TEXT REFERENCES auth_refs(name) ON DELETE SET NULL,
  ${json('tags_json', `'[]'`)},
  notes TEXT,
  ${json('metadata_json')},
  ${jsonNullable('agent_card_json')},
  agent_card_etag TEXT,
  agent_card_last_modified TEXT,
  agent_card_fetched_at TEXT,
  agent_card_validated_at TEXT,
  read_only INTEGER NOT NULL DEFAULT 0 CHECK (read_only IN (0,1)),
  created_at ${ts},
  updated_at ${ts}
) STRICT;

CREATE TABLE contexts (
  context_id TEXT PRIMARY KEY CHECK (length(context_id) BETWEEN 1 AND 256),
  agent_alias TEXT REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
  name TEXT UNIQUE,
  parent_context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL CHECK (parent_context_id IS NULL OR parent_context_id <> context_id),
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open','closed','archived')),
  summary TEXT,
  ${json('metadata_json')},
  closed_at TEXT,
  created_at ${ts},
  updated_at ${ts}
) STRICT;

CREATE TABLE tasks (
  task_id TEXT PRIMARY KEY,
  agent_alias TEXT NOT NULL REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE RESTRICT,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  state TEXT NOT NULL DEFAULT 'unknown' CHECK (state IN ('submitted','working','input_required','auth_required','completed','failed','cancelled','rejected','unknown')),
  remote_state TEXT,
  source TEXT NOT NULL DEFAULT 'remote' CHECK (source IN ('remote','local','gateway','placeholder')),
  protocol_version TEXT,
  ${jsonNullable('remote_task_json')},
  last_message_id TEXT,
  ${json('metadata_json')},
  completed_at TEXT,
  created_at ${ts},
  updated_at ${ts}
) STRICT;

CREATE TABLE messages (
  message_id TEXT PRIMARY KEY,
  agent_alias TEXT REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
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

CREATE TABLE artifacts (
  artifact_id TEXT NOT NULL,
  task_id TEXT NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  name TEXT,
  mime_type TEXT,
  kind TEXT NOT NULL DEFAULT 'unknown' CHECK (kind IN ('text','json','file','bytes','mixed','unknown')),
  version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  ${json('content_json')},
  ${json('metadata_json')},
  last_chunk INTEGER NOT NULL DEFAULT 0 CHECK (last_chunk IN (0,1)),
  bytes_path TEXT,
  created_at ${ts},
  updated_at ${ts},
  PRIMARY KEY (task_id, artifact_id)
) STRICT;

CREATE TABLE events (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  timestamp ${ts},
  source TEXT NOT NULL DEFAULT 'cli',
  event_type TEXT NOT NULL,
  agent_alias TEXT REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id TEXT REFERENCES tasks(task_id) ON DELETE SET NULL,
  dedupe_key TEXT UNIQUE,
  ${json('payload_json')},
  ${json('metadata_json')},
  redacted INTEGER NOT NULL DEFAULT 1 CHECK (redacted IN (0,1))
) STRICT;

CREATE TABLE "groups" (
  group_name TEXT PRIMARY KEY CHECK (length(group_name) BETWEEN 1 AND 63),
  routing_policy TEXT NOT NULL DEFAULT 'direct',
  notes TEXT,
  ${json('metadata_json')},
  created_at ${ts},
  updated_at ${ts}
) STRICT;

CREATE TABLE group_members (
  group_name TEXT NOT NULL REFERENCES "groups"(group_name) ON UPDATE CASCADE ON DELETE CASCADE,
  agent_alias TEXT NOT NULL REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE CASCADE,
  rank INTEGER NOT NULL CHECK (rank >= 0),
  ${json('tags_json', `'[]'`)},
  weight REAL NOT NULL DEFAULT 1.0 CHECK (weight > 0),
  ${json('routing_metadata_json')},
  created_at ${ts},
  PRIMARY KEY (group_name, agent_alias),
  UNIQUE (group_name, rank)
) STRICT;

CREATE TABLE push_configs (
  push_config_id TEXT NOT NULL,
  agent_alias TEXT NOT NULL REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE CASCADE,
  task_id TEXT NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
  callback_url TEXT NOT NULL,
  auth_ref_name TEXT REFERENCES auth_refs(name) ON DELETE SET NULL,
  ${json('remote_config_json')},
  ${json('metadata_json')},
  deleted_at TEXT,
  created_at ${ts},
  updated_at ${ts},
  PRIMARY KEY (task_id, push_config_id)
) STRICT;

CREATE TABLE gateway_jobs (
  job_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','succeeded','failed','cancelled','retrying')),
  agent_alias TEXT REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
  context_id TEXT REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id TEXT REFERENCES tasks(task_id) ON DELETE CASCADE,
  group_name TEXT REFERENCES "groups"(group_name) ON UPDATE CASCADE ON DELETE SET NULL,
  ${json('request_json')},
  ${jsonNullable('result_json')},
  retry_count INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  max_attempts INTEGER NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
  backoff_ms INTEGER,
  last_error TEXT,
  next_run_at TEXT,
  locked_by TEXT,
  locked_until TEXT,
  completed_at TEXT,
  created_at ${ts},
  updated_at ${ts},
  UNIQUE (kind, task_id)
) STRICT;

CREATE INDEX idx_agents_source ON agents(source);
CREATE INDEX idx_contexts_parent ON contexts(parent_context_id);
CREATE INDEX idx_tasks_agent ON tasks(agent_alias, updated_at);
CREATE INDEX idx_tasks_context ON tasks(context_id, updated_at);
CREATE INDEX idx_tasks_state ON tasks(state);
CREATE INDEX idx_messages_task ON messages(task_id, ordinal);
CREATE INDEX idx_messages_context ON messages(context_id, created_at);
CREATE INDEX idx_artifacts_context ON artifacts(context_id);
CREATE INDEX idx_events_type ON events(event_type, sequence);
CREATE INDEX idx_events_context ON events(context_id, sequence);
CREATE INDEX idx_events_task ON events(task_id, sequence);
CREATE INDEX idx_events_timestamp ON events(timestamp);
CREATE INDEX idx_group_members_rank ON group_members(group_name, rank);
CREATE INDEX idx_push_configs_agent ON push_configs(agent_alias);
CREATE INDEX idx_gateway_jobs_due ON gateway_jobs(state, next_run_at);
`;
