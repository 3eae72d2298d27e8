/**
 * PostgreSQL schema v1: the tables of SQLite's schema v12 (store/migrations/0001…0012), in one migration. A
 * PostgreSQL store has no history to replay (it starts at the schema of the missive that created it), so the twelve
 * SQLite steps, their rebuilds (events_v4, events_v11, messages_v11) and their data moves are folded into their
 * result. Later changes to the schema are new migrations here (0002-…), in step with SQLite's.
 *
 * Mirrors SQLite's schema so both engines keep the same rows and the SQLite repositories' row decoders read both:
 * - the same tables, column names and order, defaults, CHECKs, foreign keys (with their ON UPDATE / ON DELETE
 *   actions), primary and unique keys, and every index under the same name;
 * - `*_json` columns stay TEXT, checked as JSON by a cast (`col::json`: the cast fails on anything but JSON text; `json`,
 *   not `jsonb`, so text holding `\u0000` is accepted as SQLite's json_valid accepts it);
 * - flags, counters and ranks are INTEGER (pg returns them as numbers, as the decoders expect), `weight` is DOUBLE
 *   PRECISION (SQLite REAL), `events.sequence` a BIGINT identity (pg returns BIGINT as a string: the repositories
 *   convert it);
 * - timestamps are TEXT ISO strings with milliseconds and `Z`, written by the server's clock by default, so rows
 *   compare and print as SQLite's do; every TEXT column collates "C" (byte order, SQLite's BINARY), so ORDER BY and
 *   comparisons give SQLite's order whatever the database's locale;
 * - `messages` and `artifacts` have a `rowid` (BIGINT identity, insertion order): SQLite's implicit rowid, which
 *   history and conversation queries order by (`ORDER BY created_at, rowid`);
 * - idx_events_request_message indexes `json_text_field(payload_json, 'message_id')` (SQLite: json_extract): queries
 *   must use that very expression to be read by it;
 * - the journal is append-only history (SQLite v11): a trigger refuses UPDATE, DELETE and TRUNCATE of `events`, except
 *   the foreign key's own ON DELETE SET NULL of `context_id` (SQLite keeps that action; nothing deletes a context).
 */
export const name = 'init';

