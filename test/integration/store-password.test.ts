/**
 * The PostgreSQL store's password is a secret like an auth ref's: whichever way it is given (the URL of --store or
 * MISSIVE_STORE_URL, [store] password_env, a keyring [store] password_ref, PGPASSWORD), a message that holds it, and
 * the agent's answer echoing it, are stored and printed without it. A store URL the URL parser misreads (an unencoded
 * `#` in the password) is refused without being echoed, and a password on the command line (`ps` shows it to every
 * local user) is warned about, once. On the run's throw-away PostgreSQL cluster (test/support/postgres.ts), with a real
 * SDK agent.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, withUrl, type FreshDatabase } from '../support/postgres.js';
import { storeText } from '../support/store-reads.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { startEmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';

let agent: Awaited<ReturnType<typeof startEmbeddedAgent>>;
beforeAll(async () => (agent = await startEmbeddedAgent({ name: 'Echo', behaviour: 'echo' })));
afterAll(() => agent.close());

const boxes: Sandbox[] = [];
const databases: FreshDatabase[] = [];
afterEach(async () => {
  for (const box of boxes.splice(0)) box.dispose();
  for (const db of databases.splice(0)) await db.drop();
});

async function freshDb(): Promise<FreshDatabase> {
  const db = await freshPostgresUrl();
  databases.push(db);
  return db;
}

function box(env: NodeJS.ProcessEnv, config?: string[], secrets = createMemorySecretStore()): Sandbox {
  const made = sandbox(env, secrets);
  boxes.push(made);
  if (config) {
    mkdirSync(join(made.home, 'config'), { recursive: true });
    writeFileSync(join(made.home, 'config/config.toml'), ['schema_version = "missive.config.v1"', ...config].join('\n'));
  }
  return made;
}

const WARNING = /password in --store's URL.*ps/;

describe('the store password is a known secret', () => {
  it('is scrubbed from the stored message, the echoed answer and the output, from every source of the password', async () => {
    const cases: Array<{ name: string; make: (db: FreshDatabase) => Promise<{ box: Sandbox; args: string[] }> }> = [
      { name: 'MISSIVE_STORE_URL', make: async (db) => ({ box: box({ MISSIVE_STORE_URL: db.url }), args: [] }) },
      { name: '--store', make: async (db) => ({ box: box({}), args: ['--store', db.url] }) },
      {
        name: '[store] password_env',
        make: async (db) => ({
          box: box({ MISSIVE_STORE_URL: withUrl(db.url, { password: '' }), TEAM_PG_PW: new URL(db.url).password }, ['[store]', 'password_env = "TEAM_PG_PW"']),
          args: [],
        }),
      },
      {
        name: '[store] password_ref (keyring)',
        make: async (db) => {
          const secrets = createMemorySecretStore();
          await secrets.set('missive-pg', 'team', decodeURIComponent(new URL(db.url).password));
          const config = ['[store]', 'password_ref = "pg"', '[auth_refs.pg]', 'kind = "keyring"', 'keyring_service = "missive-pg"', 'keyring_account = "team"'];
          return { box: box({ MISSIVE_STORE_URL: withUrl(db.url, { password: '' }) }, config, secrets), args: [] };
        },
      },
      {
        name: 'PGPASSWORD',
        make: async (db) => ({ box: box({ MISSIVE_STORE_URL: withUrl(db.url, { password: '' }), PGPASSWORD: new URL(db.url).password }), args: [] }),
      },
    ];
    for (const { name, make } of cases) {
      const db = await freshDb();
      const password = decodeURIComponent(new URL(db.url).password);
      const { box: user, args } = await make(db);
      const added = await user.run([...args, 'agent', 'add', 'echo', agent.baseUrl]);
      expect(added.code, `${name}: ${added.stdout}${added.stderr}`).toBe(0);
      const sent = await user.run([...args, 'send', 'echo', `the store password is ${password}, keep it`, '--json']);
      expect(sent.code, `${name}: ${sent.stdout}${sent.stderr}`).toBe(0);
      expect(sent.stdout + sent.stderr, name).not.toContain(password);
      expect(JSON.stringify(sent.json().data), name).toContain('the store password is [REDACTED], keep it');
      // Everything the store holds (read with the full URL by another home of the same team).
      const stored = await storeText(box({ MISSIVE_STORE_URL: db.url }));
      expect(stored, name).toContain('the store password is [REDACTED], keep it');
      expect(stored, name).not.toContain(password);
      const thread = await user.run([...args, 'history', 'list', '--json']);
      expect(thread.code, `${name}: ${thread.stderr}`).toBe(0);
      expect(thread.stdout + thread.stderr, name).not.toContain(password);
    }
  });
});

describe('a store URL the URL parser misreads', () => {
  it('is refused (exit 78) without echoing it: an unencoded # in the password, from --store, MISSIVE_STORE_URL or [store] url', async () => {
    const url = 'postgres://team:1234#hunter2-store-pw@127.0.0.1:5432/missive';
    for (const [env, args, config] of [
      [{}, ['--store', url], undefined],
      [{ MISSIVE_STORE_URL: url }, [], undefined],
      [{}, [], ['[store]', `url = "${url.replace('team:1234#hunter2-store-pw@', 'team@db#hunter2-store-pw@')}"`]],
    ] as Array<[NodeJS.ProcessEnv, string[], string[] | undefined]>) {
      const user = box(env, config);
      for (const mode of [['--json'], []]) {
        const res = await user.run([...args, ...mode, 'agent', 'list']);
        expect(res.code, res.stdout + res.stderr).toBe(78);
        if (mode.length) expect(res.stdout + res.stderr).toMatch(/"code": "missive::config::(invalid_store_url|invalid_config)"/);
        expect(res.stdout + res.stderr).toContain('percent-encoded (%23, %2F, %3F, %40)');
        expect(res.stdout + res.stderr).not.toContain('hunter2');
      }
    }
  });
});

describe('a password in --store', () => {
  it('warns once on stderr that other local users can read it in ps, and names the ways that keep it out', async () => {
    const db = await freshDb();
    const user = box({});
    for (const mode of [[], ['--json']]) {
      const res = await user.run(['--store', db.url, ...mode, 'agent', 'list']);
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(res.stderr.match(new RegExp(WARNING.source, 'g')), res.stderr).toHaveLength(1);
      expect(res.stderr).toContain('MISSIVE_STORE_URL');
      expect(res.stderr).toContain('[store] password_env');
      expect(res.stdout + res.stderr).not.toContain(new URL(db.url).password);
    }
    // The same URL from the environment, or --store without a password, says nothing of the kind.
    const fromEnv = await box({ MISSIVE_STORE_URL: db.url }).run(['agent', 'list']);
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stderr).not.toMatch(WARNING);
    const bare = await box({ PGPASSWORD: new URL(db.url).password }).run(['--store', withUrl(db.url, { password: '' }), 'agent', 'list']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).not.toMatch(WARNING);
  });
});
