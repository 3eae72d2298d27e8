/** Push notification configs registered with agents, on SQLite. Remote JSON is stored with its credentials redacted. */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { pushConfigFromRaw, type PushConfigRow, type RawPushConfig } from '../rows/push-configs.js';
import { PUSH_CONFIGS, upsertParams } from '../statements/push-configs.js';
import type { WithDb } from '../repository-forms.js';
import type { ConversationRepository } from '../storage.js';

export function upsertPushConfig(db: Db, c: { id: string; agentAlias: string; taskId: string; url: string; redactedJson: unknown }): void {
  db.prepare(PUSH_CONFIGS.upsert.sqlite).run(...upsertParams(c, nowIso()));
}

export function markPushConfigDeleted(db: Db, taskId: string, id: string): void {
  const now = nowIso();
  db.prepare(PUSH_CONFIGS.markDeleted.sqlite).run(now, now, taskId, id);
}

export const listPushConfigsOfTask = (db: Db, taskId: string): PushConfigRow[] =>
  (db.prepare(PUSH_CONFIGS.ofTask.sqlite).all(taskId) as RawPushConfig[]).map(pushConfigFromRaw);

/** A task's push configs, part of the conversation repository on SQLite (storage.ts's ConversationRepository). */
export const sqlitePushConfigs: WithDb<Pick<ConversationRepository, 'upsertPushConfig' | 'markPushConfigDeleted' | 'listPushConfigsOfTask'>, Db> = {
  upsertPushConfig,
  markPushConfigDeleted,
  listPushConfigsOfTask,
};
