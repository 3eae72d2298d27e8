/** A task's push configs' statements, written once for both engines (sql.ts). */
import { sql } from '../sql.js';

export const PUSH_CONFIGS = {
  /** One deleted before comes back (id, agent, task, URL, redacted JSON, now). */
  upsert: sql`INSERT INTO push_configs (push_config_id, agent_alias, task_id, callback_url, remote_config_json) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (task_id, push_config_id) DO UPDATE SET callback_url = excluded.callback_url, remote_config_json = excluded.remote_config_json,
       deleted_at = NULL, updated_at = ?`,
  markDeleted: sql`UPDATE push_configs SET deleted_at = ?, updated_at = ? WHERE task_id = ? AND push_config_id = ?`,
  ofTask: sql`SELECT push_config_id, agent_alias, task_id, callback_url, remote_config_json, deleted_at, created_at, updated_at FROM push_configs
     WHERE task_id = ? ORDER BY created_at, push_config_id`,
};

export const upsertParams = (c: { id: string; agentAlias: string; taskId: string; url: string; redactedJson: unknown }, now: string): unknown[] => [
  c.id,
  c.agentAlias,
  c.taskId,
  c.url,
  JSON.stringify(c.redactedJson),
  now,
];
