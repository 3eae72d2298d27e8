/**
 * A sequence of conversation writes written once and run on either engine. The services describe what an answer
 * leaves (a task, its artifacts, messages, journal events) as a generator of steps; each step names a method of the
 * storage interface's conversation repository or journal, and the driver hands its result back:
 * - `runStepsSync` on SQLite: the repositories' synchronous functions, so a sequence runs inside the store's group
 *   commits (`Store.batch`, a stream's `GroupWriter`) without awaiting anything while it holds the write lock;
 * - `runSteps` on any engine: the asynchronous repositories (PostgreSQL's, in one transaction).
 * `commitSteps` runs a sequence in one transaction of the core's store, whichever engine holds it; `readSteps` runs
 * one that only reads, outside any.
 */
import type { Core } from '../handle.js';
import type { Db } from './db.js';
import * as conversation from './repos/conversation.js';
import * as contexts from './repos/contexts.js';
import * as pushConfigs from './repos/push-configs.js';
import * as records from './repos/collective-records.js';
import { appendEvent, hasEventKey, type NewEvent } from './repos/events.js';
import type { ConversationRepository, Repositories } from './storage.js';

type Method = keyof ConversationRepository;
type Args<K extends Method> = Parameters<ConversationRepository[K]>;
type Result<K extends Method> = Awaited<ReturnType<ConversationRepository[K]>>;

export type Step = { [K in Method]: { op: K; args: Args<K> } }[Method] | { op: 'append'; args: [event: NewEvent, knownSecrets?: readonly string[]] };

/** A write sequence that ends with `T`. */
export type Steps<T> = Generator<Step, T, unknown>;

/** One conversation repository call as a step: `const task = yield* call('getTask', id)`. */
export function* call<K extends Method>(op: K, ...args: Args<K>): Steps<Result<K>> {
  return (yield { op, args } as Step) as Result<K>;
}

/** Appends to the journal as a step; the event's sequence and id, or null when its dedupe key was seen. */
export function* journal(event: NewEvent, knownSecrets?: readonly string[]): Steps<{ sequence: number; eventId: string } | null> {
  return (yield { op: 'append', args: [event, knownSecrets] }) as { sequence: number; eventId: string } | null;
}

/** SQLite's synchronous function for each repository method (what sqlite/storage.ts wraps as promises). */
export const SQLITE_CONVERSATION: { [K in Method]: (db: Db, ...args: Args<K>) => Result<K> } = {
  ensureContext: conversation.ensureContext,
  insertMessage: conversation.insertMessage,
  linkMessageToContext: conversation.linkMessageToContext,
  linkMessageToTask: conversation.linkMessageToTask,
  getTask: conversation.getTask,
  upsertTask: conversation.upsertTask,
  writeArtifact: conversation.writeArtifact,
  listArtifactsOfTask: conversation.listArtifactsOfTask,
  listTasks: conversation.listTasks,
  requestOf: conversation.requestOf,
  getContext: contexts.getContext,
  getContextByName: contexts.getContextByName,
  ensurePlaceholderTask: conversation.ensurePlaceholderTask,
  updateTaskStatus: conversation.updateTaskStatus,
  getTaskJson: conversation.getTaskJson,
  hasEventKey,
  getArtifact: conversation.getArtifact,
  latestTaskOf: conversation.latestTaskOf,
  responsesOfTask: conversation.responsesOfTask,
  directResponsesOf: conversation.directResponsesOf,
  upsertPushConfig: pushConfigs.upsertPushConfig,
  markPushConfigDeleted: pushConfigs.markPushConfigDeleted,
  listPushConfigsOfTask: pushConfigs.listPushConfigsOfTask,
  contextJournal: records.contextJournal,
  getMessageRecord: records.getMessageRecord,
  localMessagesOfContext: records.localMessagesOfContext,
};

/** Runs `steps` on SQLite's synchronous functions, now (inside the caller's transaction, if any). */
export function runStepsSync<T>(db: Db, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    const value = step.op === 'append' ? appendEvent(db, ...step.args) : (SQLITE_CONVERSATION[step.op] as (db: Db, ...args: unknown[]) => unknown)(db, ...step.args);
    next = steps.next(value);
  }
  return next.value;
}

/** Runs `steps` on the asynchronous repositories (a transaction's, or the store's outside any). */
export async function runSteps<T>(repos: Repositories, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    const value =
      step.op === 'append' ? await repos.journal.append(...step.args) : await (repos.conversation[step.op] as (...args: unknown[]) => Promise<unknown>)(...step.args);
    next = steps.next(value);
  }
  return next.value;
}

/**
 * `make()`'s steps in one transaction of the core's store. On SQLite, `group` joins the group commit of the tick
 * (`Store.batch`: a fan-out's hundreds of answers share one commit) instead of an IMMEDIATE transaction of its own;
 * the promise settles once committed either way.
 */
export async function commitSteps<T>(core: Core, make: () => Steps<T>, options: { group?: boolean } = {}): Promise<T> {
  if (core.storeSelection.kind === 'sqlite') {
    const store = core.store();
    return options.group ? store.batch(() => runStepsSync(store.db, make())) : store.transaction(() => runStepsSync(store.db, make()));
  }
  const storage = await core.storage();
  return storage.transaction((tx) => runSteps(tx, make()));
}

/** `steps` that only read, outside any transaction, on the core's store. */
export async function readSteps<T>(core: Core, steps: Steps<T>): Promise<T> {
  if (core.storeSelection.kind === 'sqlite') return runStepsSync(core.store().db, steps);
  return runSteps(await core.storage(), steps);
}
