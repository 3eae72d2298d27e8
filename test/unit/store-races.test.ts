/**
 * The store's group writers when two run in one process (a GUI stream beside a gateway subscription): their writes of
 * one tick share one transaction, so a failing write must roll back only itself, a failure SQLite answers by rolling
 * back the whole transaction must not pass silently for the other writer, and `close()` during a tick commits what
 * was written and leaves later writes a storage error, not a crash or a "database is locked".
 */
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { CHECKPOINT_POLICY } from '../../electron/core/store/db.js';
import { MissiveError } from '../../shared/errors.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'missive-store-races-')), 'm.sqlite3');
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

/** What another process reading the file sees: committed rows only. */
const committed = (path: string): string[] => {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare(`SELECT alias FROM agents ORDER BY alias`).pluck().all() as string[];
  } finally {
    reader.close();
  }
};

let store: Store | undefined;
afterEach(() => store?.close());

function open(idleCheckpointMs = CHECKPOINT_POLICY.idleCheckpointMs) {
  const path = dbPath();
  store = openStore(path, { checkpoint: { idleCheckpointMs } });
  const s = store;
  const insert = (alias: string) => () => s.db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias).changes;
  return { path, store: s, insert };
}

describe('two group writers in one process', () => {
  it("keeps both writers' interleaved rows of a tick when one write fails, rolling back that write alone", async () => {
    const { path, store, insert } = open();
    const gui = store.grouped();
    const gateway = store.grouped();
    gui.write(insert('gui-1'));
    gateway.write(insert('gw-1'));
    gui.write(insert('gui-2'));
    expect(() =>
      gateway.write(() => {
        insert('gw-2')();
        insert('gui-1')(); // duplicate: this write fails after writing gw-2
      }),
    ).toThrow(/UNIQUE/);
    gui.write(insert('gui-3'));
    gateway.write(insert('gw-3'));
    await nextTick();
    expect(committed(path)).toEqual(['gui-1', 'gui-2', 'gui-3', 'gw-1', 'gw-3']);
  });

  it("commits a joined writer's rows at its own flush, not only at the end of the other writer's tick", () => {
    const { path, store, insert } = open();
    const gui = store.grouped();
    const gateway = store.grouped();
    gui.write(insert('gui-1'));
    gateway.write(insert('gw-1')); // joins the transaction gui's tick opened
    gateway.flush(); // the subscription ended: what it wrote is on disk before it reports so
    expect(committed(path)).toEqual(['gui-1', 'gw-1']);
    gui.write(insert('gui-2'));
    gui.flush();
    expect(committed(path)).toEqual(['gui-1', 'gui-2', 'gw-1']);
  });

  it('tells the other writer, with a storage error, when SQLite rolled back the whole tick under a failing write', async () => {
    const { path, store, insert } = open();
    // A failure SQLite answers with a rollback of the whole transaction (as for a full disk or an I/O error).
    store.db.exec(`CREATE TEMP TRIGGER doom BEFORE INSERT ON main.agents WHEN NEW.alias = 'doom' BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END`);
    const gui = store.grouped();
    const gateway = store.grouped();
    gui.write(insert('gui-1')); // returned: the GUI renders it as written
    let failure: unknown;
    try {
      gateway.write(insert('doom'));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(MissiveError);
    expect((failure as MissiveError).code).toBe('missive::storage::tick_rolled_back');
    // gui-1 went with the tick: the GUI writer must not go on as if it were stored.
    expect(() => gui.write(insert('gui-2'))).toThrow(expect.objectContaining({ code: 'missive::storage::tick_rolled_back' }));
    // Told once; the writer (and the store) go on working.
    gui.write(insert('gui-3'));
    gateway.write(insert('gw-1'));
    await nextTick();
    expect(committed(path)).toEqual(['gui-3', 'gw-1']);
  });

  it('tells a writer at its flush when its tick was lost, so a sequence never ends as if stored', () => {
    const { store, insert } = open();
    store.db.exec(`CREATE TEMP TRIGGER doom BEFORE INSERT ON main.agents WHEN NEW.alias = 'doom' BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END`);
    const gui = store.grouped();
    const gateway = store.grouped();
    gui.write(insert('gui-1'));
    expect(() => gateway.write(insert('doom'))).toThrow();
    expect(() => gui.flush()).toThrow(expect.objectContaining({ code: 'missive::storage::tick_rolled_back' }));
    expect(() => gui.flush()).not.toThrow();
  });
});

describe('close() during a tick', () => {
  it("commits both writers' rows of the open tick and a queued batch, then refuses later writes with a storage error", async () => {
    const { path, store, insert } = open();
    const gui = store.grouped();
    const gateway = store.grouped();
    const batched = store.batch(insert('batched'));
    gui.write(insert('gui-1'));
    gateway.write(insert('gw-1'));
    expect(store.db.inTransaction).toBe(true);
    expect(() => store.close()).not.toThrow();
    await expect(batched).resolves.toBe(1);
    expect(committed(path)).toEqual(['batched', 'gui-1', 'gw-1']);
    // The ticks' timers come after the close: nothing throws from them (an uncaught error there would crash the app).
    await nextTick();
    expect(() => gui.flush()).not.toThrow();
    expect(() => gateway.write(insert('gw-2'))).toThrow(expect.objectContaining({ code: 'missive::storage::store_closed' }));
    expect(committed(path)).toEqual(['batched', 'gui-1', 'gw-1']);
  });

  it('closes from inside a write (a listener that shuts the core down) without "statement in use" and keeps what was written', async () => {
    const { path, store, insert } = open();
    const gui = store.grouped();
    gui.write(insert('gui-1'));
    let failure: unknown;
    try {
      gui.write(() => {
        insert('gui-2')();
        store.close();
      });
    } catch (error) {
      failure = error;
    }
    // The write that closed the store cannot finish: it is rolled back alone and fails as a storage error; the rows
    // written before it in the tick are committed, not lost with it.
    expect(failure).toBeInstanceOf(MissiveError);
    expect((failure as MissiveError).code).toBe('missive::storage::store_closed');
    await nextTick();
    expect(committed(path)).toEqual(['gui-1']);
  });
});

describe('idle checkpoint', () => {
  const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

  it('truncates the WAL once the group writers are quiet, and again after a reader that held an old snapshot lets go', async () => {
    const { path, store, insert } = open(30);
    const reader = new Database(path, { readonly: true });
    try {
      const gui = store.grouped();
      for (let i = 0; i < 200; i++) gui.write(insert(`a-${i}`));
      await nextTick();
      await expect.poll(() => walBytes(path), { timeout: 5000 }).toBe(0);
      // A reader on an old snapshot (an export paging) makes the first quiet spell's checkpoint busy.
      reader.exec('BEGIN');
      reader.prepare(`SELECT count(*) FROM agents`).get();
      const pragma = vi.spyOn(store.db, 'pragma');
      const tried = () => pragma.mock.calls.filter(([source]) => source === 'wal_checkpoint(TRUNCATE)').length;
      for (let i = 0; i < 200; i++) gui.write(insert(`b-${i}`));
      await nextTick();
      await expect.poll(tried, { timeout: 5000 }).toBeGreaterThan(0);
      expect(walBytes(path)).toBeGreaterThan(0);
      reader.exec('COMMIT');
      // No write comes any more: the checkpoint is tried again on its own.
      await expect.poll(() => walBytes(path), { timeout: 5000 }).toBe(0);
      expect(committed(path)).toHaveLength(400);
    } finally {
      reader.close();
    }
  });
});
