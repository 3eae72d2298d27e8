/**
 * The journal events of one operator job's run (`missive.job.*`), and the one that waits: the attempt event is not
 * written on its own when the gateway takes the job up, but with the job's first write (a send's dispatch mark and
 * request row, or the write that ends the job), in that write's transaction. The journal reads the same (the attempt,
 * then what the attempt did, in order); a send job costs the store a transaction less.
 */
import type { NewEvent } from '../store/rows/events.js';
import type { Storage, WriteMode } from '../store/storage.js';
import type { StoredJob } from '../store/rows/gateway-jobs.js';
import { journal, type Steps } from '../store/steps.js';

export interface JobTrail {
  /** `missive.job.<type>` about this job, as the gateway journals it. */
  event(type: string, payload: Record<string, unknown>): NewEvent;
  /**
   * `make()`'s steps in one write, after the events still held: once it has committed, none are held any more (a
   * write that fails leaves them to the next).
   */
  write<T>(storage: Storage, make: () => Steps<T>, mode?: WriteMode): Promise<T>;
  /** Writes the held events, if any are left, in a write of their own (a run that waits before it writes). */
  flushNow(storage: Storage): Promise<void>;
}

export function jobTrail(job: StoredJob, held: Array<{ type: string; payload: Record<string, unknown> }>): JobTrail {
  const event = (type: string, payload: Record<string, unknown>): NewEvent => ({
    type: `missive.job.${type}`,
    source: 'gateway',
    agentAlias: job.agent_alias,
    contextId: job.context_id,
    taskId: job.target_task_id,
    payload: { job_id: job.job_id, kind: job.kind, ...payload },
  });
  let waiting = held.map((h) => event(h.type, h.payload));
  const write = async <T>(storage: Storage, make: () => Steps<T>, mode: WriteMode = 'now'): Promise<T> => {
    const events = waiting;
    const value = await storage.write(function* () {
      for (const e of events) yield* journal(e);
      return yield* make();
    }, mode);
    waiting = waiting.filter((e) => !events.includes(e));
    return value;
  };
  return {
    event,
    write,
    async flushNow(storage) {
      if (waiting.length > 0) await write(storage, function* () {});
    },
  };
}
