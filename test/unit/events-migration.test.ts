/** Schema v4: the journal keeps events for tasks it has no row for, and the v3 journal survives the rebuild intact. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';
import { appendEvent, listEvents } from '../../electron/core/store/repos/events.js';

describe('events migration v4', () => {
  it('keeps v3 events and their sequences, never reuses a sequence, and accepts events of unknown tasks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'missive-store-'));
    try {
      const path = join(dir, 'm.sqlite3');
      const v3 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 3) });
      v3.prepare(`INSERT INTO agents (alias, base_url) VALUES ('a', 'http://127.0.0.1:1')`).run();
      v3.prepare(`INSERT INTO tasks (task_id, agent_alias) VALUES ('known', 'a')`).run();
      // Appended as a v3 store did (today's append writes columns of later versions: v13's actor).
      const appendV3 = (type: string, taskId: string, agentAlias: string | null) =>
        v3
          .prepare(`INSERT INTO events (event_id, event_type, agent_alias, task_id, payload_json) VALUES (?, ?, ?, ?, ?)`)
          .run(`e-${type}`, type, agentAlias, taskId, JSON.stringify({ type }));
      for (const type of ['one', 'two', 'three']) appendV3(type, 'known', 'a');
      expect(() => appendV3('x', 'unknown', null)).toThrow(/FOREIGN KEY/);
      v3.prepare(`DELETE FROM events WHERE event_type = 'three'`).run();
      v3.close();

      const db = openDatabase(path);
      expect(listEvents(db, { taskId: 'known' }).map((e) => [e.sequence, e.type, e.agentAlias, e.payload])).toEqual([
        [1, 'one', 'a', { type: 'one' }],
        [2, 'two', 'a', { type: 'two' }],
      ]);
      expect(appendEvent(db, { type: 'push', taskId: 'unknown' })?.sequence).toBe(4);
      expect(listEvents(db, { taskId: 'unknown' }).map((e) => e.type)).toEqual(['push']);
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM events WHERE task_id = ? ORDER BY sequence`).all('unknown') as { detail: string }[];
      expect(plan.map((p) => p.detail).join(' ')).toContain('idx_events_task');
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
