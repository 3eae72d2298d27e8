/**
 * The webhook receiver under a hostile flood and a failing store (issue 32, finding 7). A flood of rejected callbacks
 * costs the journal a bounded number of rows per source and minute (the first rejection of each status journaled as
 * `a2a.push.rejected`, the rest counted in one `a2a.push.rejected_summary`), and the counts add up to what was sent. A
 * store that fails under an accepted callback is a 503 with Retry-After, nothing half-written, and the receiver keeps
 * serving and takes the callback again once the store is back. A rejection whose journal write fails is still
 * answered with its own status and counted, and never ends the process. PostgreSQL: `webhook run` as a process of its
 * own (the built CLI, `npm run build`), the server's backends terminated with pg_terminate_backend while they wait on
 * a lock the test holds; SQLite: the receiver in-process, its store closed under it.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { bounded, eventually, okData } from '../support/waits.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl } from '../support/postgres.js';
import { startReceiverProcess, type ReceiverProcess } from '../support/receiver-process.js';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { sqliteCallbacks } from '../support/sqlite-callbacks.js';
import { createReceiver } from '../../electron/core/webhook/receiver.js';

const TOKEN = 'flood-callback-token-0123456789';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

const statusUpdate = (taskId: string, text: string) =>
  JSON.stringify({
    statusUpdate: {
      taskId,
      contextId: 'flood-context',
      status: { state: 'TASK_STATE_WORKING', message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] } },
    },
  });

const post = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

type Started = ReceiverProcess;

/** `webhook run` on the sandbox's store, stopped after the test; its store opened (on PostgreSQL, its schema made). */
async function startReceiver(box: Sandbox): Promise<Started> {
  const receiver = await startReceiverProcess(box, (kill) => cleanups.push(kill));
  // The store is opened (and on PostgreSQL its schema made) on first use: /readyz uses it.
  expect((await fetch(`${receiver.base}/readyz`)).status).toBe(200);
  return receiver;
}

/** The process is still up: it has not exited, and answers /healthz. */
async function expectAlive(receiver: Started): Promise<void> {
  expect(receiver.process.child.exitCode, receiver.process.stderr()).toBeNull();
  const health = await fetch(`${receiver.base}/healthz`);
  expect(health.status).toBe(200);
}

/** SIGTERM, exit 0 (the receiver writes its rejection summaries as it stops). */
async function stop(receiver: Started): Promise<void> {
  receiver.process.child.kill('SIGTERM');
  expect(await receiver.process.exited, receiver.process.stderr()).toBe(0);
}

interface Rejections {
  rows: Array<Record<string, any>>;
  summaries: Array<Record<string, any>>;
  /** Rejections journaled one by one plus those the summaries count, by status. */
  byStatus: Record<string, number>;
}

/** What `events list` shows of the rejected callbacks: the single rows, the summaries, and what they add up to. */
async function rejections(box: Sandbox): Promise<Rejections> {
  const list = async (type: string) =>
    okData(await box.run(['events', 'list', '--type', type, '--limit', '1000', '--json']), 'events list').events as Array<Record<string, any>>;
  const rows = await list('a2a.push.rejected');
  const summaries = await list('a2a.push.rejected_summary');
  const byStatus: Record<string, number> = {};
  for (const row of rows) byStatus[row.payload.status] = (byStatus[row.payload.status] ?? 0) + 1;
  for (const summary of summaries) {
    for (const r of summary.payload.rejections as Array<{ status: number; count: number }>) byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
  }
  return { rows, summaries, byStatus };
}

