/**
 * The two group commits of the store work together in one process (a GUI stream next to webhook callbacks or a
 * fan-out): a `Store.batch` promise settles only once its rows are on disk, even while a stream's group writer has
 * its tick's transaction open, and the stream's rows are kept too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/store.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'missive-group-commit-')), 'm.sqlite3');

/** What another process reading the file sees: committed rows only. */
const committedAliases = (path: string): string[] => {
  const reader = new Database(path, { readonly: true });
  try {
    return (reader.prepare(`SELECT alias FROM agents ORDER BY alias`).all() as Array<{ alias: string }>).map((r) => r.alias);
  } finally {
    reader.close();
  }
};

describe('group commits', () => {
  it('settles a batch only after it committed, while a group writer has a transaction open', async () => {
    const path = dbPath();
    const store = openStore(path);
    const insert = (alias: string) => () => store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias).changes;
    const writer = store.grouped();
    // The batch is queued first, then a stream event opens the writer's transaction before the batch's turn comes.
    const batched = store.batch(insert('batched'));
    writer.write(insert('streamed'));
    await expect(batched).resolves.toBe(1);
    // The batch's promise settled: its row is committed, and so is what the writer had written before it.
    expect(committedAliases(path)).toEqual(['batched', 'streamed']);
    writer.write(insert('streamed-later'));
    writer.flush();
    expect(committedAliases(path)).toEqual(['batched', 'streamed', 'streamed-later']);
    store.close();
  });
});
