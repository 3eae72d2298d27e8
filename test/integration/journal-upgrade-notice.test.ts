/**
 * The upgrade to narrow update rows (schema v14) as a user sees it: the first command that opens a store written by
 * schema v13 migrates it. A store file of 32 MiB or more says where the upgrade is, one warning line per step on
 * stderr, and the command then answers as usual with every event kept; a small store's upgrade says nothing.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { openDatabase } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';

const boxes: Sandbox[] = [];
afterEach(() => boxes.splice(0).forEach((b) => b.dispose()));

/** A v13 store at the sandbox's default profile holding `count` events of about `bytes` of payload each. */
function v13Store(box: Sandbox, count: number, bytes: number): void {
  const dir = join(box.home, 'state/profiles/default');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(dir, 'missive.sqlite3'), { migrations: MIGRATIONS.slice(0, 13) });
  const insert = db.prepare(`INSERT INTO events (event_id, event_type, payload_json) VALUES (?, 'x.old', ?)`);
  const text = 'x'.repeat(bytes);
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(`e${i}`, JSON.stringify({ i, text }));
  })();
  db.close();
}

describe('upgrading a store to schema v14', () => {
  it('says where a large store is, step by step, and keeps every event', async () => {
    const box = sandbox();
    boxes.push(box);
    v13Store(box, 40_000, 1_000);
    const run = await box.run(['events', 'list', '--limit', '1', '--json']);
    expect(run.code).toBe(0);
    // In --json mode each warning is a compact `warning` envelope on stderr (`missive: warning: …` lines otherwise).
    const notices = run.stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { data: { message: string } }).data.message);
    expect(notices[0]).toBe("upgrading the store to schema v14 (update_runs), step 1 of 8: copying the journal's events into their new table");
    expect(notices.at(-1)).toBe("upgrading the store to schema v14 (update_runs), step 8 of 8: indexing the journal's requests and calls");
    expect(notices).toHaveLength(8);
    expect(run.json().data.events.map((e: { sequence: number }) => e.sequence)).toEqual([40_000]);
    // A store already upgraded says nothing more.
    const again = await box.run(['events', 'list', '--limit', '1']);
    expect(again.stderr).toBe('');
  });

  it('upgrades a small store without a word', async () => {
    const box = sandbox();
    boxes.push(box);
    v13Store(box, 20, 100);
    const run = await box.run(['events', 'list', '--limit', '1', '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.json().data.events.map((e: { sequence: number }) => e.sequence)).toEqual([20]);
  });
});