/** The schema the profile's tables are in (the database holds one profile). */
async function eventsTable(client: pg.Client): Promise<string> {
  const { rows } = await client.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'events'`);
  expect(rows).toHaveLength(1);
  return `${pg.escapeIdentifier(rows[0].table_schema)}.events`;
}

/**
 * Holds a lock on the journal that blocks inserts (readers go on), runs `during` once one of the receiver's backends
 * waits on it, then terminates that backend: the statement the receiver was running fails mid-transaction, as when the
 * server restarts or fails over. The lock is released afterwards.
 */
async function failWhileWaiting(url: string, during: () => Promise<Response>): Promise<Response> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('BEGIN');
    await admin.query(`LOCK TABLE ${await eventsTable(admin)} IN SHARE MODE`);
    const answer = during();
    const waiting = await eventually(
      "a receiver's insert to wait on the lock",
      async () => {
        const { rows } = await admin.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        return rows.length ? rows : undefined;
      },
      20_000,
    );
    for (const { pid } of waiting) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const res = await answer;
    await admin.query('ROLLBACK');
    return res;
  } finally {
    await admin.end();
  }
}

describe('`webhook run` on PostgreSQL under a flood of rejected callbacks', () => {
  it('stays up and journals a bounded number of rejection rows whose counts add up to what was sent', async () => {
    const db = await freshPostgresUrl();
    cleanups.push(() => db.drop());
    const box = sandbox({ MISSIVE_STORE_URL: db.url, CB_TOKEN: TOKEN });
    cleanups.push(() => box.dispose());
    const receiver = await startReceiver(box);

    // Wrong or missing credentials (401) and, with the right token, bodies that are not JSON (400).
    const FLOOD = 4000;
    const statuses: Record<number, number> = {};
    await bounded(FLOOD, 64, async (i) => {
      const kind = i % 4;
      const headers: Record<string, string> =
        kind === 0 ? {} : kind === 3 ? { 'x-a2a-notification-token': TOKEN } : { 'x-a2a-notification-token': `wrong-${i}` };
      const res = await post(receiver.url, kind === 3 ? `{not json ${i}` : '{}', headers);
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    });
    expect(statuses).toEqual({ 401: 3000, 400: 1000 });

    await expectAlive(receiver);
    expect((await fetch(`${receiver.base}/readyz`)).status).toBe(200);
    const ok = await post(receiver.url, statusUpdate('after-flood', 'still here'), { 'x-a2a-notification-token': TOKEN });
    expect(ok.status).toBe(202);
    await stop(receiver);

    const { rows, summaries, byStatus } = await rejections(box);
    // One source (127.0.0.1): a row for the first rejection of each status in a minute, one summary a minute. The
    // flood may straddle a minute's end: twice that at most.
    expect(rows.length).toBeLessThanOrEqual(4);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(2);
    expect(byStatus).toEqual({ 401: 3000, 400: 1000 });
    for (const row of rows) expect(row).toMatchObject({ source: 'webhook', payload: { remote_address: expect.stringMatching(/127\.0\.0\.1/) } });
    for (const summary of summaries) {
      expect(summary).toMatchObject({
        source: 'webhook',
        payload: { source: expect.stringMatching(/127\.0\.0\.1/), window_start: expect.any(String), window_end: expect.any(String) },
      });
    }
    // Redacted as the single rows are: no token reaches the journal.
    expect(JSON.stringify([rows, summaries])).not.toContain(TOKEN);
    expect(JSON.stringify([rows, summaries])).not.toContain('wrong-');
  }, 120_000);
});

describe('`webhook run` on PostgreSQL when the store fails', () => {
  it('answers 503 with Retry-After to a callback it could not persist, keeps serving, and takes it once the store is back', async () => {
    const db = await freshPostgresUrl();
    cleanups.push(() => db.drop());
    const box = sandbox({ MISSIVE_STORE_URL: db.url, CB_TOKEN: TOKEN });
    cleanups.push(() => box.dispose());
    const receiver = await startReceiver(box);
    const callback = statusUpdate('store-fails', 'only once');
    const send = () => post(receiver.url, callback, { 'x-a2a-notification-token': TOKEN });

    const failed = await failWhileWaiting(db.url, send);
    expect(failed.status).toBe(503);
    expect(Number(failed.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await failed.json()).error.message).toMatch(/try again/i);
    await expectAlive(receiver);

    // The store is back: the sender's retry is taken, and journaled once (the failed attempt left nothing).
    const retried = await send();
    expect(retried.status).toBe(202);
    await expectAlive(receiver);
    await stop(receiver);
    const events = okData(await box.run(['events', 'list', '--task', 'store-fails', '--json']), 'events list').events;
    expect(events).toMatchObject([{ type: 'a2a.push.status_update', task_id: 'store-fails' }]);
  }, 60_000);

  it('answers 401 to a rejection whose journal write fails, keeps running, and counts it in the summary', async () => {
    const db = await freshPostgresUrl();
    cleanups.push(() => db.drop());
    const box = sandbox({ MISSIVE_STORE_URL: db.url, CB_TOKEN: TOKEN });
    cleanups.push(() => box.dispose());
    const receiver = await startReceiver(box);

    const refused = await failWhileWaiting(db.url, () => post(receiver.url, '{}', { 'x-a2a-notification-token': 'wrong' }));
    expect(refused.status).toBe(401);
    await expectAlive(receiver);
    expect((await post(receiver.url, '{}', {})).status).toBe(401);
    await stop(receiver);
    expect((await rejections(box)).byStatus).toEqual({ 401: 2 });
  }, 60_000);
});

/** POSTs `body` from `localAddress` (any 127.x address is this machine's): the answer's status. */
function postFrom(url: string, localAddress: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the receiver on SQLite under a flood of rejected callbacks', () => {
  it('journals a bounded number of rows per source whose counts add up to what each source sent', async () => {
    const box = sandbox();
    cleanups.push(() => box.dispose());
    const store = openStore(join(box.home, 'state/profiles/default/missive.sqlite3'));
    const receiver = createReceiver(
      sqliteCallbacks(() => store),
      { auth: { header: 'x-a2a-notification-token', expected: TOKEN } },
    );
    const { url } = await receiver.start();
    cleanups.push(
      () => store.close(),
      () => receiver.stop(),
    );

    const SOURCES = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
    const FLOOD = 3000;
    const statuses: Record<number, number> = {};
    await bounded(FLOOD, 64, async (i) => {
      const status = await postFrom(url, SOURCES[i % SOURCES.length]!, i % 2 ? '{}' : `{not json ${i}`, {
        'x-a2a-notification-token': i % 2 ? `wrong-${i}` : TOKEN,
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
    expect(statuses).toEqual({ 400: 1500, 401: 1500 });
    expect((await post(url, statusUpdate('after-flood', 'still here'), { 'x-a2a-notification-token': TOKEN })).status).toBe(202);
    await receiver.stop();

    const { rows, summaries, byStatus } = await rejections(box);
    expect(rows.length).toBeLessThanOrEqual(4 * SOURCES.length);
    expect(byStatus).toEqual({ 400: 1500, 401: 1500 });
    for (const source of SOURCES) {
      const sent = FLOOD / SOURCES.length;
      const own = rows.filter((r) => r.payload.remote_address === source);
      const summed = summaries.filter((r) => r.payload.source === source);
      // A row for the first 400 and the first 401 of the minute, one summary (twice that if the flood straddled a minute's end).
      expect(own.length).toBeGreaterThanOrEqual(2);
      expect(own.length).toBeLessThanOrEqual(4);
      expect(summed.length).toBeGreaterThanOrEqual(1);
      expect(summed.length).toBeLessThanOrEqual(2);
      expect(own.length + summed.reduce((n, s) => n + s.payload.total, 0)).toBe(sent);
    }
    // `--outcome failed` finds the refused callbacks, the counted ones too.
    const failed = okData(await box.run(['events', 'list', '--type', 'a2a.push.*', '--outcome', 'failed', '--limit', '1000', '--json']), 'events list')
      .events as Array<Record<string, any>>;
    expect(failed.length).toBe(rows.length + summaries.length);
  }, 60_000);
});

describe('the receiver on SQLite when the store fails', () => {
  it('answers 503 with Retry-After and still 401 to rejections, with no unhandled rejection, then recovers', async () => {
    const box = sandbox();
    cleanups.push(() => box.dispose());
    const file = join(box.home, 'state/profiles/default/missive.sqlite3');
    let store: Store = openStore(file);
    const receiver = createReceiver(
      sqliteCallbacks(() => store),
      { auth: { header: 'x-a2a-notification-token', expected: TOKEN } },
    );
    const { url } = await receiver.start();
    cleanups.push(
      () => store.close(),
      () => receiver.stop(),
    );
    const base = url.replace('/a2a/push', '');

    // The store goes away under the receiver (its file closed, as when the disk is gone).
    store.close();
    const failed = await post(url, statusUpdate('sqlite-fails', 'once'), { 'x-a2a-notification-token': TOKEN });
    expect(failed.status).toBe(503);
    expect(Number(failed.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post(url, '{}', { 'x-a2a-notification-token': 'wrong' })).status).toBe(401);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);

    // Back: the retry is taken, journaled once.
    store = openStore(file);
    expect((await post(url, statusUpdate('sqlite-fails', 'once'), { 'x-a2a-notification-token': TOKEN })).status).toBe(202);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await receiver.stop();
    const events = okData(await box.run(['events', 'list', '--task', 'sqlite-fails', '--json']), 'events list').events;
    expect(events).toMatchObject([{ type: 'a2a.push.status_update', task_id: 'sqlite-fails' }]);
    const refusedCount = store.db.prepare(`SELECT payload_json FROM events WHERE event_type LIKE 'a2a.push.rejected%'`).all() as Array<{
      payload_json: string;
    }>;
    // The rejection that could not be journaled while the store was closed is counted in the summary written at stop.
    expect(refusedCount.map((r) => JSON.parse(r.payload_json))).toMatchObject([{ rejections: [{ status: 401, count: 1 }] }]);
  });
});
