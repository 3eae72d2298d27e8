/**
 * A group writer's tick values (GroupWriter.get/set/settle): a value every write of a tick changes (an artifact's
 * version while a stream appends chunks) is stored once, just before the tick commits, with the last value set; a
 * failing write's value is dropped with its rows; a write that joined a transaction that is not a tick saves its
 * value when it ends; `settle` stores it at once; and `transaction` reads what the open tick set.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type GroupWriter, type Store } from '../../electron/core/store/store.js';

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

let store: Store | undefined;
afterEach(() => store?.close());

/** One agent row whose base URL stands for a value a tick keeps (an artifact row's version). */
function open() {
  const path = join(mkdtempSync(join(tmpdir(), 'missive-tick-values-')), 'm.sqlite3');
  store = openStore(path);
  const s = store;
  s.db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('a', 'http://127.0.0.1:1/0')`).run();
  const stored = () => Number((s.db.prepare(`SELECT base_url FROM agents WHERE alias = 'a'`).pluck().get() as string).split('/').pop());
  const committed = () => {
    const reader = new Database(path, { readonly: true });
    try {
      return Number((reader.prepare(`SELECT base_url FROM agents WHERE alias = 'a'`).pluck().get() as string).split('/').pop());
    } finally {
      reader.close();
    }
  };
  let saves = 0;
  const save = (n: number) => {
    saves++;
    s.db.prepare(`UPDATE agents SET base_url = ? WHERE alias = 'a'`).run(`http://127.0.0.1:1/${n}`);
  };
  /** One write: the value read for the tick (else from the row), plus one. */
  const bump = (w: GroupWriter, fail = false) =>
    w.write(() => {
      const next = w.get('a', stored) + 1;
      w.set('a', next, save);
      if (fail) throw new Error('failing write');
      return next;
    });
  return { store: s, stored, committed, bump, saves: () => saves };
}

describe('tick values of group writers', () => {
  it('stores the last value once, when the tick commits, and reads it back within the tick', async () => {
    const { store: s, committed, bump, saves } = open();
    const w = s.grouped();
    expect([bump(w), bump(w), bump(w)]).toEqual([1, 2, 3]);
    expect(saves()).toBe(0);
    await nextTick();
    expect(saves()).toBe(1);
    expect(committed()).toBe(3);
    // The next tick reads the stored value again.
    expect(bump(w)).toBe(4);
    w.flush();
    expect(committed()).toBe(4);
  });

  it('drops the value of a failing write with its rows; the values before it are stored', async () => {
    const { store: s, committed, bump } = open();
    const w = s.grouped();
    bump(w);
    bump(w);
    expect(() => bump(w, true)).toThrow('failing write');
    expect(bump(w)).toBe(3);
    w.flush();
    expect(committed()).toBe(3);
  });

  it('saves at the end of a write that joined a transaction that is not a tick', () => {
    const { store: s, stored, bump, saves } = open();
    const w = s.grouped();
    s.transaction(() => {
      expect(bump(w)).toBe(1);
      expect(saves()).toBe(1);
      expect(stored()).toBe(1);
      expect(bump(w)).toBe(2);
    });
    expect(stored()).toBe(2);
  });

  it('settle stores the value now and forgets it; transaction() inside an open tick reads what the tick set', () => {
    const { store: s, stored, bump, saves } = open();
    const w = s.grouped();
    bump(w);
    bump(w);
    w.write(() => w.settle('a'));
    expect(saves()).toBe(1);
    expect(stored()).toBe(2);
    bump(w);
    expect(s.transaction(() => stored())).toBe(3);
    w.flush();
    expect(stored()).toBe(3);
  });

  it('commits the values of a tick when the store closes during it', () => {
    const { store: s, committed, bump } = open();
    const w = s.grouped();
    bump(w);
    bump(w);
    s.close();
    expect(committed()).toBe(2);
  });
});
