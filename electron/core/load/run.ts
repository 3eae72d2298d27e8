/**
 * The engine of `missive load`: connect once to each agent of the target (an alias, a group's members in rank order,
 * or a URL), drive requests by the plan's model (generators.ts), measure them (tracker.ts), and journal the run as one
 * `missive.load.completed` record carrying the report and its histograms. Requests are not journaled one by one unless
 * `plan.record` (then each goes through the send/stream services). The CLI parses flags into the plan and shows the
 * snapshots and the report; this module prints nothing.
 */
import { MissiveError, toMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { connect } from '../agents/connection.js';
import { isUrlTarget, withAgentTarget } from '../agents/ad-hoc.js';
import { capabilityView } from '../a2a/capabilities.js';
import { assertSustainableRate } from './capacity.js';
import { closedLoop, openLoop, type GeneratorState, type Launch } from './generators.js';
import { sleepAbortable } from './sleep.js';
import { describeModel } from './model-name.js';
import { requestTemplate, runRequest, type AgentLane, type RequestContext } from './request.js';
import { LoadTracker } from './tracker.js';
import type { LoadHooks, LoadPlan, LoadReport } from './types.js';

/** After Ctrl-C, requests in flight get this long to settle before they are abandoned. */
const ABORT_GRACE_MS = 3_000;
/** --until final follows tasks this long past the end of sending (bounded by the request time limit). */
const FOLLOW_GRACE_MS = 30_000;
/** The generator is saturated (its numbers unreliable) past this lag, or when this share of its requests left late. */
const SATURATED_LAG_MS = 100;
const SATURATED_LATE_SHARE = 0.1;

export async function runLoad(core: Core, plan: LoadPlan, hooks: LoadHooks = {}): Promise<LoadReport> {
  checkPlan(plan);
  if (plan.model.kind === 'open') assertSustainableRate(plan.model.rate);
  // A URL target is reported (and journaled) as its alias: the URL without userinfo, query values redacted.
  if (isUrlTarget(plan.target)) return withAgentTarget(core, plan.target, (alias) => runOn(core, { ...plan, target: alias }, hooks, [alias]));
  return runOn(core, plan, hooks, await targetAliases(core, plan.target));
}

function checkPlan(plan: LoadPlan): void {
  const bad = (message: string) => usageError('invalid_load_plan', message);
  if ((plan.durationMs === undefined) === (plan.requests === undefined)) throw bad('give either a duration or a number of requests');
  if (plan.durationMs !== undefined && !(plan.durationMs > 0)) throw bad('the duration must be positive');
  if (plan.requests !== undefined && !(Number.isInteger(plan.requests) && plan.requests > 0)) throw bad('the number of requests must be a positive integer');
  if (!(plan.warmupMs >= 0)) throw bad('the warm-up cannot be negative');
  if (plan.maxRequests !== undefined && !(plan.maxRequests > 0)) throw bad('the request cap must be positive');
  if (plan.model.kind === 'closed' && !(Number.isInteger(plan.model.concurrency) && plan.model.concurrency > 0))
    throw bad('the concurrency must be a positive integer');
  if (plan.inputs.length === 0) throw usageError('empty_message', 'nothing to send: give a MESSAGE or --from-file');
}

/** An agent alias as it is; a group (when no agent holds the name) as its members in rank order. */
async function targetAliases(core: Core, target: string): Promise<string[]> {
  const storage = await core.storage();
  if (await storage.agents.get(target)) return [target];
  if (!(await storage.groups.get(target))) return [target];
  const members = [...(await storage.groups.members(target))].sort((a, b) => a.rank - b.rank);
  if (members.length === 0)
    throw new MissiveError('validation', 'empty_group', `group "${target}" has no members`, { help: `Add one with: missive group add ${target} <alias>` });
  return members.map((m) => m.agent_alias);
}

async function lanesFor(core: Core, plan: LoadPlan, aliases: string[]): Promise<AgentLane[]> {
  const lanes: AgentLane[] = [];
  for (const alias of aliases) {
    const conn = await connect(core, alias, { binding: plan.binding });
    if (plan.stream && !capabilityView(conn.card.card).streaming)
      throw usageError(
        'streaming_not_supported',
        `agent "${conn.alias}" does not advertise capabilities.streaming in its Agent Card`,
        'Load it without --stream.',
      );
    lanes.push({ alias: conn.alias, conn, inputs: plan.inputs, templates: plan.inputs.map((i) => requestTemplate(i, conn.iface.tenant ?? undefined)) });
  }
  return lanes;
}

async function runOn(core: Core, plan: LoadPlan, hooks: LoadHooks, aliases: string[]): Promise<LoadReport> {
  let lanes: AgentLane[];
  try {
    lanes = await lanesFor(core, plan, aliases);
  } catch (error) {
    const err = toMissiveError(error);
    await (await core.storage()).journal.append({ type: 'missive.load.failed', payload: { target: plan.target, agents: aliases, error: err.toReport() } });
    throw err;
  }
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  if (hooks.signal?.aborted) stop.abort();
  const startedAtIso = new Date().toISOString();
  const t0 = performance.now();
  const countedFrom = t0 + plan.warmupMs;
  const tracker = new LoadTracker(t0, countedFrom);
  const state: GeneratorState = { maxLagMs: 0, late: 0, firstCountedDue: null, lastLaunch: null, endedAt: null };
  const plannedEnd = plan.durationMs !== undefined ? countedFrom + plan.durationMs : null;
  const ctx: RequestContext = {
    core,
    plan,
    signal: stop.signal,
    followUntil: () => (plannedEnd ?? state.endedAt ?? Infinity) + Math.min(core.timeoutMs, FOLLOW_GRACE_MS),
  };
  const pending = new Set<Promise<void>>();
  const launch: Launch = (index, startedAt, warm) => {
    const lane = lanes[index % lanes.length]!;
    tracker.sent(warm);
    const done = runRequest(ctx, lane, Math.floor(index / lanes.length)).then(
      (result) => tracker.succeeded(warm, startedAt, result),
      (error: unknown) => tracker.failed(warm, error, lane.conn.outbound.secrets),
    );
    pending.add(done);
    void done.finally(() => pending.delete(done));
    return done;
  };
  const ticker = setInterval(() => {
    const snapshot = tracker.snapshot(performance.now());
    try {
      hooks.onSnapshot?.(snapshot);
    } catch (error) {
      core.warn(`the live view failed: ${(error as Error).message}`);
    }
  }, 1000);
  try {
    // An abort stops the generator at once; a closed-loop user waiting on its request does not hold the run (settleAll bounds it).
    await Promise.race([drive(plan, { t0, countedFrom, plannedEnd, tracker, launch, signal: stop.signal, state }), aborted(stop.signal)]);
    await settleAll(pending, stop, core.timeoutMs);
  } finally {
    clearInterval(ticker);
    hooks.signal?.removeEventListener('abort', onAbort);
  }
  const report = buildReport(plan, lanes, tracker, state, { startedAtIso, countedFrom });
  const secrets = lanes.flatMap((l) => l.conn.outbound.secrets);
  await (
    await core.storage()
  ).journal.append({ type: 'missive.load.completed', agentAlias: lanes.length === 1 ? lanes[0]!.alias : null, payload: { ...report } }, secrets);
  return report;
}

interface Drive {
  t0: number;
  countedFrom: number;
  plannedEnd: number | null;
  tracker: LoadTracker;
  launch: Launch;
  signal: AbortSignal;
  state: GeneratorState;
}

/** Runs the plan's model until its requests are issued (or its time is up, or the run is aborted). */
function drive(plan: LoadPlan, d: Drive): Promise<void> {
  if (plan.model.kind === 'open') {
    const rate = plan.model.rate;
    const warmupCount = Math.ceil((plan.warmupMs * rate) / 1000);
    const counted = plan.requests ?? Math.ceil(((plan.durationMs ?? 0) * rate) / 1000);
    const total = Math.min(warmupCount + counted, plan.maxRequests ?? Infinity);
    return openLoop({ t0: d.t0, rate, warmupCount, total, tracker: d.tracker, launch: d.launch, signal: d.signal, state: d.state });
  }
  return closedLoop({
    concurrency: plan.model.concurrency,
    countedFrom: d.countedFrom,
    until: d.plannedEnd,
    requests: plan.requests ?? null,
    maxIssued: plan.maxRequests ?? null,
    launch: d.launch,
    signal: d.signal,
    state: d.state,
  });
}

const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

/**
 * Waits for the requests in flight: after an abort for ABORT_GRACE_MS at most, else for the request time limit plus
 * the follow grace; what is still pending then is abandoned (aborted, and left out of the report).
 */
async function settleAll(pending: Set<Promise<void>>, stop: AbortController, timeoutMs: number): Promise<void> {
  const bound = new AbortController();
  const limit = stop.signal.aborted ? ABORT_GRACE_MS : timeoutMs + FOLLOW_GRACE_MS + ABORT_GRACE_MS;
  const onAbort = () => setTimeout(() => bound.abort(), ABORT_GRACE_MS).unref();
  stop.signal.addEventListener('abort', onAbort, { once: true });
  const timer = sleepAbortable(limit, bound.signal).then(() => bound.abort());
  while (pending.size > 0 && !bound.signal.aborted) await Promise.race([Promise.allSettled([...pending]), timer]);
  bound.abort();
  stop.signal.removeEventListener('abort', onAbort);
  if (pending.size > 0) stop.abort();
}

function buildReport(
  plan: LoadPlan,
  lanes: AgentLane[],
  tracker: LoadTracker,
  state: GeneratorState,
  at: { startedAtIso: string; countedFrom: number },
): LoadReport {
  const end = Math.max(performance.now(), at.countedFrom);
  const { sent, answered } = tracker.counts;
  let achieved = 0;
  let target: number | null = null;
  let description: string;
  if (plan.model.kind === 'open') {
    target = plan.model.rate;
    // From the first counted request's due time to the last one's actual start, plus one interval: exactly the planned
    // window when the generator kept its schedule, longer when it fell behind.
    const interval = 1000 / target;
    const windowMs = state.lastLaunch === null || state.firstCountedDue === null ? 0 : state.lastLaunch - state.firstCountedDue + interval;
    achieved = windowMs > 0 ? (sent * 1000) / windowMs : 0;
    description = `${describeModel(plan.model)}: requests start on schedule whatever the answers do; latency counts from each request's scheduled start`;
  } else {
    const windowMs = tracker.lastSettled - at.countedFrom;
    achieved = windowMs > 0 ? (answered * 1000) / windowMs : 0;
    description = `${describeModel(plan.model)}: each sends its next request when its last one settled`;
  }
  const issued = sent + tracker.counts.warmup;
  const maxLag = Math.round(state.maxLagMs * 1000) / 1000;
  return {
    target: plan.target,
    agents: lanes.map((l) => l.alias),
    model: { ...plan.model, description },
    operation: plan.stream ? 'stream' : 'send',
    binding: [...new Set(lanes.map((l) => l.conn.iface.binding))].join(','),
    started_at: at.startedAtIso,
    duration_ms: Math.round(end - at.countedFrom),
    warmup_ms: plan.warmupMs,
    requests: { ...tracker.counts },
    rate: { target, achieved: Math.round(achieved * 100) / 100 },
    ...tracker.latency(plan.stream, plan.untilFinal),
    errors: tracker.errors.list(),
    outcomes: { ...tracker.outcomes },
    generator: { max_lag_ms: maxLag, saturated: maxLag > SATURATED_LAG_MS || (issued > 0 && state.late / issued > SATURATED_LATE_SHARE) },
  };
}
