/**
 * What a job costs the shared store (issue 34, item 8), counted, never timed: the PostgreSQL transactions a gateway
 * spends on one send job whose agent (the SDK's server, echoing) answers at once, from pg_stat_database's
 * xact_commit on a database only the gateway uses; and what a GetTask poll that finds nothing new writes (nothing: no
 * task, message, artifact or event row inserted or updated).
 *
 * The counts are read once every server process of the database has exited (each flushes its statistics as it
 * exits), so they are exact: a gateway run with one job against one with none, in the same database.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { addAgent } from '../../electron/core/agents/registry.js';
import { loadCard } from '../../electron/core/agents/discovery.js';
import { createCore } from '../../electron/core/context.js';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { runGateway } from '../../electron/core/gateway/gateway.js';
import type { Core } from '../../electron/core/handle.js';
import { showJob, startJob } from '../../electron/core/jobs/queue.js';
import { sendMessage } from '../../electron/core/messaging/send.js';
import { freshPostgresUrl, withAdminClient, type FreshDatabase } from '../support/postgres.js';
import { eventually } from '../support/waits.js';

let db: FreshDatabase;
let home: string;
let agent: EmbeddedAgent;
const opened: Core[] = [];

/** A core on the test database, as another process on the host would open it. */
const open = () => {
  const core = createCore({
    env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, MISSIVE_STORE_URL: db.url },
    cwd: home,
    secrets: createMemorySecretStore(),
  });
  opened.push(core);
  return core;
};

/** Closes `core`'s pool and waits until its connections are gone (each flushes its statistics as it exits). */
async function closed(core: Core): Promise<void> {
  await (await core.storage()).close();
  await eventually(
    'the database to have no connection left',
    () => withAdminClient(async (c) => Number((await c.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1`, [db.name])).rows[0].n) === 0),
    10_000,
    20,
  );
}

/** The database's committed transactions, as the statistics hold them now. */
const commits = (): Promise<number> =>
  withAdminClient(async (c) => Number((await c.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = $1`, [db.name])).rows[0].xact_commit));

/** Rows inserted, updated or deleted in the conversation's tables (read on the database itself). */
const rowsWritten = async (): Promise<number> =>
  withAdminClient(async (c) => {
    const { rows } = await c.query(
      `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) AS n FROM pg_stat_user_tables WHERE relname IN ('tasks','messages','artifacts','artifact_chunks','contexts')`,
    );
    return Number(rows[0].n);
  }, db.name);

/** The commits of one in-process `gateway run --once` (from opening the store to closing it). */
async function gatewayOnce(): Promise<number> {
  const before = await commits();
  const core = open();
  await runGateway(core, { once: true, intervalMs: 100 });
  await closed(core);
  return (await commits()) - before;
}

beforeEach(async () => {
  db = await freshPostgresUrl();
  home = mkdtempSync(join(tmpdir(), 'missive-job-cost-'));
});
afterEach(async () => {
  for (const core of opened.splice(0)) await (await core.storage()).close();
  await agent?.close();
  await db.drop();
  rmSync(home, { recursive: true, force: true });
});

describe('what a job costs the shared store (PostgreSQL)', () => {
  it('a send job whose agent answers at once takes at most 4 transactions', async () => {
    agent = await startEmbeddedAgent({ name: 'echo', behaviour: 'echo', streaming: false });
    const operator = open();
    await addAgent(operator, { alias: 'echo', baseUrl: agent.baseUrl });
    await loadCard(operator, 'echo');
    await closed(operator);
    // The gateway's own cost (opening the store, joining the pool, its scan, its events), with no job to run.
    const idle = await gatewayOnce();

    const queuer = open();
    const job = await startJob(queuer, { kind: 'send', input: { agent: 'echo', text: 'hello', cwd: home, messageId: randomUUID() } });
    await closed(queuer);
    const withJob = await gatewayOnce();

    const reader = open();
    const ended = await showJob(reader, job.job_id);
    expect(ended).toMatchObject({ state: 'succeeded', outcome: 'completed', exit_code: 0 });
    expect(ended.result).toMatchObject({ text: 'echo: hello' });
    expect(withJob - idle, `transactions for one send job (a gateway with none took ${idle})`).toBeLessThanOrEqual(4);
  });

  it('a GetTask poll that finds nothing new writes no task, message, artifact, context or event row', async () => {
    // A task that stays working (the agent answers after ten minutes, or when it closes).
    agent = await startEmbeddedAgent({ name: 'slow', behaviour: 'slow', delayMs: 10 * 60_000, streaming: false });
    const operator = open();
    await addAgent(operator, { alias: 'slow', baseUrl: agent.baseUrl });
    await loadCard(operator, 'slow');
    const sent = await sendMessage(operator, { agent: 'slow', text: 'work on it', cwd: home, returnImmediately: true });
    const taskId = sent.task!.task_id;
    expect(sent.task!.state).toBe('working');
    await closed(operator);

    const followJob = () =>
      withAdminClient(
        async (c) =>
          (await c.query(`SELECT state, attempts FROM missive_default.gateway_jobs WHERE task_id = $1 AND kind = 'task_poll'`, [taskId])).rows[0] as
            { state: string; attempts: number } | undefined,
        db.name,
      );
    const updates = () =>
      withAdminClient(
        async (c) =>
          Number(
            (await c.query(`SELECT count(*) AS n FROM missive_default.events WHERE task_id = $1 AND event_type = 'a2a.task.updated'`, [taskId])).rows[0].n,
          ),
        db.name,
      );
    /** Gateway runs (--once) until the follow job has polled `attempts` times in all. */
    const pollUntil = (attempts: number) =>
      eventually(
        `the follow job's poll ${attempts}`,
        async () => {
          await gatewayOnce();
          return ((await followJob())?.attempts ?? 0) >= attempts;
        },
        20_000,
        20,
      );
    // The gateway's scan queues a poll for the working task; its first GetTask may store what it finds.
    await pollUntil(1);
    const before = { rows: await rowsWritten(), updates: await updates() };
    // The next poll finds the task exactly as stored: nothing is written, and the job waits for the next one.
    await pollUntil(2);
    expect({ rows: await rowsWritten(), updates: await updates() }).toEqual(before);
    expect(await followJob()).toMatchObject({ state: 'retrying', attempts: 2 });
  });
});
