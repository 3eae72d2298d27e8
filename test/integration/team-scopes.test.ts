/**
 * Team mode tells the shared store apart from each user's own: `config show` names the PostgreSQL store (never its
 * password) where the SQLite file would be, and `agent list` / `agent show` label the store's agents `shared`, a
 * config file's `personal`, and those of a user's own SQLite store `local`. Two homes on one throw-away database.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';

let db: FreshDatabase;
let alice: Sandbox;
let bob: Sandbox;

function writeConfig(box: Sandbox, lines: string[]): void {
  const dir = join(box.home, 'config');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.toml'), ['schema_version = "missive.config.v1"', ...lines].join('\n'));
}

const ok = async (box: Sandbox, args: string[]) => {
  const res = await box.run(args);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res;
};

beforeEach(async () => {
  db = await freshPostgresUrl();
  alice = sandbox({ MISSIVE_STORE_URL: db.url });
  bob = sandbox({ MISSIVE_STORE_URL: db.url });
});
afterEach(async () => {
  alice.dispose();
  bob.dispose();
  await db.drop();
});

describe('the shared store and a user’s own, told apart', () => {
  it('config show names the shared PostgreSQL store, without its password, not the SQLite file', async () => {
    const password = new URL(db.url).password;
    expect(password.length).toBeGreaterThan(3);
    const shown = (await ok(alice, ['config', 'show', '--json'])).json().data;
    const database = shown.values.find((v: { key: string }) => v.key === 'database');
    expect(database).toMatchObject({ source: 'env' });
    expect(database.value).toContain(`/${db.name}`);
    expect(database.value).toContain('schema missive_default');
    expect(database.value).not.toContain('missive.sqlite3');
    expect(database.from).toContain('shared PostgreSQL store');
    expect(shown.store).toMatch(/^shared PostgreSQL store postgres:\/\//);

    const human = (await ok(alice, ['config', 'show'])).stdout;
    expect(human).toMatch(/store: shared PostgreSQL store postgres:\/\/\S+:\*\*\*@/);
    expect(human).not.toContain('missive.sqlite3');
    expect(JSON.stringify(shown) + human).not.toContain(password);

    // A user's own store is the SQLite file, as before.
    const solo = sandbox();
    try {
      const own = (await ok(solo, ['config', 'show', '--json'])).json().data;
      expect(own.values.find((v: { key: string }) => v.key === 'database').value).toContain('missive.sqlite3');
      expect(own.store).toMatch(/^SQLite file /);
    } finally {
      solo.dispose();
    }
  });

  it('agent list and agent show label the shared store’s agents shared, and a user’s own store’s local', async () => {
    await ok(alice, ['agent', 'add', 'team-echo', 'http://127.0.0.1:4000']);
    const listed = (await ok(bob, ['agent', 'list', '--json'])).json().data.agents;
    expect(listed.map((a: { alias: string; scope: string }) => [a.alias, a.scope])).toEqual([['team-echo', 'shared']]);
    const table = (await ok(bob, ['agent', 'list'])).stdout;
    expect(table).toMatch(/team-echo\s+shared\s+http:\/\/127\.0\.0\.1:4000/);
    expect(table).not.toMatch(/team-echo\s+local/);
    expect((await ok(alice, ['agent', 'show', 'team-echo'])).stdout).toMatch(/source\s+shared/);

    const solo = sandbox();
    try {
      writeConfig(solo, ['[agents.mine]', 'base_url = "http://127.0.0.1:4100"']);
      await ok(solo, ['agent', 'add', 'own', 'http://127.0.0.1:4001']);
      const own = (await ok(solo, ['agent', 'list', '--json'])).json().data.agents;
      expect(own.map((a: { alias: string; scope: string }) => [a.alias, a.scope])).toEqual([
        ['mine', 'personal'],
        ['own', 'local'],
      ]);
      expect((await ok(solo, ['agent', 'list'])).stdout).toMatch(/mine\s+personal/);
    } finally {
      solo.dispose();
    }
  });
});
