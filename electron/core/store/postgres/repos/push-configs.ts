/** A task's push configs on PostgreSQL: repos/push-configs.ts's statements, its row type and decoding. */
import { nowIso } from '../../db.js';
import { pushConfigFromRaw, type RawPushConfig } from '../../repos/push-configs.js';
import type { ConversationRepository } from '../../storage.js';
import { run, type Query } from './query.js';

export function pushConfigMethods(query: Query): Pick<ConversationRepository, 'upsertPushConfig' | 'markPushConfigDeleted' | 'listPushConfigsOfTask'> {
  return {
    async upsertPushConfig(c) {
      await run(
        query,
        'conversation.upsertPushConfig',
        `INSERT INTO push_configs (push_config_id, agent_alias, task_id, callback_url, remote_config_json) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (task_id, push_config_id) DO UPDATE SET callback_url = excluded.callback_url, remote_config_json = excluded.remote_config_json,
           deleted_at = NULL, updated_at = $6`,
        [c.id, c.agentAlias, c.taskId, c.url, JSON.stringify(c.redactedJson), nowIso()],
      );
    },

    async markPushConfigDeleted(taskId, configId) {
      const now = nowIso();
      await run(query, 'conversation.markPushConfigDeleted', `UPDATE push_configs SET deleted_at = $1, updated_at = $1 WHERE task_id = $2 AND push_config_id = $3`, [now, taskId, configId]);
    },

    async listPushConfigsOfTask(taskId) {
      const { rows } = await run<RawPushConfig>(
        query,
        'conversation.listPushConfigsOfTask',
        `SELECT push_config_id, agent_alias, task_id, callback_url, remote_config_json, deleted_at, created_at, updated_at FROM push_configs
         WHERE task_id = $1 ORDER BY created_at, push_config_id`,
        [taskId],
      );
      return rows.map(pushConfigFromRaw);
    }
  };
}
