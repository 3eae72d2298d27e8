/**
 * A sequence of conversation writes written once and run on either engine. The services describe what an answer
 * leaves (a task, its artifacts, messages, journal events) as a generator of steps; each step names a method of the
 * storage interface's conversation repository or journal, and the driver hands its result back. The services hand a
 * sequence to `Storage.write` or `Storage.read`; the engine picks the driver: `runSteps` here on the asynchronous
 * repositories (PostgreSQL's, in one transaction), or SQLite's synchronous one (sqlite/run-steps.ts), which runs a
 * sequence inside its group commits without awaiting anything while it holds the write lock.
 */
import type { NewEvent } from './rows/events.js';
import type { ConversationRepository, JobRepository, JobStepMethod, Repositories, Step, Steps, TickValues } from './storage.js';

export type { Step, Steps };

type Method = keyof ConversationRepository;
type Args<K extends Method> = Parameters<ConversationRepository[K]>;
type Result<K extends Method> = Awaited<ReturnType<ConversationRepository[K]>>;

/** One conversation repository call as a step: `const task = yield* call('getTask', id)`. */
export function* call<K extends Method>(op: K, ...args: Args<K>): Steps<Result<K>> {
  return (yield { op, args } as Step) as Result<K>;
}

/** Appends to the journal as a step; the event's sequence and id, or null when its dedupe key was seen. */
export function* journal(event: NewEvent, knownSecrets?: readonly string[]): Steps<{ sequence: number; eventId: string } | null> {
  return (yield { op: 'append', args: [event, knownSecrets] }) as { sequence: number; eventId: string } | null;
}

/**
 * Journals an update (a stream's, a subscription's or a callback's event): in a tick (an update sink's, a receiver's
 * burst) as the tick writes updates, a narrow row found through its run on SQLite; elsewhere as a journal event.
 */
export function* journalUpdate(event: NewEvent, tick: TickValues | undefined, knownSecrets?: readonly string[]): Steps<void> {
  if (tick) tick.appendUpdate(event, knownSecrets);
  else yield* journal(event, knownSecrets);
}

/** A value as steps that run nothing: an engine's synchronous answer where the interface takes steps (SQLite's tick). */
// eslint-disable-next-line require-yield
export function* done<T>(value: T): Steps<T> {
  return value;
}

/** A job repository write as a step: `const held = yield* jobCall('finish', id, 'succeeded', result, null, owner)`. */
export function* jobCall<K extends JobStepMethod>(method: K, ...args: Parameters<JobRepository[K]>): Steps<Awaited<ReturnType<JobRepository[K]>>> {
  return (yield { op: 'jobs', method, args } as Step) as Awaited<ReturnType<JobRepository[K]>>;
}

/** Runs one step on the asynchronous repositories. */
export function runStep(repos: Repositories, step: Step): Promise<unknown> {
  if (step.op === 'append') return repos.journal.append(...step.args);
  if (step.op === 'jobs') return (repos.jobs[step.method] as (...args: unknown[]) => Promise<unknown>)(...step.args);
  return (repos.conversation[step.op] as (...args: unknown[]) => Promise<unknown>)(...step.args);
}

/** Runs `steps` on the asynchronous repositories (a transaction's, or the store's outside any). */
export async function runSteps<T>(repos: Repositories, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await runStep(repos, next.value));
  return next.value;
}
