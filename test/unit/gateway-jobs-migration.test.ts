/**
 * Schema v12: the "dispatched" mark of a job (its request left, under this message id) is a column of `gateway_jobs`
 * instead of a flag inside `result_json`. A v10 store keeps every row: the mark moves into the column, a result that
 * held only the mark is emptied, a real result is kept as it was; a resumed job still knows its request left.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';
import { getOperatorJob } from '../../electron/core/store/repos/gateway-jobs.js';
import { wasDispatched } from '../../electron/core/jobs/execute.js';

describe('gateway_jobs.dispatched (schema v12)', () => {
  it('moves the mark of v10 rows from result_json into its column and keeps every row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'missive-jobs-'));
    try {
      const path = join(dir, 'm.sqlite3');
      const v10 = openDatabase(path, { migrations: MIGRATIONS.slice(0, 10) });
      const insert = v10.prepare(
        `INSERT INTO gateway_jobs (job_id, kind, state, request_json, result_json, attempts, max_attempts) VALUES (?, ?, ?, ?, ?, ?, 3)`,
      );
      insert.run('sent', 'send', 'running', JSON.stringify({ kind: 'send' }), JSON.stringify({ dispatched: true, message_id: 'm-1' }), 1);
      insert.run('bcast', 'bcast', 'retrying', JSON.stringify({ kind: 'bcast' }), JSON.stringify({ dispatched: true }), 1);
      insert.run('cancelled', 'send', 'cancelled', JSON.stringify({ kind: 'send' }), JSON.stringify({ dispatched: true, message_id: 'm-2' }), 1);
      insert.run(
        'done',
        'send',
        'succeeded',
        JSON.stringify({ kind: 'send' }),
        JSON.stringify({ outcome: 'completed', exit_code: 0, text: 'dispatched: true' }),
        1,
      );
      insert.run('fresh', 'send', 'queued', JSON.stringify({ kind: 'send' }), null, 0);
      v10.close();

      const db = openDatabase(path);
      try {
        const rows = db.prepare(`SELECT job_id, state, attempts, dispatched, dispatch_message_id, result_json FROM gateway_jobs ORDER BY job_id`).all();
        expect(rows).toEqual([
          { job_id: 'bcast', state: 'retrying', attempts: 1, dispatched: 1, dispatch_message_id: null, result_json: null },
          { job_id: 'cancelled', state: 'cancelled', attempts: 1, dispatched: 1, dispatch_message_id: 'm-2', result_json: null },
          {
            job_id: 'done',
            state: 'succeeded',
            attempts: 1,
            dispatched: 0,
            dispatch_message_id: null,
            result_json: JSON.stringify({ outcome: 'completed', exit_code: 0, text: 'dispatched: true' }),
          },
          { job_id: 'fresh', state: 'queued', attempts: 0, dispatched: 0, dispatch_message_id: null, result_json: null },
          { job_id: 'sent', state: 'running', attempts: 1, dispatched: 1, dispatch_message_id: 'm-1', result_json: null },
        ]);
        // The executor reads the column: a job resumed after the upgrade still knows its request left.
        expect(wasDispatched(getOperatorJob(db, 'sent')!)).toBe(true);
        expect(wasDispatched(getOperatorJob(db, 'bcast')!)).toBe(true);
        expect(wasDispatched(getOperatorJob(db, 'fresh')!)).toBe(false);
        expect(() => db.prepare(`UPDATE gateway_jobs SET dispatched = 2 WHERE job_id = 'fresh'`).run()).toThrow(/CHECK/);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