const text = `TEXT COLLATE "C"`;
const ts = `${text} NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const json = (column: string, fallback = `'{}'`) => `${column} ${text} NOT NULL DEFAULT ${fallback} CHECK ((${column}::json) IS NOT NULL)`;
const jsonNullable = (column: string) => `${column} ${text} CHECK (${column} IS NULL OR (${column}::json) IS NOT NULL)`;
const jsonOf = (column: string, type: 'array' | 'object') => `json_typeof(${column}::json) = '${type}'`;

/** The event types of the request history's partial indexes (SQLite 0006), verbatim. */
const CALL_EVENTS = `'a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified', 'a2a.agent_card.failed'`;
const REQUEST_EVENTS = `'a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed'`;

export const sql = `
-- A JSON document's top-level field as text (SQLite's json_extract for a string field), for idx_events_request_message.
-- json ->> fails on a document holding \\u0000 or a lone surrogate anywhere (SQLite reads them): such a document is
-- read again with those escapes replaced by \\ufffd (same length, still JSON), so an insert never fails on its index.
CREATE FUNCTION json_text_field(doc text, field text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
  RETURN doc::json ->> field;
EXCEPTION WHEN untranslatable_character OR invalid_text_representation THEN
  RETURN regexp_replace(doc, '\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '\\\\ufffd', 'g')::json ->> field;
END
$fn$;

CREATE FUNCTION refuse_journal_rewrite() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.context_id IS NULL AND (to_jsonb(NEW) - 'context_id') = (to_jsonb(OLD) - 'context_id') THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'the event journal is append-only: % of events refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$fn$;

CREATE TABLE auth_refs (
  name ${text} PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 63),
  kind ${text} NOT NULL CHECK (kind IN ('env','keyring')),
  source ${text} NOT NULL DEFAULT 'local' CHECK (source IN ('local','config_seed')),
  header_name ${text} NOT NULL DEFAULT 'Authorization',
  scheme ${text} NOT NULL DEFAULT 'Bearer',
  env_var ${text},
  keyring_service ${text},
  keyring_account ${text},
  ${json('metadata_json')},
  created_at ${ts},
  updated_at ${ts},
  flow_json ${text} NOT NULL DEFAULT '{"type":"header"}' CHECK (${jsonOf('flow_json', 'object')}),
  CHECK ((kind = 'env' AND env_var IS NOT NULL) OR (kind = 'keyring' AND keyring_service IS NOT NULL AND keyring_account IS NOT NULL))
);

CREATE TABLE agents (
  alias ${text} PRIMARY KEY CHECK (length(alias) BETWEEN 1 AND 63),
  source ${text} NOT NULL DEFAULT 'local' CHECK (source IN ('local','config_seed','discovered')),
  base_url ${text} NOT NULL,
  ${json('interface_urls_json')},
  ${json('binding_preference_json', `'["http+json","json-rpc"]'`)},
  auth_ref_name ${text} REFERENCES auth_refs(name) ON DELETE SET NULL,
  ${json('tags_json', `'[]'`)},
  notes ${text},
  ${json('metadata_json')},
  ${jsonNullable('agent_card_json')},
  agent_card_etag ${text},
  agent_card_last_modified ${text},
  agent_card_fetched_at ${text},
  agent_card_validated_at ${text},
  read_only INTEGER NOT NULL DEFAULT 0 CHECK (read_only IN (0,1)),
  created_at ${ts},
  updated_at ${ts},
  trusted_origins_json ${text} NOT NULL DEFAULT '[]' CHECK (${jsonOf('trusted_origins_json', 'array')}),
  allow_cross_origin_auth INTEGER NOT NULL DEFAULT 0 CHECK (allow_cross_origin_auth IN (0,1)),
  agent_card_url ${text},
  client_tls_json ${text} CHECK (client_tls_json IS NULL OR ${jsonOf('client_tls_json', 'object')}),
  card_keys_json ${text} CHECK (card_keys_json IS NULL OR ${jsonOf('card_keys_json', 'object')})
);

CREATE TABLE contexts (
  context_id ${text} PRIMARY KEY CHECK (length(context_id) BETWEEN 1 AND 256),
  agent_alias ${text} REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
  name ${text} UNIQUE,
  parent_context_id ${text} REFERENCES contexts(context_id) ON DELETE SET NULL CHECK (parent_context_id IS NULL OR parent_context_id <> context_id),
  state ${text} NOT NULL DEFAULT 'open' CHECK (state IN ('open','closed','archived')),
  summary ${text},
  ${json('metadata_json')},
  closed_at ${text},
  created_at ${ts},
  updated_at ${ts}
);

CREATE TABLE tasks (
  task_id ${text} PRIMARY KEY,
  agent_alias ${text} NOT NULL REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE RESTRICT,
  context_id ${text} REFERENCES contexts(context_id) ON DELETE SET NULL,
  state ${text} NOT NULL DEFAULT 'unknown' CHECK (state IN ('submitted','working','input_required','auth_required','completed','failed','cancelled','rejected','unknown')),
  remote_state ${text},
  source ${text} NOT NULL DEFAULT 'remote' CHECK (source IN ('remote','local','gateway','placeholder')),
  protocol_version ${text},
  ${jsonNullable('remote_task_json')},
  last_message_id ${text},
  ${json('metadata_json')},
  completed_at ${text},
  created_at ${ts},
  updated_at ${ts}
);

CREATE TABLE messages (
  message_id ${text} PRIMARY KEY,
  agent_alias ${text},
  context_id ${text} REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id ${text} REFERENCES tasks(task_id) ON DELETE SET NULL,
  direction ${text} NOT NULL CHECK (direction IN ('request','response','stream_event','push','local')),
  role ${text} NOT NULL DEFAULT 'unknown' CHECK (role IN ('user','agent','system','tool','unknown')),
  ordinal INTEGER NOT NULL DEFAULT 0,
  protocol_message_id ${text},
  ${json('content_json')},
  ${json('metadata_json')},
  created_at ${ts},
  rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
);

CREATE TABLE artifacts (
  artifact_id ${text} NOT NULL,
  task_id ${text} NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
  context_id ${text} REFERENCES contexts(context_id) ON DELETE SET NULL,
  name ${text},
  mime_type ${text},
  kind ${text} NOT NULL DEFAULT 'unknown' CHECK (kind IN ('text','json','file','bytes','mixed','unknown')),
  version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  ${json('content_json')},
  ${json('metadata_json')},
  last_chunk INTEGER NOT NULL DEFAULT 0 CHECK (last_chunk IN (0,1)),
  bytes_path ${text},
  created_at ${ts},
  updated_at ${ts},
  rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  PRIMARY KEY (task_id, artifact_id)
);

CREATE TABLE artifact_chunks (
  task_id ${text} NOT NULL,
  artifact_id ${text} NOT NULL,
  chunk_index INTEGER NOT NULL CHECK (chunk_index >= 0),
  parts_json ${text} NOT NULL DEFAULT '[]' CHECK (${jsonOf('parts_json', 'array')}),
  created_at ${ts},
  PRIMARY KEY (task_id, artifact_id, chunk_index),
  FOREIGN KEY (task_id, artifact_id) REFERENCES artifacts(task_id, artifact_id) ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE events (
  sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id ${text} NOT NULL UNIQUE,
  timestamp ${ts},
  source ${text} NOT NULL DEFAULT 'cli',
  event_type ${text} NOT NULL,
  agent_alias ${text},
  context_id ${text} REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id ${text},
  dedupe_key ${text} UNIQUE,
  ${json('payload_json')},
  ${json('metadata_json')},
  redacted INTEGER NOT NULL DEFAULT 1 CHECK (redacted IN (0,1))
);

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION refuse_journal_rewrite();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION refuse_journal_rewrite();

CREATE TABLE "groups" (
  group_name ${text} PRIMARY KEY CHECK (length(group_name) BETWEEN 1 AND 63),
  routing_policy ${text} NOT NULL DEFAULT 'direct',
  notes ${text},
  ${json('metadata_json')},
  created_at ${ts},
  updated_at ${ts}
);

CREATE TABLE group_members (
  group_name ${text} NOT NULL REFERENCES "groups"(group_name) ON UPDATE CASCADE ON DELETE CASCADE,
  agent_alias ${text} NOT NULL REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE CASCADE,
  rank INTEGER NOT NULL CHECK (rank >= 0),
  ${json('tags_json', `'[]'`)},
  weight DOUBLE PRECISION NOT NULL DEFAULT 1.0 CHECK (weight > 0),
  ${json('routing_metadata_json')},
  created_at ${ts},
  PRIMARY KEY (group_name, agent_alias),
  UNIQUE (group_name, rank)
);

CREATE TABLE push_configs (
  push_config_id ${text} NOT NULL,
  agent_alias ${text} NOT NULL REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE CASCADE,
  task_id ${text} NOT NULL REFERENCES tasks(task_id) ON DELETE CASCADE,
  callback_url ${text} NOT NULL,
  auth_ref_name ${text} REFERENCES auth_refs(name) ON DELETE SET NULL,
  ${json('remote_config_json')},
  ${json('metadata_json')},
  deleted_at ${text},
  created_at ${ts},
  updated_at ${ts},
  PRIMARY KEY (task_id, push_config_id)
);

CREATE TABLE gateway_jobs (
  job_id ${text} PRIMARY KEY,
  kind ${text} NOT NULL,
  state ${text} NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','succeeded','failed','cancelled','retrying')),
  agent_alias ${text} REFERENCES agents(alias) ON UPDATE CASCADE ON DELETE SET NULL,
  context_id ${text} REFERENCES contexts(context_id) ON DELETE SET NULL,
  task_id ${text} REFERENCES tasks(task_id) ON DELETE CASCADE,
  group_name ${text} REFERENCES "groups"(group_name) ON UPDATE CASCADE ON DELETE SET NULL,
  ${json('request_json')},
  ${jsonNullable('result_json')},
  retry_count INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  max_attempts INTEGER NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
  backoff_ms INTEGER,
  last_error ${text},
  next_run_at ${text},
  locked_by ${text},
  locked_until ${text},
  completed_at ${text},
  created_at ${ts},
  updated_at ${ts},
  target_task_id ${text},
  summary_json ${text} CHECK (summary_json IS NULL OR ${jsonOf('summary_json', 'object')}),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  dispatched INTEGER NOT NULL DEFAULT 0 CHECK (dispatched IN (0,1)),
  dispatch_message_id ${text},
  UNIQUE (kind, task_id)
);

CREATE TABLE gateway_leases (
  profile ${text} PRIMARY KEY,
  holder ${text} NOT NULL,
  pid INTEGER NOT NULL CHECK (pid > 0),
  host ${text} NOT NULL,
  started_at ${text} NOT NULL,
  renewed_at ${text} NOT NULL,
  expires_at ${text} NOT NULL
);

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
CREATE INDEX idx_events_agent ON events(agent_alias, sequence);
CREATE INDEX idx_events_calls ON events(agent_alias, event_type, sequence) WHERE event_type IN (${CALL_EVENTS});
CREATE INDEX idx_events_request_message ON events(json_text_field(payload_json, 'message_id')) WHERE event_type IN (${REQUEST_EVENTS});
CREATE INDEX idx_group_members_rank ON group_members(group_name, rank);
CREATE INDEX idx_push_configs_agent ON push_configs(agent_alias);
CREATE INDEX idx_gateway_jobs_due ON gateway_jobs(state, next_run_at);
CREATE INDEX idx_gateway_jobs_target ON gateway_jobs(target_task_id) WHERE target_task_id IS NOT NULL;
CREATE INDEX idx_gateway_jobs_created ON gateway_jobs(created_at, job_id);
`;
