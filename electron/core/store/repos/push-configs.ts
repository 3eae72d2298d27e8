/** Push notification configs registered with agents. Remote JSON is stored with its credentials redacted. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';
import { storedJson, storedRow } from '../stored-json.js';

export interface PushConfigRow {
  push_config_id: string;
  agent_alias: string;
  task_id: string;
  callback_url: string;
  remote_config: Record<string, unknown>;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export type RawPushConfig = Omit<PushConfigRow, 'remote_config'> & { remote_config_json: string };
type Raw = RawPushConfig;
export const pushConfigFromRaw = ({ remote_config_json, ...rest }: Raw): PushConfigRow => ({
  ...rest,
  remote_config: storedJson(remote_config_json, storedRow('push_configs', { task_id: rest.task_id, push_config_id: rest.push_config_id }), 'remote_config_json', 'object'),
});

export function upsertPushConfig(db: Db, c: { id: string; agentAlias: string; taskId: string; url: string; redactedJson: unknown }): void {
  db.prepare(
    `INSERT INTO push_configs (push_config_id, agent_alias, task_id, callback_url, remote_config_json) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(task_id, push_config_id) DO UPDATE SET callback_url = excluded.callback_url, remote_config_json = excluded.remote_config_json,
       deleted_at = NULL, updated_at = ?`,
  ).run(c.id, c.agentAlias, c.taskId, c.url, JSON.stringify(c.redactedJson), nowIso());
}

export function markPushConfigDeleted(db: Db, taskId: string, id: string): void {
  db.prepare(`UPDATE push_configs SET deleted_at = ?, updated_at = ? WHERE task_id = ? AND push_config_id = ?`).run(nowIso(), nowIso(), taskId, id);
}

export const listPushConfigsOfTask = (db: Db, taskId: string): PushConfigRow[] =>
  (db.prepare(`SELECT * FROM push_configs WHERE task_id = ? ORDER BY created_at, push_config_id`).all(taskId) as Array<Raw & Record<string, unknown>>).map((r) =>
    pushConfigFromRaw({ push_config_id: r.push_config_id, agent_alias: r.agent_alias, task_id: r.task_id, callback_url: r.callback_url, remote_config_json: r.remote_config_json, deleted_at: r.deleted_at, created_at: r.created_at, updated_at: r.updated_at }),
  );
