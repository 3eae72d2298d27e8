/**
 * The stream's persistence shortcuts keep what a reader sees: a group writer's failing write rolls back alone inside a
 * tick, a status update set inside the stored task JSON by SQLite equals the read-spread-rewrite it replaced, and the
 * message ordinals computed in the insert still count the task's messages.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/store.js';
import { ensureContext, getArtifact, getTaskJson, listArtifactsOfTask, responsesOfTask, upsertTask } from '../../electron/core/store/repos/conversation.js';
import { applyUpdateSteps, type UpdateSource } from '../../electron/core/tasks/apply-update.js';
import { runStepsSync } from '../../electron/core/store/sqlite/run-steps.js';
import { tickValues } from '../../electron/core/store/sqlite/update-sink.js';
import { appendEvent, listEvents } from '../../electron/core/store/repos/events.js';
import { messagesOfContext } from '../../electron/core/store/repos/history.js';
import { listContexts } from '../../electron/core/store/repos/contexts.js';

/** One update applied now on SQLite's synchronous driver (inside the caller's transaction), without a tick. */
const applyUpdateAt = (db: Parameters<typeof runStepsSync>[0], source: UpdateSource, record: Parameters<typeof applyUpdateSteps>[1]) =>
  runStepsSync(db, applyUpdateSteps(source, record));

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'missive-stream-persist-')), 'm.sqlite3');
const source: UpdateSource = { eventPrefix: 'a2a.stream', alias: 'peer', protocolVersion: '1.0', metadata: { via: 'test' }, payload: { sequence: 1 } };
const status = (state: string, text?: string) => ({
  variant: 'statusUpdate' as const,
  payload: { taskId: 't', contextId: 'c', status: { state, ...(text ? { message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] } } : {}) } },
});

