/**
 * The journal is append-only history (schema v11): removing or renaming an agent leaves its past events and messages
 * naming the alias they were recorded under, `events list --agent` and `history list --agent` still find them, and a
 * journal written by the v10 schema keeps every row, rowid, sequence, column and index through the rebuild.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';
import { eventQuerySql } from '../../electron/core/store/repos/events.js';
import { latestCallEventSql, requestStartsSql } from '../../electron/core/store/repos/history.js';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;

beforeAll(async () => void (fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' } })));
afterAll(() => fleet.close());
beforeEach(() => void (box = sandbox()));
afterEach(() => box.dispose());

type Event = { type: string; agent: string | null };
const eventsOf = async (alias: string): Promise<Event[]> =>
  (await box.run(['events', 'list', '--agent', alias, '--limit', '100', '--json'])).json().data.events;
const historyOf = async (alias: string) =>
  (await box.run(['history', 'list', '--agent', alias, '--json'])).json().data.entries as Array<{
    agent_alias: string;
    request_text: string;
    answer_text: string | null;
    outcome: string;
  }>;
const messageAliases = () =>
  readDb(box, (db) =>
    (db.prepare(`SELECT direction, agent_alias FROM messages ORDER BY rowid`).all() as { direction: string; agent_alias: string | null }[]).map((r) => [
      r.direction,
      r.agent_alias,
    ]),
  );

describe('the journal outlives the agents it names', () => {
  it('agent remove: the removed agent’s events, messages and history still name it', async () => {
    expect((await box.run(['agent', 'add', 'echo', fleet.agents.echo!.baseUrl])).code).toBe(0);
    expect((await box.run(['send', 'echo', 'before the removal'])).code).toBe(0);
    const before = await eventsOf('echo');
    expect(before.map((e) => e.type)).toEqual(expect.arrayContaining(['missive.agent.added', 'a2a.send.started', 'a2a.send.completed']));

    expect((await box.run(['agent', 'remove', 'echo'])).code).toBe(0);
    // The same events, still under `echo` (before v11 the removal set their agent to null and this list was empty).
    expect(await eventsOf('echo')).toEqual(before);
    expect(messageAliases()).toEqual([
      ['request', 'echo'],
      ['response', 'echo'],
    ]);
    expect(await historyOf('echo')).toEqual([
      expect.objectContaining({ agent_alias: 'echo', outcome: 'completed', request_text: 'before the removal', answer_text: 'echo: before the removal' }),
    ]);
    // The removal itself is journaled (without an agent: there is none any more).
    const all = (await box.run(['events', 'list', '--json'])).json().data.events as Event[];
    expect(all.at(-1)).toMatchObject({ type: 'missive.agent.removed', agent: null });
  });

  it('agent rename: earlier events and messages keep the old alias, later ones carry the new; tasks follow the agent', async () => {
    expect((await box.run(['agent', 'add', 'echo', fleet.agents.echo!.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'tasks', fleet.agents.tasks!.baseUrl])).code).toBe(0);
    expect((await box.run(['send', 'echo', 'as echo'])).code).toBe(0);
    const taskId = (await box.run(['send', 'tasks', 'a task', '--json'])).json().data.task.task_id as string;
    const echoBefore = await eventsOf('echo');
    const tasksBefore = await eventsOf('tasks');
    const messagesBefore = messageAliases();
    expect(messagesBefore.map(([, alias]) => alias)).toEqual(expect.arrayContaining(['echo', 'tasks']));

    expect((await box.run(['agent', 'rename', 'echo', 'echo2'])).code).toBe(0);
    expect((await box.run(['agent', 'rename', 'tasks', 'tasks2'])).code).toBe(0);
    expect((await box.run(['send', 'echo2', 'as echo2'])).code).toBe(0);

    // What was recorded under `echo` stays under `echo` (before v11 the rename rewrote it to `echo2`).
    expect(await eventsOf('echo')).toEqual(echoBefore);
    expect(await eventsOf('tasks')).toEqual(tasksBefore);
    expect((await eventsOf('echo2')).map((e) => e.type)).toEqual(['missive.agent.renamed', 'a2a.send.started', 'a2a.send.completed']);
    expect(messageAliases()).toEqual([...messagesBefore, ['request', 'echo2'], ['response', 'echo2']]);
    expect((await historyOf('echo')).map((e) => [e.agent_alias, e.request_text, e.answer_text])).toEqual([['echo', 'as echo', 'echo: as echo']]);
    expect((await historyOf('echo2')).map((e) => [e.agent_alias, e.request_text, e.answer_text])).toEqual([['echo2', 'as echo2', 'echo: as echo2']]);
    // The task is live state, not history: it belongs to the agent under its new name.
    expect(readDb(box, (db) => db.prepare(`SELECT agent_alias FROM tasks WHERE task_id = ?`).get(taskId))).toEqual({ agent_alias: 'tasks2' });
  });
});

describe('migration v11 on a v10 journal', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** Every row of every table, with its rowid, in rowid order. */
  const dump = (db: Db) => {
    const tables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('schema_migrations') ORDER BY name`).all() as { name: string }[]
    ).map((t) => t.name);
    return Object.fromEntries(
      tables.map((t) => [
        t,
        db.prepare(`SELECT ${t === 'sqlite_sequence' ? '' : 'rowid AS _rowid, '}* FROM "${t}" ORDER BY ${t === 'sqlite_sequence' ? 'name' : 'rowid'}`).all(),
      ]),
    );
  };
  const indexes = (db: Db) => db.prepare(`SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name`).all();
  const columns = (db: Db, table: string) => db.prepare(`SELECT cid, name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`).all(table);
  const foreignKeys = (db: Db, table: string) =>
    db.prepare(`SELECT "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY "from"`).all(table) as Record<string, string>[];
  const plan = (db: Db, sql: string, params: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');

  it('keeps every row (rowids and sequences too), the column order and every index; drops only the agent foreign keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'missive-journal-'));
    dirs.push(dir);
    const path = join(dir, 'm.sqlite3');
    const v10 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 10) });
    v10.exec(`
      INSERT INTO auth_refs (name, kind, env_var) VALUES ('tok', 'env', 'TOKEN');
      INSERT INTO agents (alias, base_url, auth_ref_name) VALUES ('a', 'http://127.0.0.1:1', 'tok'), ('b', 'http://127.0.0.1:2', NULL), ('gone', 'http://127.0.0.1:3', NULL);
      INSERT INTO contexts (context_id, agent_alias, name) VALUES ('ctx-1', 'a', 'first'), ('ctx-2', 'b', NULL);
      INSERT INTO tasks (task_id, agent_alias, context_id, state) VALUES ('t-1', 'a', 'ctx-1', 'completed'), ('t-2', 'b', 'ctx-2', 'working');
      INSERT INTO messages (rowid, message_id, agent_alias, context_id, task_id, direction, role, ordinal, content_json) VALUES
        (1, 'm-1', 'a', 'ctx-1', 't-1', 'request', 'user', 0, '{"parts":[{"text":"hi"}]}'),
        (2, 'm-2', 'a', 'ctx-1', 't-1', 'response', 'agent', 1, '{"parts":[{"text":"hello"}]}'),
        (7, 'm-3', 'gone', NULL, NULL, 'request', 'user', 0, '{"parts":[{"text":"anyone?"}]}'),
        (9, 'm-4', NULL, 'ctx-2', 't-2', 'stream_event', 'unknown', 2, '{}');
      INSERT INTO artifacts (artifact_id, task_id, context_id, name, kind) VALUES ('art', 't-1', 'ctx-1', 'out', 'text');
      INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json) VALUES ('t-1', 'art', 0, '[{"text":"x"}]');
      INSERT INTO "groups" (group_name) VALUES ('g');
      INSERT INTO group_members (group_name, agent_alias, rank) VALUES ('g', 'a', 0), ('g', 'b', 1);
      INSERT INTO push_configs (push_config_id, agent_alias, task_id, callback_url) VALUES ('p', 'b', 't-2', 'http://127.0.0.1:9/cb');
      INSERT INTO gateway_jobs (job_id, kind, agent_alias, task_id, summary_json, attempts) VALUES ('j', 'send', 'a', 't-1', '{"kind":"send"}', 1);
    `);
    const insertEvent = v10.prepare(
      `INSERT INTO events (event_id, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, redacted) VALUES (?, 'cli', ?, ?, ?, ?, ?, ?, 1)`,
    );
    insertEvent.run('e-1', 'missive.agent.added', 'a', null, null, null, '{"alias":"a"}');
    insertEvent.run('e-2', 'a2a.send.started', 'a', 'ctx-1', 't-1', null, '{"message_id":"m-1"}');
    insertEvent.run('e-3', 'a2a.send.completed', 'a', 'ctx-1', 't-1', 'dedupe-3', '{"message_id":"m-1"}');
    insertEvent.run('e-4', 'a2a.send.started', 'gone', null, 'remote-task', null, '{"message_id":"m-3"}');
    insertEvent.run('e-5', 'a2a.send.failed', 'gone', null, null, null, '{"message_id":"m-3"}');
    insertEvent.run('e-6', 'push.received', null, null, 'unknown-task', 'dedupe-6', '{}');
    v10.prepare(`DELETE FROM events WHERE event_id = 'e-6'`).run(); // the AUTOINCREMENT counter stays at 6
    const before = {
      rows: dump(v10),
      indexes: indexes(v10),
      events: columns(v10, 'events'),
      messages: columns(v10, 'messages'),
      fk: { events: foreignKeys(v10, 'events'), messages: foreignKeys(v10, 'messages') },
    };
    expect(before.fk.events.map((f) => f.table)).toContain('agents');
    v10.close();

    // To v11 only: what later migrations change is theirs to test.
    const db = openDatabase(path, { migrations: MIGRATIONS.slice(0, 11) });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(11);
      expect(dump(db)).toEqual(before.rows);
      expect(indexes(db)).toEqual(before.indexes);
      expect(columns(db, 'events')).toEqual(before.events);
      expect(columns(db, 'messages')).toEqual(before.messages);
      expect(foreignKeys(db, 'events')).toEqual(before.fk.events.filter((f) => f.table !== 'agents'));
      expect(foreignKeys(db, 'messages')).toEqual(before.fk.messages.filter((f) => f.table !== 'agents'));
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');

      // A new event takes the next sequence, never a deleted one's.
      db.prepare(`INSERT INTO events (event_id, event_type) VALUES ('e-7', 'x')`).run();
      expect(db.prepare(`SELECT sequence FROM events WHERE event_id = 'e-7'`).get()).toEqual({ sequence: 7 });

      // Removing and renaming agents now leaves the journal as it was.
      db.prepare(`DELETE FROM agents WHERE alias = 'gone'`).run();
      db.prepare(`UPDATE agents SET alias = 'a2' WHERE alias = 'a'`).run();
      expect(db.prepare(`SELECT event_id, agent_alias FROM events WHERE agent_alias IS NOT NULL ORDER BY sequence`).all()).toEqual([
        { event_id: 'e-1', agent_alias: 'a' },
        { event_id: 'e-2', agent_alias: 'a' },
        { event_id: 'e-3', agent_alias: 'a' },
        { event_id: 'e-4', agent_alias: 'gone' },
        { event_id: 'e-5', agent_alias: 'gone' },
      ]);
      expect(db.prepare(`SELECT message_id, agent_alias FROM messages ORDER BY rowid`).all()).toEqual([
        { message_id: 'm-1', agent_alias: 'a' },
        { message_id: 'm-2', agent_alias: 'a' },
        { message_id: 'm-3', agent_alias: 'gone' },
        { message_id: 'm-4', agent_alias: null },
      ]);
      // Live state still follows the agent.
      expect(db.prepare(`SELECT task_id, agent_alias FROM tasks ORDER BY task_id`).all()).toEqual([
        { task_id: 't-1', agent_alias: 'a2' },
        { task_id: 't-2', agent_alias: 'b' },
      ]);
    } finally {
      db.close();
    }
  });

  it('finds a removed agent’s events by its alias, through the agent indexes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'missive-journal-'));
    dirs.push(dir);
    const path = join(dir, 'm.sqlite3');
    const v10 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 10) });
    v10.exec(`INSERT INTO agents (alias, base_url) VALUES ('gone', 'http://127.0.0.1:3')`);
    const insertEvent = v10.prepare(`INSERT INTO events (event_id, event_type, agent_alias, payload_json) VALUES (?, ?, 'gone', ?)`);
    insertEvent.run('e-4', 'a2a.send.started', '{"message_id":"m-3"}');
    insertEvent.run('e-5', 'a2a.send.failed', '{"message_id":"m-3"}');
    v10.close();
    const db = openDatabase(path);
    try {
      db.prepare(`DELETE FROM agents WHERE alias = 'gone'`).run();
      const byAgent = eventQuerySql(db, { agentAlias: 'gone' });
      expect(plan(db, byAgent.sql, byAgent.params)).toContain('idx_events_agent');
      expect(
        db
          .prepare(byAgent.sql)
          .all(...byAgent.params)
          .map((r: any) => r.event_id),
      ).toEqual(['e-5', 'e-4']);
      const starts = requestStartsSql({ agent: 'gone', limit: 10 });
      expect(plan(db, starts.sql, starts.params)).toContain('idx_events_calls');
      expect(
        db
          .prepare(starts.sql)
          .all(...starts.params)
          .map((r: any) => r.payload_json),
      ).toEqual(['{"message_id":"m-3"}']);
      expect(plan(db, latestCallEventSql, ['gone', 'a2a.send.failed'])).toContain('idx_events_calls');
    } finally {
      db.close();
    }
  });
});
