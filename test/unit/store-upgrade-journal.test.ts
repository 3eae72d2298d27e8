/**
 * An upgrade of a store in use runs in SQLite's rollback journal when it has the file alone (each new page written
 * once, not to the WAL and again at the checkpoint), and in the WAL when another connection holds the file; either
 * way the store comes back in WAL mode, its -wal and -shm private, every event kept.
 */
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, SCHEMA_VERSION } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';

const V13 = MIGRATIONS.findIndex((m) => m.version === 14);

/** A v13 store holding `events` journal events, closed. */
function v13Store(events: number): string {
  const path = join(mkdtempSync(join(tmpdir(), 'missive-upgrade-journal-')), 'm.sqlite3');
  const db = openDatabase(path, { migrations: MIGRATIONS.slice(0, V13) });
  const insert = db.prepare(`INSERT INTO events (event_id, event_type, payload_json) VALUES (?, 'a2a.stream.artifact_update', ?)`);
  db.transaction(() => {
    for (let i = 0; i < events; i++) insert.run(`e-${i}`, JSON.stringify({ n: i }));
  })();
  db.close();
  return path;
}

/** Opens (so upgrades) the store at `path`, noting at each reported step which journal files exist. */
function upgrade(path: string): Array<{ rollbackJournal: boolean; wal: boolean }> {
  const seen: Array<{ rollbackJournal: boolean; wal: boolean }> = [];
  const db = openDatabase(path, { onMigration: () => seen.push({ rollbackJournal: existsSync(`${path}-journal`), wal: existsSync(`${path}-wal`) }) });
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  expect(db.prepare(`SELECT count(*) AS n, max(sequence) AS top FROM events`).get()).toEqual({ n: 500, top: 500 });
  for (const suffix of ['-wal', '-shm']) expect(statSync(`${path}${suffix}`).mode & 0o777, suffix).toBe(0o600);
  db.close();
  return seen;
}

describe('upgrading a store in use', () => {
  it('rebuilds the journal through the rollback journal when it has the file alone, and returns to the WAL', () => {
    const seen = upgrade(v13Store(500));
    expect(seen.length).toBeGreaterThan(1);
    // From the second step on the upgrade has written: to a rollback journal, with no WAL beside it.
    expect(seen.slice(1)).toEqual(seen.slice(1).map(() => ({ rollbackJournal: true, wal: false })));
  });

  it('upgrades in the WAL when another connection holds the file', () => {
    const path = v13Store(500);
    const other = new Database(path, { readonly: true });
    other.prepare(`SELECT count(*) FROM events`).get();
    try {
      const seen = upgrade(path);
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.every((s) => s.wal && !s.rollbackJournal)).toBe(true);
    } finally {
      other.close();
    }
  });
});
