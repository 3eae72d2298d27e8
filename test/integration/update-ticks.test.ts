/**
 * A stream's updates as ticks, on both stores (Storage.updates): the updates one turn of network data brings are
 * journaled in order and read back whole; an update the store refuses fails alone, the tick's others kept; a dedupe
 * key seen earlier in the same tick drops the later update. On PostgreSQL the tick is one transaction (before, every
 * update was a transaction of its own: six round trips per appended chunk), and a tick that cannot commit fails the
 * sink's flush once: `storage::tick_rolled_back`, or `storage::store_unreachable` when the store went away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { addAgent } from '../../electron/core/agents/registry.js';
import { contextThread, type ThreadArtifact } from '../../electron/core/contexts/thread.js';
import { listJournal } from '../../electron/core/events/journal.js';
import { applyUpdateSteps, type AppliedUpdate, type UpdateSource } from '../../electron/core/tasks/apply-update.js';
import type { StreamRecord } from '../../electron/core/a2a/stream-response.js';
import type { UpdateSink } from '../../electron/core/store/storage.js';
import { TICK_BOUNDS } from '../../electron/core/store/postgres/update-ticks.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';
import { eventually } from '../support/waits.js';

const CONTEXT = 'ctx-ticks';
const TASK = 'task-ticks';

const source = (extra: Partial<UpdateSource> = {}): UpdateSource => ({
  eventPrefix: 'a2a.stream',
  alias: 'peer',
  protocolVersion: '1.0',
  metadata: {},
  ensured: new Set(),
  ...extra,
});
const task = (): StreamRecord => ({ variant: 'task', payload: { id: TASK, contextId: CONTEXT, status: { state: 'TASK_STATE_WORKING' } } });
const chunk = (n: number, contextId = CONTEXT): StreamRecord => ({
  variant: 'artifactUpdate',
  payload: { taskId: TASK, contextId, append: n > 0, artifact: { artifactId: 'answer', name: 'answer.txt', parts: [{ text: `${n} ` }] } },
});
const status = (state: string): StreamRecord => ({ variant: 'statusUpdate', payload: { taskId: TASK, contextId: CONTEXT, status: { state } } });

describe.each(STORES)('a stream of updates as ticks (%s store)', (kind) => {
  let home: string;
  let store: StoreUnderTest;
  let core: Core;

  beforeEach(async () => {
    store = await storeUnderTest(kind);
    home = mkdtempSync(join(tmpdir(), 'missive-ticks-'));
    core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, ...store.env }, cwd: home, secrets: createMemorySecretStore() });
    await addAgent(core, { alias: 'peer', baseUrl: 'http://127.0.0.1:1' });
  });

  afterEach(async () => {
    core.close();
    await store.release();
    rmSync(home, { recursive: true, force: true });
  });

  /** Applies every record in one turn (as one network read brings them), each settled either way, then flushes. */
  async function inOneTurn(sink: UpdateSink, from: UpdateSource, records: StreamRecord[]): Promise<PromiseSettledResult<AppliedUpdate>[]> {
    const settled = await Promise.allSettled(records.map((record) => sink.apply((tick) => applyUpdateSteps(from, record, tick))));
    await sink.flush();
    return settled;
  }

  const journal = async () => (await listJournal(core, { task: TASK, limit: 1000 })).sort((a, b) => a.sequence - b.sequence);
  const artifactText = async () => (await contextThread(core, CONTEXT)).items.find((item): item is ThreadArtifact => item.kind === 'artifact')?.text ?? null;

  it('journals every update of a turn in order, and reads the artifact and the task back whole', async () => {
    const sink = (await core.storage()).updates();
    const records = [task(), ...Array.from({ length: 150 }, (_, n) => chunk(n)), status('TASK_STATE_COMPLETED')];
    const settled = await inOneTurn(sink, source(), records);
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    const events = await journal();
    expect(events.map((e) => e.type)).toEqual(['a2a.stream.task', ...Array(150).fill('a2a.stream.artifact_update'), 'a2a.stream.status_update']);
    expect(
      events
        .slice(1, 151)
        .map((e) => (e.payload as { artifactUpdate: { artifact: { parts: Array<{ text: string }> } } }).artifactUpdate.artifact.parts[0]!.text),
    ).toEqual(Array.from({ length: 150 }, (_, n) => `${n} `));
    expect(await artifactText()).toBe(Array.from({ length: 150 }, (_, n) => `${n} `).join(''));
    const storage = await core.storage();
    expect(await storage.conversation.listArtifactsOfTask(TASK)).toMatchObject([{ artifact_id: 'answer', version: 150, chunks: 150 }]);
    expect((await storage.conversation.getTask(TASK))?.state).toBe('completed');
  });

  it('rolls back an update that fails after its writes alone, and keeps the updates of the same turn before and after it', async () => {
    const sink = (await core.storage()).updates();
    const from = source();
    // Its own context and task rows are written first (a source that has made sure of none), then it fails.
    const failing = source({ ensured: undefined, fallbackContextId: 'ctx-failing' });
    const settled = await Promise.allSettled([
      sink.apply((tick) => applyUpdateSteps(from, task(), tick)),
      sink.apply((tick) => applyUpdateSteps(from, chunk(0), tick)),
      sink.apply(function* (tick) {
        yield* applyUpdateSteps(failing, chunk(1, ''), tick);
        throw new Error('failed after its writes');
      }),
      sink.apply((tick) => applyUpdateSteps(from, chunk(2), tick)),
    ]);
    await sink.flush();
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await journal()).map((e) => e.type)).toEqual(['a2a.stream.task', 'a2a.stream.artifact_update', 'a2a.stream.artifact_update']);
    expect(await artifactText()).toBe('0 2 ');
    const storage = await core.storage();
    expect(await storage.conversation.listArtifactsOfTask(TASK)).toMatchObject([{ version: 2, chunks: 2 }]);
    expect(await storage.conversation.getContext('ctx-failing')).toBeUndefined();
  });

  it('drops an update whose dedupe key an earlier update of the same turn had', async () => {
    const sink = (await core.storage()).updates();
    const keyed = (key: string) => source({ eventPrefix: 'a2a.subscription', dedupeKey: key });
    const settled = await Promise.all(
      [
        [task(), keyed('k-task')],
        [chunk(0), keyed('k-0')],
        [chunk(0), keyed('k-0')],
        [chunk(1), keyed('k-1')],
      ].map(([record, from]) => sink.apply((tick) => applyUpdateSteps(from as UpdateSource, record as StreamRecord, tick))),
    );
    await sink.flush();
    expect(settled.map((s) => s.duplicate)).toEqual([false, false, true, false]);
    expect((await journal()).map((e) => e.type)).toEqual(['a2a.subscription.task', 'a2a.subscription.artifact_update', 'a2a.subscription.artifact_update']);
    expect(await artifactText()).toBe('0 1 ');
  });

  if (kind === 'postgres') {
    const admin = () => new pg.Client({ connectionString: store.env.MISSIVE_STORE_URL });
    /** The backends of this database waiting on a lock, read afresh (a transaction keeps its first view of the statistics). */
    const lockWaiters = async (client: pg.Client): Promise<number[]> => {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
      );
      return rows.map((r) => r.pid);
    };
    /** The task's journal rows, and how many transactions wrote them (each row keeps its transaction's id, `xact_id`). */
    const rowsAndTransactions = async (): Promise<{ rows: number; transactions: number }> => {
      const client = admin();
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string; transactions: string }>(
          `SELECT count(*) AS n, count(DISTINCT xact_id) AS transactions FROM missive_default.events WHERE task_id = $1`,
          [TASK],
        );
        return { rows: Number(rows[0]!.n), transactions: Number(rows[0]!.transactions) };
      } finally {
        await client.end();
      }
    };

    /** A sink whose first turn (the task and the artifact's first chunk) is committed. */
    const afterFirstTurn = async (): Promise<{ sink: UpdateSink; from: UpdateSource }> => {
      const sink = (await core.storage()).updates();
      const from = source();
      await inOneTurn(sink, from, [task(), chunk(0)]);
      return { sink, from };
    };
    /** What the flush rejects with (undefined when it resolves). */
    const flushFailure = (sink: UpdateSink): Promise<unknown> =>
      sink.flush().then(
        () => undefined,
        (error: unknown) => error,
      );

    it('writes the updates of one turn in one transaction', async () => {
      const sink = (await core.storage()).updates();
      await inOneTurn(sink, source(), [task(), ...Array.from({ length: 100 }, (_, n) => chunk(n))]);
      // Each update was a transaction of its own before: 101.
      expect(await rowsAndTransactions()).toEqual({ rows: 101, transactions: 1 });
    });

    it('ends a tick at its bound while updates that each wait on a statement keep coming', async () => {
      const sink = (await core.storage()).updates();
      // A resumed subscription's updates, each applied once the one before is (as `follow` does): each reads its dedupe
      // key, so an update is always running when the loop turns.
      const updates = TICK_BOUNDS.updates * 2 + 10;
      const settled: AppliedUpdate[] = [];
      for (let n = 0; n < updates; n++)
        settled.push(await sink.apply((tick) => applyUpdateSteps(source({ eventPrefix: 'a2a.subscription', dedupeKey: `k-${n}` }), chunk(n), tick)));
      await sink.flush();
      expect(settled.filter((s) => s.duplicate)).toEqual([]);
      const written = await rowsAndTransactions();
      expect(written.rows).toBe(updates);
      // Whichever bound ends each tick, none holds more than its count: without the bounds, all of them were one.
      expect(written.transactions).toBeGreaterThanOrEqual(3);
      expect(await (await core.storage()).conversation.listArtifactsOfTask(TASK)).toMatchObject([{ version: updates, chunks: updates }]);
    });

    it('lets two ticks of one task on two connections both commit: a tick locks the task before its artifact', async () => {
      const other = 'task-other';
      const ofOther = (n: number): StreamRecord => ({
        variant: 'artifactUpdate',
        payload: { taskId: other, contextId: CONTEXT, append: n > 0, artifact: { artifactId: 'answer', parts: [{ text: `${n} ` }] } },
      });
      await inOneTurn((await core.storage()).updates(), source(), [task(), chunk(0), { ...task(), payload: { ...task().payload, id: other } }, ofOther(0)]);
      const [a, b] = [(await core.storage()).updates(), (await core.storage()).updates()];
      const [fromA, fromB] = [source(), source()];
      const applyA = (record: StreamRecord) => a.apply((tick) => applyUpdateSteps(fromA, record, tick));
      const applyB = (record: StreamRecord) => b.apply((tick) => applyUpdateSteps(fromB, record, tick));
      const client = admin();
      await client.connect();
      const waiting = (count: number) => eventually(`${count} tick(s) waiting on a row lock`, async () => (await lockWaiters(client)).length === count, 10_000);
      try {
        // Another host holds the other task and its artifact: B's tick appends to this task's artifact (its head read
        // and locked), then waits on the other's.
        await client.query('BEGIN');
        await client.query(`SELECT 1 FROM missive_default.tasks WHERE task_id = $1 FOR UPDATE`, [other]);
        await client.query(`SELECT 1 FROM missive_default.artifacts WHERE task_id = $1 FOR UPDATE`, [other]);
        const inB = [applyB(chunk(1)), applyB(ofOther(1)), applyB(status('TASK_STATE_WORKING'))];
        await waiting(1);
        // A's tick writes this task's status (its row), then reads the artifact's head.
        const inA = [applyA(status('TASK_STATE_INPUT_REQUIRED')), applyA(chunk(2))];
        await waiting(2);
        await client.query('COMMIT');
        // B goes on and writes its status as its tick ends. Had A locked the task while B held the artifact, each would
        // wait on the other: PostgreSQL ends one as a deadlock, and its tick is lost.
        expect((await Promise.allSettled([...inB, ...inA])).map((o) => o.status)).toEqual(Array(5).fill('fulfilled'));
      } finally {
        await client.end();
      }
      await expect(b.flush()).resolves.toBeUndefined();
      await expect(a.flush()).resolves.toBeUndefined();
      expect((await journal()).filter((e) => e.type === 'a2a.stream.artifact_update')).toHaveLength(3);
      expect((await (await core.storage()).conversation.listArtifactsOfTask(TASK))[0]).toMatchObject({ version: 3, chunks: 3 });
    });

    it("fails an update PostgreSQL refuses alone (a NUL in an id), keeping the turn's others", async () => {
      const sink = (await core.storage()).updates();
      const settled = await inOneTurn(sink, source(), [task(), chunk(0), chunk(1, 'ctx\u0000refused'), chunk(2)]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ category: 'storage' });
      expect((await journal()).map((e) => e.type)).toEqual(['a2a.stream.task', 'a2a.stream.artifact_update', 'a2a.stream.artifact_update']);
      expect(await artifactText()).toBe('0 2 ');
    });

    it("fails the flush as an outage, once, when the server ends the tick's connection, and stores nothing of the tick", async () => {
      const { sink, from } = await afterFirstTurn();
      const client = admin();
      await client.connect();
      try {
        // Another host holds the artifact's row: the next turn's chunk waits for it in the tick's transaction, after
        // the turn's status update (held in memory until then) was written in it.
        await client.query('BEGIN');
        await client.query(`SELECT 1 FROM missive_default.artifacts WHERE task_id = $1 FOR UPDATE`, [TASK]);
        const applied = [status('TASK_STATE_WORKING'), chunk(1)].map((record) => sink.apply((tick) => applyUpdateSteps(from, record, tick)));
        // The server ends the tick's connection (a restart, a failover, an administrator) before it commits.
        const [tickPid] = await eventually(
          'the tick waiting on the artifact row',
          async () => {
            const pids = await lockWaiters(client);
            return pids.length === 1 && pids;
          },
          10_000,
        );
        await client.query('SELECT pg_terminate_backend($1)', [tickPid]);
        const outcomes = await Promise.allSettled(applied);
        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
        await client.query('ROLLBACK');
      } finally {
        await client.end();
      }
      // The store went away: an outage (a gateway resumes its job), and the message says what was not stored.
      const lost = await flushFailure(sink);
      expect(lost).toMatchObject({ code: 'missive::storage::store_unreachable' });
      expect((lost as Error).message).toContain('the updates received since the last commit are not stored');
      await expect(sink.flush()).resolves.toBeUndefined();
      // The status update was applied, then lost with its tick: the journal and the task say so.
      expect((await journal()).map((e) => e.type)).toEqual(['a2a.stream.task', 'a2a.stream.artifact_update']);
      // The sink goes on: the next update starts a new tick.
      await inOneTurn(sink, from, [chunk(2)]);
      expect((await journal()).map((e) => e.type)).toEqual(['a2a.stream.task', 'a2a.stream.artifact_update', 'a2a.stream.artifact_update']);
      expect(await artifactText()).toBe('0 2 ');
    });

    it('fails the flush with tick_rolled_back, once, when PostgreSQL refuses a held row at the commit, and stores nothing of the tick', async () => {
      const { sink, from } = await afterFirstTurn();
      const client = admin();
      await client.connect();
      try {
        // A shared store changed outside missive: a trigger refuses a journal row whose payload says "refused".
        await client.query(`CREATE FUNCTION missive_default.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.payload_json LIKE '%refused%' THEN RAISE EXCEPTION 'refused by a trigger'; END IF; RETURN NEW; END $$`);
        await client.query(`CREATE TRIGGER refuse BEFORE INSERT ON missive_default.events FOR EACH ROW EXECUTE FUNCTION missive_default.refuse()`);
      } finally {
        await client.end();
      }
      const refused: StreamRecord = {
        variant: 'artifactUpdate',
        payload: { taskId: TASK, contextId: CONTEXT, append: true, artifact: { artifactId: 'answer', parts: [{ text: 'refused ' }] } },
      };
      // Both are held (the second needs no statement): the refusal comes when the tick writes them, at its end.
      const settled = await Promise.allSettled([chunk(1), refused].map((record) => sink.apply((tick) => applyUpdateSteps(from, record, tick))));
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled']);
      const lost = await flushFailure(sink);
      expect(lost).toMatchObject({ code: 'missive::storage::tick_rolled_back' });
      expect((lost as Error).message).toContain('refused by a trigger');
      await expect(sink.flush()).resolves.toBeUndefined();
      expect((await journal()).map((e) => e.type)).toEqual(['a2a.stream.task', 'a2a.stream.artifact_update']);
      expect(await artifactText()).toBe('0 ');
    });
  }
});
