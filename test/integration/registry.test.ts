/**
 * The agent registry as a user drives it: add, list, show, rename, remove, config seeds, output contract. On both
 * stores: the embedded SQLite file and a shared PostgreSQL database (team mode).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { sandbox, type Sandbox } from '../support/cli.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let box: Sandbox;
let store: StoreUnderTest;

describe.each(STORES)('agent registry (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  it('adds, lists, shows, renames and removes agents, journaling each change', async () => {
    const add = await box.run([
      'agent',
      'add',
      'echo',
      'http://127.0.0.1:4000',
      '--tag',
      'demo',
      '--notes',
      'first',
      '--metadata',
      'capabilities=["summarise"]',
      '--metadata',
      'team=ops',
      '--json',
    ]);
    expect(add.code).toBe(0);
    const env = add.json();
    expect(env).toMatchObject({ schema_version: 'missive.output.v1', ok: true, kind: 'agent_add' });
    expect(env.data.agent).toMatchObject({ alias: 'echo', source: 'local', tags: ['demo'], metadata: { capabilities: ['summarise'], team: 'ops' } });

    const list = (await box.run(['agent', 'list', '--json'])).json();
    expect(list.kind).toBe('agent_list');
    expect(list.data.agents.map((a: { alias: string }) => a.alias)).toEqual(['echo']);

    expect((await box.run(['agent', 'rename', 'echo', 'echo2'])).code).toBe(0);
    expect((await box.run(['agent', 'show', 'echo'])).code).toBe(64);
    expect((await box.run(['agent', 'show', 'echo2', '--json'])).json().data.agent.notes).toBe('first');
    expect((await box.run(['agent', 'remove', 'echo2'])).code).toBe(0);
    expect((await box.run(['agent', 'list', '--json'])).json().data.count).toBe(0);

    const events = (await box.run(['events', 'list', '--type', 'missive.agent.*', '--json'])).json().data.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['missive.agent.added', 'missive.agent.renamed', 'missive.agent.removed']);
  });

  it('refuses duplicates, bad aliases and bad URLs with usage errors (exit 64)', async () => {
    await box.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000']);
    const dup = await box.run(['agent', 'add', 'echo', 'http://127.0.0.1:4001', '--json']);
    expect(dup.code).toBe(64);
    expect(JSON.parse(dup.stderr).data.code).toBe('missive::validation::duplicate_agent');
    expect((await box.run(['agent', 'add', 'Echo!', 'http://127.0.0.1:1'])).code).toBe(64);
    expect((await box.run(['agent', 'add', 'ftp', 'ftp://127.0.0.1/'])).stderr).toMatch(/must use http or https/);
    expect((await box.run(['agent', 'add', 'x', 'http://127.0.0.1:1', '--interface', 'kafka=http://127.0.0.1:2'])).code).toBe(64);
    expect((await box.run(['agent', 'add', 'y', 'http://127.0.0.1:1', '--auth-ref', 'nope'])).code).toBe(78);
  });

  it('rejects an invalid config file with exit 78 and a message naming the key', async () => {
    const file = join(box.home, 'bad.toml');
    writeFileSync(file, '[agents.x]\nbase_url = "http://127.0.0.1:1"\ncolour = "blue"\n');
    const res = await box.run(['agent', 'list', '--config', file]);
    expect(res.code).toBe(78);
    expect(res.stderr).toMatch(/agents\.x: unknown key "colour"/);
  });

  it('follows the output contract: NDJSON with a sequence, quiet wins, json+ndjson is a usage error', async () => {
    const nd = await box.run(['agent', 'list', '--ndjson']);
    expect(JSON.parse(nd.stdout.trim())).toMatchObject({ schema_version: 'missive.output.v1', ok: true, kind: 'agent_list', sequence: 0 });
    const quiet = await box.run(['agent', 'list', '--json', '--ndjson', '-q']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    const both = await box.run(['agent', 'list', '--json', '--ndjson']);
    expect(both.code).toBe(64);
    expect(JSON.parse(both.stderr)).toMatchObject({ ok: false, kind: 'error', data: { category: 'validation', exit_code: 64 } });
    const unknown = await box.run(['agent', 'frobnicate', '--json']);
    expect(unknown.code).toBe(64);
    expect(JSON.parse(unknown.stderr).data.code).toBe('missive::validation::invalid_arguments');
    expect((await box.run(['agent', 'list', '--timeout', '0s'])).code).toBe(64);
  });

  it('accepts global flags before the command as well as after it', async () => {
    const before = await box.run(['--json', 'agent', 'list']);
    expect(before.json().kind).toBe('agent_list');
  });
});

/** What only the embedded store does: it is one user's, so the config's agents are seeded into it, and it has a file lock. */
describe('agent registry (sqlite store only)', () => {
  beforeEach(() => (box = sandbox()));
  afterEach(() => box.dispose());

  it('seeds agents from the config as read-only rows', async () => {
    const dir = join(box.home, 'config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.toml'),
      [
        'schema_version = "missive.config.v1"',
        '[auth_refs.main]',
        'kind = "env"',
        'env = "MAIN_TOKEN"',
        '[agents.seeded]',
        'base_url = "http://127.0.0.1:4100"',
        'auth_ref = "main"',
        'tags = ["cfg"]',
      ].join('\n'),
    );
    const show = (await box.run(['agent', 'show', 'seeded', '--json'])).json().data.agent;
    expect(show).toMatchObject({ source: 'config_seed', read_only: true, auth_ref: 'main', tags: ['cfg'] });
    const rm = await box.run(['agent', 'remove', 'seeded', '--json']);
    expect(rm.code).toBe(78);
    expect(JSON.parse(rm.stderr).data.code).toBe('missive::config::read_only_agent');
    expect((await box.run(['agent', 'rename', 'seeded', 'other'])).code).toBe(78);

    writeFileSync(join(dir, 'config.toml'), 'schema_version = "missive.config.v1"\n');
    expect((await box.run(['agent', 'list', '--json'])).json().data.agents).toEqual([]);
  });

  it('lists agents while another process holds the write lock: without config seeds, nothing is written', async () => {
    await box.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000']);
    const other = new Database(join(box.home, 'state/profiles/default/missive.sqlite3'));
    other.exec('BEGIN IMMEDIATE');
    try {
      const list = await box.run(['agent', 'list', '--json']);
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      expect(list.json().data.agents.map((a: { alias: string }) => a.alias)).toEqual(['echo']);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});
