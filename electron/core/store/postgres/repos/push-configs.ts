/** A task's push configs on PostgreSQL: the statements of statements/push-configs.ts. */
import { nowIso } from '../../rows/clock.js';
import { pushConfigFromRaw, type RawPushConfig } from '../../rows/push-configs.js';
import { PUSH_CONFIGS, upsertParams } from '../../statements/push-configs.js';
import type { ConversationRepository } from '../../storage.js';
import { run, type Query } from './query.js';

export function pushConfigMethods(query: Query): Pick<ConversationRepository, 'upsertPushConfig' | 'markPushConfigDeleted' | 'listPushConfigsOfTask'> {
  return {
    async upsertPushConfig(c) {
      await run(query, 'conversation.upsertPushConfig', PUSH_CONFIGS.upsert, upsertParams(c, nowIso()));
    },

    async markPushConfigDeleted(taskId, configId) {
      const now = nowIso();
      await run(query, 'conversation.markPushConfigDeleted', PUSH_CONFIGS.markDeleted, [now, now, taskId, configId]);
    },

    async listPushConfigsOfTask(taskId) {
      const { rows } = await run<RawPushConfig>(query, 'conversation.listPushConfigsOfTask', PUSH_CONFIGS.ofTask, [taskId]);
      return rows.map(pushConfigFromRaw);
    },
  };
}
