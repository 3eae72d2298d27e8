/**
 * Executes one operator job in the gateway through the same services as the commands (send, stream, task wait,
 * reduce, bcast). Sends are recorded before they leave and their task is recorded before the job waits on it, so an
 * execution that a killed gateway interrupted resumes: a known task is waited on again, never sent twice. A request
 * that left without a confirmed answer is not sent again either (at most once): the job fails with
 * `job_dispatch_unconfirmed` and the operator decides.
 */
import { A2A_ERROR_SPECS } from '../a2a/a2a-errors.js';
import { isWireLimit } from '../a2a/wire-limits.js';
import { MissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { bcast } from '../collectives/bcast.js';
import { reduce } from '../collectives/reduce.js';
import { answerSteps, buildSend, callAgent, requestSteps, responseText, type SendResult } from '../messaging/send.js';
import { streamMessage } from '../messaging/stream.js';
import { rowId } from '../store/row-id.js';
import type { StoredJob } from '../store/rows/gateway-jobs.js';
import type { Storage } from '../store/storage.js';
import { jobCall, type Steps } from '../store/steps.js';
import { WAIT_OUTCOMES } from '../tasks/service.js';
import { localTaskState } from '../tasks/task-state.js';
import { storedTaskAnswer } from '../tasks/answer-text.js';
import type { JobTrail } from './job-trail.js';
import { pollTaskOnce } from './poll-task.js';
import { parseJobRequest, type JobRequest } from './requests.js';
import { retryWhileStoreAway } from './store-retry.js';
import { gatewayCommand } from './gateway-commands.js';
import { TRUST_REFUSAL_CODES } from '../auth/host-trust.js';
import { endUnconfirmed, findTaskCommand } from '../history/unconfirmed.js';
import { pause } from './backoff.js';

/** What a finished execution stores in `result_json`: the outcome and its exit code, plus what the kind produced. */
export interface JobResult {
  outcome: string;
  exit_code: number;
  [key: string]: unknown;
}

export interface ExecuteOptions {
  signal: AbortSignal;
  /** GetTask interval while the job waits on its task. */
  pollMs: number;
  /** The job's events: those it holds go with the execution's first write (job-trail.ts). */
  trail: JobTrail;
}

/**
 * An execution whose last writes go in the transaction that ends the job (run.ts): a send answered at once leaves its
 * answer's rows, its task as the job's target and the job's result in one commit. `commit` gives them as steps and
 * returns the result.
 */
export class DeferredResult {
  constructor(readonly commit: () => Steps<JobResult>) {}
}

/**
 * A request marked as out (`gateway_jobs.dispatched`, set before it is sent), with the message id it leaves under: if
 * the gateway dies before the answer is recorded, the next execution looks that message up instead of sending again.
 */
interface DispatchMark {
  message_id?: string;
}

const markOf = (job: StoredJob): DispatchMark | null =>
  job.dispatched === 1 ? (job.dispatch_message_id ? { message_id: job.dispatch_message_id } : {}) : null;

export const wasDispatched = (job: StoredJob) => markOf(job) !== null;

/**
 * Failures that prove the agent did not act on the request: nothing listened, the name did not resolve, the agent
 * refused it (auth, an HTTP error status, a JSON-RPC error). A timeout or a broken connection may have reached it.
 */
export const notActedOn = (error: MissiveError) =>
  error.category === 'auth' ||
  error.category === 'protocol' ||
  ['missive::transport::connection_refused', 'missive::transport::dns', 'missive::transport::http_status'].includes(error.code);

const unconfirmed = (job: StoredJob) =>
  new MissiveError(
    'orchestration',
    'job_dispatch_unconfirmed',
    `job ${job.job_id}: the gateway stopped after sending and before the answer was recorded; it is not sent twice`,
    {
      help: `Ask the agent whether it got it: \`${findTaskCommand(job.agent_alias)}\` finds its task and records it (\`missive history show\` then names it); start the job again if it did not arrive.`,
    },
  );

/** Errors a retry cannot fix: the job fails at once whatever --max-attempts says. */
/** An A2A error is the agent's answer (no such task, not cancelable, unsupported…): another attempt gets the same one. */
const A2A_ERROR_CODES = new Set(A2A_ERROR_SPECS.map((spec) => `missive::protocol::${spec.code}`));

/** This host's trust decisions refused the job (auth/host-trust.ts): the operator decides, a retry would not. */
const TRUST_REFUSALS = new Set(TRUST_REFUSAL_CODES);

export const isPermanent = (error: MissiveError) =>
  error.code === 'missive::orchestration::job_dispatch_unconfirmed' ||
  error.code === 'missive::storage::corrupt_row' ||
  TRUST_REFUSALS.has(error.code) ||
  // The agent answered, too much (a stream past its budget): another attempt sends the message again.
  isWireLimit(error) ||
  A2A_ERROR_CODES.has(error.code) ||
  ['validation', 'config', 'data'].includes(error.category);

/** Polls GetTask until the task reaches a state that ends a wait (or the gateway stops: the error makes it resume later). */
async function settle(core: Core, taskId: string, agent: string | undefined, options: ExecuteOptions): Promise<JobResult> {
  const storage = await core.storage();
  // A wait may be long: the job's attempt is journaled now, not when it ends.
  await options.trail.flushNow(storage);
  const alias = agent ?? (await storage.conversation.getTask(taskId))?.agent_alias;
  if (!alias) throw usageError('unknown_task', `task ${taskId} is not in the local journal`, 'Pass --agent <alias> to ask an agent about it.');
  for (;;) {
    if (options.signal.aborted) throw new MissiveError('orchestration', 'gateway_stopped', 'gateway stopped');
    // A poll that finds the task as stored writes nothing (poll-task.ts).
    const task = await pollTaskOnce(core, alias, taskId, 'job');
    const code = WAIT_OUTCOMES[task.state];
    // The answer as journaled (artifacts streamed in pieces joined: tasks/answer-text.ts), as a send's result has it.
    const text = () => storage.read(storedTaskAnswer(taskId));
    if (code !== undefined)
      return { outcome: task.state, exit_code: code, task_id: taskId, context_id: task.context_id, state: task.state, text: await text() };
    await pause(options.pollMs, options.signal);
  }
}

/**
 * Where a send or stream job stands before it (re)sends: its task is known (wait on it), or the request it marked as
 * out was recorded (sent: resume on its task, or fail as unconfirmed), or nothing left: the message id to send under
 * (the stored one, or a fresh one when an earlier attempt's request failed without reaching the agent).
 */
async function resumePoint(storage: Storage, job: StoredJob, storedMessageId: string): Promise<{ taskId: string } | { messageId: string }> {
  if (job.target_task_id) return { taskId: job.target_task_id };
  const mark = markOf(job);
  const marked = mark?.message_id ? await storage.conversation.requestOf(mark.message_id) : undefined;
  if (marked?.task_id) {
    await storage.jobs.setTargetTask(job.job_id, marked.task_id, marked.context_id);
    return { taskId: marked.task_id };
  }
  if (marked) throw await endUnconfirmed(storage, mark!.message_id!, unconfirmed(job));
  if (mark && !mark.message_id) throw unconfirmed(job);
  // No row under the mark: the gateway stopped before the request was recorded, so it never left.
  if (mark?.message_id) return { messageId: mark.message_id };
  // A first try (never retried, not marked) has recorded no request: its stored message id is free. An earlier
  // attempt that recorded one was retried (run.ts clears its mark and counts it in one transaction).
  if (job.retry_count === 0) return { messageId: storedMessageId };
  return { messageId: (await storage.conversation.requestOf(storedMessageId)) ? rowId() : storedMessageId };
}

async function sendJob(
  core: Core,
  job: StoredJob,
  request: Extract<JobRequest, { kind: 'send' }>,
  options: ExecuteOptions,
): Promise<JobResult | DeferredResult> {
  const storage = await core.storage();
  const agent = request.input.agent;
  const point = await resumePoint(storage, job, request.input.messageId);
  if ('taskId' in point) return settle(core, point.taskId, agent, options);
  // The agent answers with its task at once; the job then waits on it by GetTask, which a restart can resume.
  // The parts were captured where the job was queued: nothing is read on this host (cwd is never used for them).
  const prepared = await buildSend(core, { ...request.input, cwd: process.cwd(), messageId: point.messageId, returnImmediately: true }, 'send');
  // One write before the request leaves: the job's attempt, the dispatch mark and the request row (with
  // `a2a.send.started`). A gateway killed after it resumes on the mark; before it, nothing was sent.
  await options.trail.write(
    storage,
    function* () {
      yield* jobCall('markDispatched', job.job_id, point.messageId);
      yield* requestSteps(prepared);
    },
    'group',
  );
  const t0 = performance.now();
  const answer = await callAgent(core, prepared);
  const latencyMs = Math.round(performance.now() - t0);
  const responseMessageId = rowId();
  /** The answer's rows and `a2a.send.completed`, and its task as the job's target. */
  function* persist(): Steps<SendResult> {
    const sent = yield* answerSteps(prepared, answer, responseMessageId);
    if (sent.task) yield* jobCall('setTargetTask', job.job_id, sent.task.task_id, sent.task.context_id);
    return sent;
  }
  const firstState = answer.task ? localTaskState(answer.task.status?.state) : null;
  // Answered for good (a message, a task in a state that ends a wait), or asked to return at once (`--return-immediately`:
  // the job ends with the task as the agent first answered it): the answer is written with the job's end.
  if (!firstState || WAIT_OUTCOMES[firstState] !== undefined || request.input.returnImmediately)
    return new DeferredResult(function* () {
      return resultOfAnswer(yield* persist(), latencyMs);
    });
  // Answered: a store that went away meanwhile is waited for rather than the answer lost (store-retry.ts).
  const sent = await retryWhileStoreAway(() => storage.write(persist, 'group'), { signal: options.signal, baseMs: options.pollMs });
  return { ...(await settle(core, sent.task!.task_id, agent, options)), delivery: deliveryOf(sent, latencyMs) };
}

/** A send job's result from its first answer: a message, or the task as answered. */
function resultOfAnswer(sent: SendResult, latencyMs: number): JobResult {
  const delivery = deliveryOf(sent, latencyMs);
  if (!sent.task)
    return { outcome: 'completed', exit_code: 0, response_shape: 'message', context_id: sent.request.context_id, text: responseText(sent.response), delivery };
  return {
    outcome: sent.task.state,
    exit_code: WAIT_OUTCOMES[sent.task.state] ?? 0,
    task_id: sent.task.task_id,
    context_id: sent.task.context_id,
    state: sent.task.state,
    text: responseText(sent.response),
    delivery,
  };
}

/**
 * How a send job's request went out, in its result (a fan-out through the queue reports it per member, as an
 * in-process one does): absent when the job resumed a request an earlier execution had sent.
 */
export interface JobDelivery {
  message_id: string;
  interface: SendResult['selected_interface'];
  response_shape: SendResult['response_shape'];
  latency_ms: number;
  parts: number;
  bytes: number;
}

const deliveryOf = (sent: SendResult, latencyMs: number): JobDelivery => ({
  message_id: sent.request.message_id,
  interface: sent.selected_interface,
  response_shape: sent.response_shape,
  latency_ms: latencyMs,
  parts: sent.request.parts,
  bytes: sent.request.bytes,
});

async function streamJob(core: Core, job: StoredJob, request: Extract<JobRequest, { kind: 'stream' }>, options: ExecuteOptions): Promise<JobResult> {
  const storage = await core.storage();
  const agent = request.input.agent;
  const point = await resumePoint(storage, job, request.input.messageId);
  if ('taskId' in point) return settle(core, point.taskId, agent, options);
  await options.trail.write(storage, function* () {
    yield* jobCall('markDispatched', job.job_id, point.messageId);
  });
  // The task is recorded with the first event that names it, in that event's transaction (a restart then waits on it
  // rather than sending again).
  let recorded = false;
  const streamed = await streamMessage(core, {
    ...request.input,
    cwd: process.cwd(),
    messageId: point.messageId,
    force: request.force,
    signal: options.signal,
    *along(applied) {
      if (recorded || !applied.task_id) return;
      yield* jobCall('setTargetTask', job.job_id, applied.task_id, applied.context_id);
      recorded = true;
    },
  });
  const common = { events: streamed.events, counts: streamed.counts, context_id: streamed.context_id, text: streamed.answer_text };
  if (!streamed.task) return { outcome: 'completed', exit_code: 0, response_shape: 'message', ...common };
  const code = streamed.task.state ? WAIT_OUTCOMES[streamed.task.state] : undefined;
  if (code !== undefined) return { outcome: streamed.task.state!, exit_code: code, task_id: streamed.task.task_id, state: streamed.task.state, ...common };
  // The stream ended before the task did: wait for it like `task wait`.
  return { ...common, ...(await settle(core, streamed.task.task_id, agent, options)) };
}

async function bcastJob(core: Core, job: StoredJob, request: Extract<JobRequest, { kind: 'bcast' }>, options: ExecuteOptions): Promise<JobResult> {
  if (wasDispatched(job)) throw unconfirmed(job);
  await options.trail.write(await core.storage(), function* () {
    yield* jobCall('markDispatched', job.job_id);
  });
  const result = await bcast(
    core,
    { ...request.inputs, cwd: process.cwd() },
    {
      group: request.group,
      contextId: request.contextId,
      execution: request.execution,
      maxConcurrency: request.maxConcurrency,
      failurePolicy: request.failurePolicy,
    },
  );
  return {
    outcome: result.status,
    exit_code: result.exit_code,
    operation_id: result.operation_id,
    context_id: result.request.context_id,
    counts: result.counts,
    members: result.members.map((m) => ({ agent: m.alias, rank: m.rank, status: m.status, task_id: m.task_id, state: m.state, error: m.error })),
  };
}

async function reduceJob(core: Core, job: StoredJob, request: Extract<JobRequest, { kind: 'reduce' }>, options: ExecuteOptions): Promise<JobResult> {
  await options.trail.flushNow(await core.storage());
  // A local strategy reads the journal only and may run again; a reducer agent is sent to at most once.
  if (request.input.reducerAgent) {
    if (wasDispatched(job)) throw unconfirmed(job);
    await (await core.storage()).jobs.markDispatched(job.job_id);
  }
  // A command only by name, from this gateway's own config: never a command line from the queue.
  const command = request.input.gatewayCommand ? gatewayCommand(core, request.input.gatewayCommand) : undefined;
  const { gatewayCommand: _name, ...input } = request.input;
  const result = await reduce(core, { ...input, command: command?.command, cwd: command?.cwd ?? process.cwd() });
  return {
    outcome: 'completed',
    exit_code: 0,
    operation_id: result.operation_id,
    context_id: result.context_id,
    strategy: result.strategy,
    counts: result.counts,
    reducer: result.reducer,
    reduced_text: result.reduced_text,
    reduced_message_id: result.persistence.reduced_message_id,
  };
}

export async function executeJob(core: Core, job: StoredJob, options: ExecuteOptions): Promise<JobResult | DeferredResult> {
  const request = parseJobRequest(job.job_id, job.request_json);
  switch (request.kind) {
    case 'send':
      return sendJob(core, job, request, options);
    case 'stream':
      return streamJob(core, job, request, options);
    case 'wait':
      return settle(core, request.taskId, request.agent, options);
    case 'bcast':
      return bcastJob(core, job, request, options);
    case 'reduce':
      return reduceJob(core, job, request, options);
  }
}
