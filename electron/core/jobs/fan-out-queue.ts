/**
 * A fan-out through the shared job queue (`bcast --via-jobs`, `scatter --via-jobs`, `round --via-jobs`): each member's
 * send becomes a `send` job, so the gateways running the profile's queue, on any hosts, make the sends (each gateway's
 * `--concurrency` bounds them, not `--max-concurrency`). This process waits for the jobs and reports every member as an
 * in-process fan-out does: its status, task and state, request message id, interface and latency (the job's
 * `delivery`), and journals the same member events.
 *
 * - `--execution sequential` queues one member's job at a time, the next once it ended.
 * - `--failure-policy stop`: once a member failed, the jobs no gateway holds yet are cancelled (skipped); those
 *   already running finish and are reported.
 * - The deadline (--timeout) cancels whatever has not ended (timeout): a gateway running one stops at its next claim
 *   renewal. Like `missive job start`, a message's `--file` parts are read here and queued as content (jobs/requests.ts).
 */
import { randomUUID } from 'node:crypto';
import { errorFromReport, MissiveError, toMissiveError, type ErrorReport } from '../../../shared/errors.js';
import { awaitJobs } from './await-jobs.js';
import { startCheckedJob } from './credentials.js';
import type { JobDelivery } from './execute.js';
import type { StoredJob } from '../store/rows/gateway-jobs.js';
import type { TaskStateName } from '../store/rows/conversation.js';
import { failedTask, type FanOutRun, type MemberHooks, type MemberResult, type QueuedSends } from '../collectives/fan-out.js';

/** A send job's result (jobs/execute.ts), as far as a member's report reads it. */
interface SendJobResult {
  outcome?: string;
  state?: TaskStateName;
  task_id?: string;
  response_shape?: 'message';
  error?: ErrorReport;
  delivery?: JobDelivery;
}

const timeoutError = () => new MissiveError('transport', 'timeout', "the deadline passed before this member's job ended; it was cancelled");

export const sendThroughQueue: QueuedSends = async (run, hooks) => {
  const jobs = (await run.core.storage()).jobs;
  const batch = run.execution === 'sequential' ? 1 : run.members.length;
  for (let start = 0; start < run.members.length; start += batch) {
    const queued = new Map<string, MemberResult>();
    for (let i = start; i < Math.min(start + batch, run.members.length); i++) {
      const member = run.members[i]!;
      if (!(await hooks.mayStillSend(run, member))) continue;
      const messageId = randomUUID();
      try {
        const job = await startCheckedJob(run.core, {
          kind: 'send',
          input: { ...run.plan[i]!.input, agent: member.alias, contextId: run.contextId, messageId },
        });
        member.request_message_id = messageId;
        member.status = 'running';
        run.onMember?.(member);
        queued.set(job.job_id, member);
      } catch (error) {
        await hooks.finishMember(run, member, 'failed', toMissiveError(error));
      }
    }
    // Cancelled here (stop policy): those the run skips; any other cancellation (the operator's) is a failure.
    const skipped = new Set<string>();
    const left = await awaitJobs(jobs, [...queued.keys()], {
      deadline: run.deadline,
      onEnded: async (job) => {
        if (skipped.has(job.job_id)) return hooks.finishMember(run, queued.get(job.job_id)!, 'skipped', null);
        await report(run, hooks, queued.get(job.job_id)!, job);
        if (!run.stopped) return;
        for (const [id] of queued) if (!skipped.has(id) && id !== job.job_id && (await jobs.cancel(id, { unclaimed: true }))) skipped.add(id);
      },
    });
    for (const id of left) {
      await jobs.cancel(id);
      await hooks.finishMember(run, queued.get(id)!, 'timeout', timeoutError());
    }
  }
};

/** A member's report from its ended job, as an in-process send would have made it. */
async function report(run: FanOutRun, hooks: MemberHooks, member: MemberResult, job: StoredJob): Promise<void> {
  const result = (job.result_json ? JSON.parse(job.result_json) : {}) as SendJobResult;
  const delivery = result.delivery;
  if (delivery) {
    member.request_message_id = delivery.message_id;
    member.selected_interface = delivery.interface;
    member.latency_ms = delivery.latency_ms;
    run.request.parts ??= delivery.parts;
    run.request.bytes ??= delivery.bytes;
  }
  member.task_id = result.task_id ?? null;
  member.state = result.state ?? null;
  member.response_shape = delivery?.response_shape ?? (result.response_shape === 'message' ? 'message' : member.task_id ? 'task' : null);
  if (job.state === 'cancelled') {
    return hooks.finishMember(
      run,
      member,
      'failed',
      new MissiveError('orchestration', 'job_cancelled', `the job of this member (${job.job_id}) was cancelled before it ended`),
    );
  }
  if (result.error) {
    const error = errorFromReport(result.error);
    return hooks.finishMember(run, member, error.code === 'missive::transport::timeout' ? 'timeout' : 'failed', error);
  }
  const failed = failedTask(member.state);
  await hooks.finishMember(run, member, failed ? 'failed' : 'succeeded', failed);
}
