/**
 * SQLite's driver of step sequences (steps.ts): the repositories' synchronous functions, run now, inside the caller's
 * transaction if any, so a sequence runs inside the store's group commits (`Store.batch`, a stream's `GroupWriter`)
 * without awaiting anything while it holds the write lock.
 */
import type { Db } from '../db.js';
import { sqliteConversation } from '../repos/conversation.js';
import { sqliteRecords } from '../repos/collective-records.js';
import { appendEvent } from '../repos/events.js';
import { sqliteJobs } from '../repos/gateway-jobs.js';
import { sqliteEventKeys } from '../repos/journal.js';
import type { WithDb } from '../repository-forms.js';
import type { ConversationRepository, Steps } from '../storage.js';

/** SQLite's synchronous form of the conversation repository (the objects sqlite/storage.ts makes promises of). */
export const SQLITE_CONVERSATION: WithDb<ConversationRepository, Db> = { ...sqliteConversation, ...sqliteEventKeys, ...sqliteRecords };

/** Runs `steps` on SQLite's synchronous functions, now (inside the caller's transaction, if any). */
export function runStepsSync<T>(db: Db, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    const value =
      step.op === 'append'
        ? appendEvent(db, ...step.args)
        : step.op === 'jobs'
          ? (sqliteJobs[step.method] as (db: Db, ...args: unknown[]) => unknown)(db, ...step.args)
          : (SQLITE_CONVERSATION[step.op] as (db: Db, ...args: unknown[]) => unknown)(db, ...step.args);
    next = steps.next(value);
  }
  return next.value;
}
