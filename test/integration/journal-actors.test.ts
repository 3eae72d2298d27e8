/**
 * Who did what, on both stores: every journal event records the host, OS user and actor id that wrote it, in columns
 * of their own (not in its payload); events journaled before that are shown without one. `events list|tail|export
 * --host/--user/--actor` keep the events of one host, user or actor, and the human listing says who acted.
 */
import { hostname, userInfo } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { withActor } from '../../electron/core/store/actor.js';
import { withEventSource } from '../../electron/core/store/event-source.js';
import type { Storage } from '../../electron/core/store/storage.js';
import { STORES, storeUnderTest, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { sqliteStore } from '../support/sqlite-store.js';

interface Listed {
  type: string;
  actor: { host: string; user: string; id: string } | null;
  payload: Record<string, unknown>;
  event_id: string;
}

const here = { host: hostname(), user: userInfo().username, id: `cli:${process.pid}` };
const bob = { host: 'build-2.example', user: 'bob', id: 'build-2.example/bob/gw1' };
const carol = { host: 'build-2.example', user: 'carol', id: 'ui:4242' };

describe.each<StoreKindUnderTest>(STORES)('who acted, on %s', (kind) => {
  let store: StoreUnderTest;
  let box: Sandbox;
  let core: Core;
  let storage: Storage;

  /** Runs SQL on the store's own database, as another program (or an older missive) would. */
  const raw = async (text: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> => {
    if (kind === 'sqlite') {
      const statement = (await sqliteStore(core)).db.prepare(text.replace(/\$\d+/g, '?'));
      return statement.reader ? (statement.all(...params) as Array<Record<string, unknown>>) : (statement.run(...params), []);
    }
    const schema = core.storeSelection.kind === 'postgres' ? core.storeSelection.schema : 'public';
    const client = new pg.Client({ connectionString: store.env.MISSIVE_STORE_URL, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
    storage = await core.storage();
    expect(storage.kind).toBe(kind);
    // An event journaled before missive recorded who acted: its columns are NULL.
    await raw(`INSERT INTO events (event_id, event_type, payload_json) VALUES ('old-event', 'test.who.old', '{}')`);
    await storage.journal.append({ type: 'test.who.here', payload: { n: 1 } });
    await withActor(bob, () => storage.journal.append({ type: 'test.who.bob', source: 'gateway', payload: { n: 2 } }));
    await withActor(carol, () => storage.journal.append({ type: 'test.who.carol', source: 'gui', payload: { n: 3 } }));
    // Only the id given: host and user stay the process's.
    await withActor({ id: 'lab/gw7' }, () => storage.journal.append({ type: 'test.who.gateway-here', source: 'gateway' }));
  });
  afterAll(async () => {
    core?.close();
    box?.dispose();
    await store?.release();
  });

  const list = async (...args: string[]): Promise<Listed[]> => {
    const res = await box.run(['events', 'list', '--type', 'test.who.*', '--limit', '100', ...args, '--json']);
    expect(res.code, res.stderr).toBe(0);
    return res.json().data.events;
  };
  const types = async (...args: string[]) => (await list(...args)).map((e) => e.type);

  it('journals the host, OS user and actor id of each event in columns of their own, not in its payload', async () => {
    expect((await list()).map((e) => [e.type, e.actor])).toEqual([
      ['test.who.old', null],
      ['test.who.here', here],
      ['test.who.bob', bob],
      ['test.who.carol', carol],
      ['test.who.gateway-here', { ...here, id: 'lab/gw7' }],
    ]);
    for (const e of await list()) expect(JSON.stringify(e.payload)).not.toMatch(/actor|build-2|bob|carol/);
    const rows = await raw(
      `SELECT event_type, actor_host, actor_user, actor_id, payload_json FROM events WHERE event_type IN ('test.who.old', 'test.who.bob') ORDER BY sequence`,
    );
    expect(rows).toEqual([
      { event_type: 'test.who.old', actor_host: null, actor_user: null, actor_id: null, payload_json: '{}' },
      { event_type: 'test.who.bob', actor_host: bob.host, actor_user: 'bob', actor_id: bob.id, payload_json: '{"n":2}' },
    ]);
  });

  it('names a process by what wrote the event: a command, the window or web console, the push receiver', async () => {
    await storage.journal.append({ type: 'face.webhook', source: 'webhook' });
    await withEventSource('gui', () => storage.journal.append({ type: 'face.window' }));
    const res = await box.run(['events', 'list', '--type', 'face.*', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json().data.events.map((e: Listed) => [e.type, e.actor])).toEqual([
      ['face.webhook', { ...here, id: `webhook:${process.pid}` }],
      ['face.window', { ...here, id: `ui:${process.pid}` }],
    ]);
  });

  it('events list --host, --user and --actor keep one host, user or actor (together, and with the other filters)', async () => {
    expect(await types('--host', 'build-2.example')).toEqual(['test.who.bob', 'test.who.carol']);
    expect(await types('--user', 'carol')).toEqual(['test.who.carol']);
    expect(await types('--actor', bob.id)).toEqual(['test.who.bob']);
    expect(await types('--host', here.host, '--user', here.user)).toEqual(['test.who.here', 'test.who.gateway-here']);
    expect(await types('--host', 'build-2.example', '--user', 'bob', '--search', 'test.who')).toEqual(['test.who.bob']);
    expect(await types('--host', 'build-2.example', '--type', 'test.who.carol', '--limit', '1')).toEqual(['test.who.carol']);
    expect(await types('--user', 'nobody-here')).toEqual([]);
    // Exact: no prefix, no pattern.
    expect(await types('--host', 'build-2')).toEqual([]);
    expect(await types('--actor', 'ui:%')).toEqual([]);
  });

  it('events export takes the same filters; the human listing says who acted', async () => {
    const file = join(box.home, 'who.ndjson');
    const exported = await box.run(['events', 'export', '--output', file, '--type', 'test.who.*', '--user', 'bob', '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Listed);
    expect(lines.map((e) => [e.type, e.actor])).toEqual([['test.who.bob', bob]]);

    const human = await box.run(['events', 'list', '--type', 'test.who.*']);
    expect(human.code, human.stderr).toBe(0);
    // Columns: seq, time, type, agent, task/context, by.
    const line = (type: string) => human.stdout.split('\n').find((l) => l.split(/\s{2,}/)[2] === type) ?? '';
    expect(human.stdout.split('\n')[0]).toMatch(/\bby\b/);
    expect(line('test.who.bob')).toContain('bob@build-2.example gw1');
    expect(line('test.who.carol')).toContain('carol@build-2.example ui:4242');
    expect(line('test.who.here')).toContain(`${here.user}@${here.host} cli:${process.pid}`);
    expect(line('test.who.old')).toMatch(/ -$/);
  });
});
