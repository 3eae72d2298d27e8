/**
 * The engine of `missive load` (runLoad) on a real core against SDK peers on 127.0.0.1 (test/support/load-peers.ts).
 * Runs are short and modest (at most 50 requests a second for two seconds); the only timed assertion is the issue's
 * "achieved rate within 5% of the target", which checks the generator against its own clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register } from '../support/agents.js';
import { startLoadPeer, type LoadPeer, type LoadPeerOptions } from '../support/load-peers.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runLoad } from '../../electron/core/load/run.js';
import type { LoadPlan, LoadSnapshot } from '../../electron/core/load/types.js';
import { MissiveError } from '../../shared/errors.js';

const PEERS: Record<string, LoadPeerOptions> = {
  fixed: { delayMs: 20 },
  slowing: { delayMs: 10, slowAfter: 70, slowFactor: 10 },
  failing: { failEvery: 10 },
  later: { answer: 'task-later', completeAfterMs: 150 },
  asking: { answer: 'input-required' },
  chunks: { answer: 'stream-chunks', delayMs: 5 },
  red: {},
  blue: {},
  direct: {},
  stuck: { delayMs: 30_000 },
};

let box: Sandbox;
let core: Core;
const peers: Record<string, LoadPeer> = {};

beforeAll(async () => {
  for (const [alias, options] of Object.entries(PEERS)) peers[alias] = await startLoadPeer({ name: alias, ...options });
  box = sandbox();
  await register(box, peers);
  const group = await box.run(['group', 'create', 'colours', '--member', 'red', '--member', 'blue']);
  if (group.code !== 0) throw new Error(group.stderr);
  core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
}, 30_000);

afterAll(async () => {
  core?.close();
  box?.dispose();
  await Promise.all(Object.values(peers).map((p) => p.close()));
});

const plan = (target: string, over: Partial<LoadPlan>): LoadPlan => ({
  target,
  model: { kind: 'closed', concurrency: 4 },
  warmupMs: 0,
  stream: false,
  untilFinal: false,
  inputs: [{ text: 'hello' }],
  record: false,
  ...over,
});

const withinFivePercent = (achieved: number, target: number) => expect(Math.abs(achieved - target) / target).toBeLessThanOrEqual(0.05);

async function events(type: string): Promise<Array<{ type: string; payload: Record<string, unknown> }>> {
  const res = await box.run(['events', 'list', '--type', type, '--limit', '1000', '--json']);
  expect(res.code).toBe(0);
  return (res.json().data as { events: Array<{ type: string; payload: Record<string, unknown> }> }).events;
}

describe('missive load engine', () => {
  it('open-loop: the peer received what the report says was sent (warm-up included) at the target rate, journaled as one record', async () => {
    const snapshots: LoadSnapshot[] = [];
    const before = peers.fixed!.received;
    const report = await runLoad(core, plan('fixed', { model: { kind: 'open', rate: 50 }, durationMs: 2000, warmupMs: 200 }), {
      onSnapshot: (s) => snapshots.push(s),
    });
    expect(peers.fixed!.received - before).toBe(report.requests.sent + report.requests.warmup);
    expect(report.requests).toMatchObject({ sent: 100, warmup: 10, answered: 100, succeeded: 100, failed: 0 });
    withinFivePercent(report.rate.achieved, 50);
    expect(report.rate.target).toBe(50);
    expect(report.model.kind).toBe('open');
    expect(report.model.description).toMatch(/^open-loop at 50\/s/);
    expect(report.latency.answer.count).toBe(100);
    expect(report.latency.answer.p50).toBeGreaterThanOrEqual(20);
    expect(report.outcomes).toEqual({ message: 100 });
    expect(report.histograms.answer).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(snapshots.length).toBeGreaterThan(0);
    expect(snapshots.at(-1)!.sent).toBeGreaterThan(0);
    const completed = await events('missive.load.completed');
    expect(completed.length).toBeGreaterThanOrEqual(1);
    expect(completed.at(-1)!.payload).toMatchObject({ target: 'fixed', requests: { sent: 100 }, histograms: { answer: report.histograms.answer } });
    // Not one event per request.
    expect(await events('a2a.send.*')).toHaveLength(0);
  });

  it('open-loop: a peer that slows down mid-run shows in p99, not in the achieved rate', async () => {
    const report = await runLoad(core, plan('slowing', { model: { kind: 'open', rate: 50 }, durationMs: 2000 }));
    expect(report.requests.succeeded).toBe(100);
    withinFivePercent(report.rate.achieved, 50);
    // The last 30 answers each took at least 100 ms at the peer; the first 70, 10 ms.
    expect(report.latency.answer.p99).toBeGreaterThanOrEqual(100);
    expect(report.latency.answer.p99).toBeGreaterThan(report.latency.answer.p50);
  });

  it('tallies errors by A2A code with a first example, against a peer failing one request in ten with TaskNotFound', async () => {
    const report = await runLoad(core, plan('failing', { requests: 50 }));
    expect(report.requests).toMatchObject({ sent: 50, answered: 50, succeeded: 45, failed: 5 });
    expect(report.errors).toHaveLength(1);
    // Over JSON-RPC the error came in an HTTP 200 answer: no status to count it by.
    expect(report.errors[0]).toMatchObject({ key: 'protocol::task_not_found', category: 'protocol', code: 'task_not_found', count: 5, http_status: null });
    expect(report.errors[0]!.first_example).toMatch(/no such task/);
    expect(report.model.description).toMatch(/closed-loop, 4 virtual users/);
    // Over HTTP+JSON the same A2A error comes with its HTTP status (404), read from the answer.
    const rest = await runLoad(core, plan('failing', { requests: 20, binding: 'http+json' }));
    expect(rest.errors).toEqual([expect.objectContaining({ key: 'protocol::task_not_found', count: 2, http_status: 404 })]);
  });

  it('--until final follows working tasks to completed (GetTask with backoff), and counts input_required without waiting on it', async () => {
    const later = await runLoad(core, plan('later', { requests: 8, untilFinal: true }));
    expect(later.outcomes).toEqual({ completed: 8 });
    expect(later.latency.final_state?.count).toBe(8);
    const asking = await runLoad(core, plan('asking', { requests: 5, untilFinal: true }));
    expect(asking.outcomes).toEqual({ input_required: 5 });
    expect(asking.latency.final_state?.count).toBe(0);
    const plain = await runLoad(core, plan('later', { requests: 4 }));
    expect(plain.outcomes).toEqual({ working: 4 });
  });

  it('--stream times the first event and the gaps between events', async () => {
    const report = await runLoad(core, plan('chunks', { requests: 6, stream: true, model: { kind: 'closed', concurrency: 2 } }));
    expect(report.operation).toBe('stream');
    expect(report.outcomes).toEqual({ completed: 6 });
    expect(report.latency.first_event?.count).toBe(6);
    // A task, three artifact chunks and the completed status: four gaps a stream.
    expect(report.latency.between_events?.count).toBe(24);
    expect(report.histograms).toHaveProperty('first_event');
  });

  it('a group target spreads requests round-robin over its members in rank order; a URL works as a target', async () => {
    const before = { red: peers.red!.received, blue: peers.blue!.received };
    const report = await runLoad(core, plan('colours', { requests: 10, model: { kind: 'closed', concurrency: 1 } }));
    expect(report.agents).toEqual(['red', 'blue']);
    expect(peers.red!.received - before.red).toBe(5);
    expect(peers.blue!.received - before.blue).toBe(5);
    const byUrl = await runLoad(core, plan(peers.direct!.baseUrl, { requests: 3 }));
    expect(byUrl.requests.succeeded).toBe(3);
    expect(peers.direct!.received).toBe(3);
  });

  it('a URL target with credentials in it is reported and journaled without them', async () => {
    const url = peers.direct!.baseUrl.replace('http://', 'http://loader:s3cret-load-pass@') + '?key=s3cret-query-value';
    const report = await runLoad(core, plan(url, { requests: 2 }));
    expect(report.requests.succeeded).toBe(2);
    expect(JSON.stringify(report)).not.toMatch(/s3cret/);
    expect(JSON.stringify(await events('missive.load.*'))).not.toMatch(/s3cret/);
  });

  it('never sends more than --max-requests, even in a timed closed-loop run', async () => {
    const before = peers.fixed!.received;
    const report = await runLoad(core, plan('fixed', { durationMs: 10_000, maxRequests: 12, warmupMs: 0 }));
    expect(report.requests.sent + report.requests.warmup).toBe(12);
    expect(peers.fixed!.received - before).toBe(12);
  });

  it('--record journals each request as a send (or a stream) does', async () => {
    const before = (await events('a2a.send.completed')).length;
    const report = await runLoad(core, plan('red', { requests: 3, record: true }));
    expect(report.requests.succeeded).toBe(3);
    expect((await events('a2a.send.completed')).length - before).toBe(3);
    const streamed = await runLoad(core, plan('chunks', { requests: 2, record: true, stream: true }));
    expect(streamed.outcomes).toEqual({ completed: 2 });
    expect(streamed.latency.between_events?.count).toBe(8);
    expect(await events('a2a.stream.completed')).toHaveLength(2);
  });

  it('a run that cannot start (no agent listening) fails with the transport error and journals missive.load.failed', async () => {
    const added = await box.run(['agent', 'add', 'gone', await closedPortUrl()]);
    expect(added.code, added.stderr).toBe(0);
    const error = await runLoad(core, plan('gone', { requests: 5 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissiveError);
    expect((error as MissiveError).category).toBe('transport');
    const failed = await events('missive.load.failed');
    expect(failed.at(-1)!.payload).toMatchObject({ target: 'gone', agents: ['gone'], error: { category: 'transport' } });
  });

  it('refuses a rate the process cannot keep, naming the measured ceiling', async () => {
    const error = await runLoad(core, plan('fixed', { model: { kind: 'open', rate: 10_000_000 }, durationMs: 1000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissiveError);
    expect((error as MissiveError).code).toBe('missive::validation::rate_unsustainable');
    expect((error as MissiveError).exitCode).toBe(64);
    expect((error as MissiveError).message).toMatch(/ceiling of about \d+ requests a second/);
    // 2,000 requests a second is within what this process can keep.
    expect(Number(/about (\d+)/.exec((error as MissiveError).message)![1])).toBeGreaterThanOrEqual(2000);
  });

  it('an abort ends the run early and the report covers what ran', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300).unref();
    const report = await runLoad(core, plan('fixed', { model: { kind: 'open', rate: 20 }, durationMs: 60_000 }), { signal: stop.signal });
    expect(report.requests.sent).toBeGreaterThan(0);
    expect(report.requests.sent).toBeLessThan(1200);
    expect(report.requests.answered).toBe(report.requests.sent);
  });

  it('an abort does not wait on requests that never answer: they are abandoned after a grace, and the report says so', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200).unref();
    const report = await runLoad(core, plan('stuck', { model: { kind: 'closed', concurrency: 3 }, durationMs: 60_000 }), { signal: stop.signal });
    expect(report.requests).toMatchObject({ sent: 3, answered: 0 });
    expect(peers.stuck!.received).toBe(3);
  });
});