function seeded() {
  const path = dbPath();
  const store = openStore(path);
  store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('peer', 'http://127.0.0.1:1')`).run();
  return { path, store };
}

describe('stream persistence', () => {
  it('rolls back a failing write alone and commits the rest of its tick', async () => {
    const { path, store } = seeded();
    const writer = store.grouped();
    const insert = (alias: string) => () => store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias);
    writer.write(insert('a'));
    expect(() =>
      writer.write(() => {
        insert('b')();
        insert('a')(); // duplicate: the write fails after writing `b`
      }),
    ).toThrow(/UNIQUE/);
    writer.write(insert('c'));
    await new Promise((resolve) => setImmediate(resolve));
    const reader = new Database(path, { readonly: true });
    expect(reader.prepare(`SELECT alias FROM agents ORDER BY alias`).pluck().all()).toEqual(['a', 'c', 'peer']);
    reader.close();
    store.close();
  });

  it('stores a status update as the whole task JSON with the new status, moving updated_at only on change', () => {
    const { store } = seeded();
    const db = store.db;
    const updatedAt = () => (db.prepare(`SELECT updated_at FROM tasks WHERE task_id = 't'`).get() as { updated_at: string }).updated_at;
    ensureContext(db, 'c', 'peer');
    // A task stored whole first, with fields after `status` that must keep their place.
    upsertTask(db, {
      taskId: 't',
      agentAlias: 'peer',
      contextId: 'c',
      state: 'submitted',
      remoteState: 'TASK_STATE_SUBMITTED',
      protocolVersion: '1.0',
      remoteJson: {
        id: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_SUBMITTED' },
        history: [{ messageId: 'h', parts: [{ text: 'é "q" \\ ✓' }] }],
        metadata: { n: 1.5 },
      },
      lastMessageId: null,
    });
    db.prepare(`UPDATE tasks SET updated_at = '2000-01-01T00:00:00.000Z' WHERE task_id = 't'`).run();
    const applied = store.transaction(() => applyUpdateAt(db, source, status('TASK_STATE_WORKING', 'half way')));
    expect(applied.state).toBe('working');
    const expected = {
      id: 't',
      contextId: 'c',
      status: status('TASK_STATE_WORKING', 'half way').payload.status,
      history: [{ messageId: 'h', parts: [{ text: 'é "q" \\ ✓' }] }],
      metadata: { n: 1.5 },
    };
    expect(JSON.stringify(getTaskJson(db, 't'))).toBe(JSON.stringify(expected));
    expect((db.prepare(`SELECT remote_task_json FROM tasks WHERE task_id = 't'`).get() as { remote_task_json: string }).remote_task_json).toBe(
      JSON.stringify(expected),
    );
    expect(db.prepare(`SELECT state, remote_state, last_message_id FROM tasks WHERE task_id = 't'`).get()).toEqual({
      state: 'working',
      remote_state: 'TASK_STATE_WORKING',
      last_message_id: applied.message_id,
    });
    expect(updatedAt()).not.toBe('2000-01-01T00:00:00.000Z');
    // The same status again changes nothing a reader sees: updated_at stays.
    db.prepare(`UPDATE tasks SET updated_at = '2000-01-01T00:00:00.000Z' WHERE task_id = 't'`).run();
    store.transaction(() => applyUpdateAt(db, source, status('TASK_STATE_WORKING', 'half way')));
    expect(updatedAt()).toBe('2000-01-01T00:00:00.000Z');
    store.transaction(() => applyUpdateAt(db, source, status('TASK_STATE_COMPLETED')));
    expect(db.prepare(`SELECT state, completed_at IS NOT NULL AS done FROM tasks WHERE task_id = 't'`).get()).toEqual({ state: 'completed', done: 1 });
    store.close();
  });

  it('starts the JSON of a task only known by id from its id and context, and journals each update once, redacted, under the id it reports', () => {
    const { store, path } = seeded();
    const db = store.db;
    const secret = 'sk-live-0123456789';
    const withSecret = { ...source, secrets: [secret] };
    const first = store.transaction(() => applyUpdateAt(db, withSecret, status('TASK_STATE_WORKING', `token ${secret}`)));
    const second = store.transaction(() => applyUpdateAt(db, withSecret, status('TASK_STATE_WORKING', 'two')));
    expect(getTaskJson(db, 't')).toEqual({
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm-two', role: 'ROLE_AGENT', parts: [{ text: 'two' }] } },
    });
    const events = listEvents(db, { taskId: 't', limit: 10 });
    expect(events.map((e) => e.eventId)).toEqual([first.message_id, second.message_id]);
    expect(events[0]!.payload).toEqual({
      sequence: 1,
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm-token [REDACTED]', role: 'ROLE_AGENT', parts: [{ text: 'token [REDACTED]' }] } },
      },
    });
    // Stored once: no message row repeats it; the task's answers read it from the journal.
    expect(db.prepare(`SELECT count(*) FROM messages WHERE task_id = 't'`).pluck().get()).toBe(0);
    expect(responsesOfTask(db, 't').map((m) => [m.message_id, m.direction, m.content])).toEqual([
      [second.message_id, 'stream_event', { statusUpdate: (events[1]!.payload as { statusUpdate: unknown }).statusUpdate }],
      [first.message_id, 'stream_event', { statusUpdate: (events[0]!.payload as { statusUpdate: unknown }).statusUpdate }],
    ]);
    store.close();
    expect(readFileSync(path).includes(secret)).toBe(false);
  });

  it('reads a journal written when each update was also a message row: every update once, old and new, in order', () => {
    const { store } = seeded();
    const db = store.db;
    ensureContext(db, 'c', 'peer');
    // As an earlier version stored an update: a `stream_event` message row, and its event naming that row.
    const old = status('TASK_STATE_WORKING', 'old');
    db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id, state) VALUES ('t', 'peer', 'c', 'working')`).run();
    db.prepare(
      `INSERT INTO messages (message_id, agent_alias, context_id, task_id, direction, role, content_json, metadata_json, created_at)
       VALUES ('old-row', 'peer', 'c', 't', 'stream_event', 'system', ?, '{}', '2026-01-01T00:00:00.000Z')`,
    ).run(JSON.stringify({ statusUpdate: old.payload }));
    appendEvent(db, {
      type: 'a2a.stream.status_update',
      agentAlias: 'peer',
      contextId: 'c',
      taskId: 't',
      payload: { sequence: 1, message_row: 'old-row', statusUpdate: old.payload },
    });
    const fresh = store.transaction(() => applyUpdateAt(db, source, status('TASK_STATE_WORKING', 'new')));
    expect(messagesOfContext(db, 'c').map((m) => [m.message_id, m.direction])).toEqual([
      ['old-row', 'stream_event'],
      [fresh.message_id, 'stream_event'],
    ]);
    expect(responsesOfTask(db, 't').map((m) => m.message_id)).toEqual([fresh.message_id, 'old-row']);
    expect(listContexts(db, 10).find((c) => c.context_id === 'c')).toMatchObject({ messages: 2, events: 2 });
    store.close();
  });

  it('writes the task row, the artifact row and one chunk row per tick of a stream, with the last status and every chunk', () => {
    const { store } = seeded();
    const db = store.db;
    db.exec(`CREATE TEMP TABLE writes (what TEXT);
      CREATE TEMP TRIGGER task_writes AFTER UPDATE ON main.tasks BEGIN INSERT INTO writes VALUES ('task'); END;
      CREATE TEMP TRIGGER artifact_writes AFTER UPDATE ON main.artifacts BEGIN INSERT INTO writes VALUES ('artifact'); END;
      CREATE TEMP TRIGGER chunk_writes AFTER INSERT ON main.artifact_chunks BEGIN INSERT INTO writes VALUES ('chunk'); END;`);
    const writes = () => db.prepare(`SELECT what, count(*) AS n FROM writes GROUP BY what ORDER BY what`).all();
    const writer = store.grouped();
    const tick = { ...source, ensured: new Set<string>() };
    const chunk = (n: number) => ({
      variant: 'artifactUpdate' as const,
      payload: { taskId: 't', contextId: 'c', append: n > 0, lastChunk: n === 3, artifact: { artifactId: 'a', parts: [{ text: `${n} ` }] } },
    });
    const applied = [
      status('TASK_STATE_WORKING', 'one'),
      chunk(0),
      chunk(1),
      status('TASK_STATE_WORKING', 'two'),
      chunk(2),
      chunk(3),
      status('TASK_STATE_COMPLETED', 'done'),
    ].map((u) => writer.write(() => runStepsSync(db, applyUpdateSteps(tick, u, tickValues(writer, db)))));
    expect(applied.filter((a) => a.artifact).map((a) => a.artifact!.version)).toEqual([1, 2, 3, 4]);
    writer.flush();
    // One write of the task row, one of the artifact row and one chunk row for the whole tick (the artifact's first
    // chunk inserts its row and its first chunk row; the three appended chunks are the second chunk row).
    expect(writes()).toEqual([
      { what: 'artifact', n: 1 },
      { what: 'chunk', n: 2 },
      { what: 'task', n: 1 },
    ]);
    expect(db.prepare(`SELECT state, last_message_id FROM tasks WHERE task_id = 't'`).get()).toEqual({
      state: 'completed',
      last_message_id: applied.at(-1)!.message_id,
    });
    expect(getTaskJson(db, 't')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'done' }] } } });
    expect(getArtifact(db, 't', 'a')).toMatchObject({
      version: 4,
      last_chunk: true,
      content: { parts: [{ text: '0 ' }, { text: '1 ' }, { text: '2 ' }, { text: '3 ' }] },
    });
    // What `task get` counts: the four chunks the agent sent, not the two rows that hold them.
    expect(listArtifactsOfTask(db, 't')).toMatchObject([{ artifact_id: 'a', version: 4, chunks: 4, last_chunk: 1 }]);
    store.close();
  });

  it("keeps a tick's other chunks, in order, when a write appending one fails", () => {
    const { store } = seeded();
    const db = store.db;
    const writer = store.grouped();
    const tick = { ...source, ensured: new Set<string>() };
    const values = tickValues(writer, db);
    const chunk = (n: number) => ({
      variant: 'artifactUpdate' as const,
      payload: { taskId: 't', contextId: 'c', append: n > 0, artifact: { artifactId: 'a', parts: [{ text: `${n} ` }] } },
    });
    const apply = (n: number) => runStepsSync(db, applyUpdateSteps(tick, chunk(n), values));
    writer.write(() => apply(0));
    writer.write(() => apply(1));
    expect(() =>
      writer.write(() => {
        apply(2);
        throw new Error('the write fails after its chunk');
      }),
    ).toThrow(/fails/);
    writer.write(() => apply(3));
    writer.flush();
    expect(getArtifact(db, 't', 'a')).toMatchObject({ version: 3, content: { parts: [{ text: '0 ' }, { text: '1 ' }, { text: '3 ' }] } });
    expect(listArtifactsOfTask(db, 't')).toMatchObject([{ chunks: 3 }]);
    store.close();
  });
});
