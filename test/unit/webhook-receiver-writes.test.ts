/**
 * What the webhook receiver writes per callback: a callback of a known task applies its update without inserting
 * again the task and context rows its owner lookup has just read, but still the context an update moves it to; a
 * callback of an unknown task is journaled unlinked; a failing callback of a burst is rejected alone, the others
 * journaled once each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { ensureContext, ensurePlaceholderTask } from '../../electron/core/store/repos/conversation.js';
import { sqliteCallbacks } from '../support/sqlite-callbacks.js';
import { journalEvents } from '../../electron/core/store/repos/journal-query.js';
import { createReceiver, type Receiver } from '../../electron/core/webhook/receiver.js';

let dir: string;
let store: Store;
let receiver: Receiver;
let url: string;
/** Every statement the store prepared since the last `take()` (repositories prepare each statement they run). */
const prepared: string[] = [];
const take = () => prepared.splice(0).map((sql) => sql.replace(/\s+/g, ' ').trim());

const status = (taskId: string, contextId: string, text: string) =>
  JSON.stringify({
    statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] } } },
  });
const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const count = (sql: string, ...args: unknown[]) => (store.db.prepare(sql).get(...args) as { n: number }).n;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'missive-webhook-writes-'));
  store = openStore(join(dir, 'm.sqlite3'));
  store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('worker', 'http://127.0.0.1:1')`).run();
  const prepare = store.db.prepare.bind(store.db);
  store.db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof store.db.prepare;
  receiver = createReceiver(sqliteCallbacks(() => store));
  url = (await receiver.start()).url;
});
afterEach(async () => {
  await receiver.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('webhook receiver writes', () => {
  it('does not insert again the task and context rows of a known task', async () => {
    store.transaction(() => {
      ensureContext(store.db, 'ctx-1', 'worker');
      ensurePlaceholderTask(store.db, 'task-1', 'worker', 'ctx-1');
    });
    take();
    const res = await post(status('task-1', 'ctx-1', 'one'));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, linked: true });
    const statements = take();
    expect(statements.some((sql) => /^UPDATE tasks\b/.test(sql))).toBe(true);
    expect(statements.some((sql) => /^INSERT INTO events\b/.test(sql))).toBe(true);
    expect(statements.filter((sql) => /\bINTO (tasks|contexts)\b/.test(sql))).toEqual([]);
    expect(store.db.prepare(`SELECT state, context_id, agent_alias FROM tasks WHERE task_id = 'task-1'`).get()).toEqual({
      state: 'working',
      context_id: 'ctx-1',
      agent_alias: 'worker',
    });
    expect(count(`SELECT count(*) AS n FROM events WHERE event_type = 'a2a.push.status_update' AND task_id = 'task-1' AND agent_alias = 'worker'`)).toBe(1);
  });

  it('still inserts the context an update moves a known task to', async () => {
    store.transaction(() => {
      ensureContext(store.db, 'ctx-1', 'worker');
      ensurePlaceholderTask(store.db, 'task-1', 'worker', 'ctx-1');
      ensurePlaceholderTask(store.db, 'task-2', 'worker');
    });
    expect((await post(status('task-1', 'ctx-new', 'one'))).status).toBe(202);
    expect((await post(status('task-2', 'ctx-2', 'two'))).status).toBe(202);
    expect(store.db.prepare(`SELECT task_id, context_id, agent_alias, state FROM tasks ORDER BY task_id`).all()).toEqual([
      { task_id: 'task-1', context_id: 'ctx-new', agent_alias: 'worker', state: 'working' },
      { task_id: 'task-2', context_id: 'ctx-2', agent_alias: 'worker', state: 'working' },
    ]);
    expect(store.db.prepare(`SELECT context_id, agent_alias FROM contexts ORDER BY context_id`).all()).toEqual([
      { context_id: 'ctx-1', agent_alias: 'worker' },
      { context_id: 'ctx-2', agent_alias: 'worker' },
      { context_id: 'ctx-new', agent_alias: 'worker' },
    ]);
  });

  it('journals a callback of a task with no row unlinked, and creates no row for it', async () => {
    const res = await post(status('stranger', 'ctx-s', 'hello'));
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true, linked: false });
    expect(count(`SELECT count(*) AS n FROM tasks`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM contexts`)).toBe(0);
    expect(count(`SELECT count(*) AS n FROM events WHERE event_type = 'a2a.push.status_update' AND task_id = 'stranger' AND agent_alias IS NULL`)).toBe(1);
  });

  it("journals a burst's unlinked callbacks as narrow rows that the journal's filters still find", async () => {
    // Each is written in a burst of SQLite's receiver: a narrow row with its run, as a linked callback's update is.
    const sent = await Promise.all(['one', 'two', 'three'].map((text, i) => post(status(`stranger-${i}`, `ctx-s${i}`, text))));
    expect(sent.map((res) => res.status)).toEqual([202, 202, 202]);
    expect(count(`SELECT count(*) AS n FROM events WHERE event_type = 'a2a.push.status_update' AND via_run = 1`)).toBe(3);
    const listed = (query: Parameters<typeof journalEvents>[1]) => journalEvents(store.db, query).map((e) => e.taskId);
    expect(listed({ type: 'a2a.push.status_update' }).sort()).toEqual(['stranger-0', 'stranger-1', 'stranger-2']);
    expect(listed({ typePrefix: 'a2a.push.' }).sort()).toEqual(['stranger-0', 'stranger-1', 'stranger-2']);
    expect(listed({ taskId: 'stranger-1' })).toEqual(['stranger-1']);
    expect(listed({ search: 'two' })).toEqual(['stranger-1']);
    expect(journalEvents(store.db, { taskId: 'stranger-0' })[0]).toMatchObject({
      agentAlias: null,
      contextId: null,
      payload: { linked: false, task_id: 'stranger-0', statusUpdate: { taskId: 'stranger-0' } },
    });
    // They name no agent and no context: those filters keep none of them.
    expect(listed({ agentAlias: 'worker' })).toEqual([]);
    expect(listed({ contextId: 'ctx-s0' })).toEqual([]);
  });

  it('rejects a failing callback of a burst alone, and journals each of the others once', async () => {
    store.transaction(() => {
      for (let t = 0; t < 8; t++) ensurePlaceholderTask(store.db, `task-${t}`, 'worker');
    });
    // The event insert of task-2's callback fails, wherever it runs: in its burst's group or on its own.
    const prepare = store.db.prepare;
    store.db.prepare = ((sql: string) => {
      const statement = prepare(sql);
      if (!/^\s*INSERT INTO events\b/.test(sql)) return statement;
      return new Proxy(statement, {
        get: (target, key) =>
          key === 'run'
            ? (...args: unknown[]) => {
                if (JSON.stringify(args).includes('"task-2"')) throw new Error('disk says no');
                return target.run(...args);
              }
            : Reflect.get(target, key, target),
      });
    }) as typeof store.db.prepare;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, t) =>
        post(status(`task-${t}`, `ctx-${t}`, `burst ${t}`)).then((r) => ({ status: r.status, retryAfter: r.headers.get('retry-after') })),
      ),
    );
    // The store refused it: 503 with Retry-After (the sender comes back), nothing of it written.
    expect(answers.map((a) => a.status)).toEqual([202, 202, 503, 202, 202, 202, 202, 202]);
    expect(answers[2]!.retryAfter).toBe('5');
    for (let t = 0; t < 8; t++) {
      const journaled = count(`SELECT count(*) AS n FROM events WHERE event_type = 'a2a.push.status_update' AND task_id = ?`, `task-${t}`);
      expect(journaled, `task-${t}`).toBe(t === 2 ? 0 : 1);
    }
    // The failing callback's task row was rolled back with it: still the placeholder.
    expect(store.db.prepare(`SELECT state FROM tasks WHERE task_id = 'task-2'`).get()).toEqual({ state: 'unknown' });
  });
});
