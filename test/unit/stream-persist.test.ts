/**
 * The stream's persistence shortcuts keep what a reader sees: a group writer's failing write rolls back alone inside a
 * tick, a status update set inside the stored task JSON by SQLite equals the read-spread-rewrite it replaced, and the
 * message ordinals computed in the insert still count the task's messages.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/store.js';
import { ensureContext, getTaskJson, upsertTask } from '../../electron/core/store/repos/conversation.js';
import { applyUpdate, type UpdateSource } from '../../electron/core/tasks/apply-update.js';
import { listEvents } from '../../electron/core/store/repos/events.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'missive-stream-persist-')), 'm.sqlite3');
const source: UpdateSource = { eventPrefix: 'a2a.stream', direction: 'stream_event', alias: 'peer', protocolVersion: '1.0', metadata: { via: 'test' }, payload: { sequence: 1 } };
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
    upsertTask(db, { taskId: 't', agentAlias: 'peer', contextId: 'c', state: 'submitted', remoteState: 'TASK_STATE_SUBMITTED', protocolVersion: '1.0', remoteJson: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ messageId: 'h', parts: [{ text: 'é "q" \\ ✓' }] }], metadata: { n: 1.5 } }, lastMessageId: null });
    db.prepare(`UPDATE tasks SET updated_at = '2000-01-01T00:00:00.000Z' WHERE task_id = 't'`).run();
    const applied = store.transaction(() => applyUpdate(db, source, status('TASK_STATE_WORKING', 'half way')));
    expect(applied.state).toBe('working');
    const expected = { id: 't', contextId: 'c', status: status('TASK_STATE_WORKING', 'half way').payload.status, history: [{ messageId: 'h', parts: [{ text: 'é "q" \\ ✓' }] }], metadata: { n: 1.5 } };
    expect(JSON.stringify(getTaskJson(db, 't'))).toBe(JSON.stringify(expected));
    expect((db.prepare(`SELECT remote_task_json FROM tasks WHERE task_id = 't'`).get() as { remote_task_json: string }).remote_task_json).toBe(JSON.stringify(expected));
    expect(db.prepare(`SELECT state, remote_state, last_message_id FROM tasks WHERE task_id = 't'`).get()).toEqual({ state: 'working', remote_state: 'TASK_STATE_WORKING', last_message_id: applied.message_id });
    expect(updatedAt()).not.toBe('2000-01-01T00:00:00.000Z');
    // The same status again changes nothing a reader sees: updated_at stays.
    db.prepare(`UPDATE tasks SET updated_at = '2000-01-01T00:00:00.000Z' WHERE task_id = 't'`).run();
    store.transaction(() => applyUpdate(db, source, status('TASK_STATE_WORKING', 'half way')));
    expect(updatedAt()).toBe('2000-01-01T00:00:00.000Z');
    store.transaction(() => applyUpdate(db, source, status('TASK_STATE_COMPLETED')));
    expect(db.prepare(`SELECT state, completed_at IS NOT NULL AS done FROM tasks WHERE task_id = 't'`).get()).toEqual({ state: 'completed', done: 1 });
    store.close();
  });

  it('starts the JSON of a task only known by id from its id and context, numbers its messages, and journals each update once redacted', () => {
    const { store } = seeded();
    const db = store.db;
    const secret = 'sk-live-0123456789';
    const withSecret = { ...source, secrets: [secret] };
    const first = store.transaction(() => applyUpdate(db, withSecret, status('TASK_STATE_WORKING', `token ${secret}`)));
    store.transaction(() => applyUpdate(db, withSecret, status('TASK_STATE_WORKING', 'two')));
    expect(getTaskJson(db, 't')).toEqual({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm-two', role: 'ROLE_AGENT', parts: [{ text: 'two' }] } } });
    expect(db.prepare(`SELECT ordinal FROM messages WHERE task_id = 't' ORDER BY ordinal`).pluck().all()).toEqual([0, 1]);
    const firstEvent = listEvents(db, { taskId: 't', limit: 2 })[0]!;
    expect(firstEvent.payload).toEqual({ sequence: 1, message_row: first.message_id, statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm-token [REDACTED]', role: 'ROLE_AGENT', parts: [{ text: 'token [REDACTED]' }] } } } });
    const content = (db.prepare(`SELECT content_json FROM messages WHERE message_id = ?`).get(first.message_id) as { content_json: string }).content_json;
    expect(content).not.toContain(secret);
    expect(JSON.parse(content)).toEqual({ statusUpdate: (firstEvent.payload as { statusUpdate: unknown }).statusUpdate });
    store.close();
  });
});
