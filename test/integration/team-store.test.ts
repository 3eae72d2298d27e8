/**
 * Team mode: one PostgreSQL store shared by many hosts (here: many MISSIVE_HOMEs of the same machine, each its own
 * state directory, config and keyring). What one writes the others read; profiles stay apart; the config's own agents
 * stay with the user; a command not ported to the shared store refuses it instead of writing a local file.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, postgresAdminUrl, withAdminClient, withUrl, type FreshDatabase } from '../support/postgres.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { startEmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { randomBytes } from 'node:crypto';
import { withStorage } from '../support/store-reads.js';

let db: FreshDatabase;
let alice: Sandbox;
let bob: Sandbox;

const aliases = (result: { json(): any }) => result.json().data.agents.map((a: { alias: string }) => a.alias);
const sqliteFile = (box: Sandbox, profile = 'default') => join(box.home, `state/profiles/${profile}/missive.sqlite3`);

function writeConfig(box: Sandbox, lines: string[]): void {
  const dir = join(box.home, 'config');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.toml'), ['schema_version = "missive.config.v1"', ...lines].join('\n'));
}

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

describe('a PostgreSQL store shared by two homes', () => {
  it('shows each home the agents, groups and auth refs the other registered, and never writes a local SQLite file', async () => {
    expect((await alice.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000', '--tag', 'shared'])).code).toBe(0);
    expect((await bob.run(['auth', 'add', 'team-token', '--env', 'TEAM_TOKEN'])).code).toBe(0);
    expect((await bob.run(['agent', 'add', 'search', 'http://127.0.0.1:4001', '--auth-ref', 'team-token'])).code).toBe(0);
    expect((await alice.run(['group', 'create', 'workers', '--member', 'echo', '--member', 'search'])).code).toBe(0);

    expect(aliases(await bob.run(['agent', 'list', '--json']))).toEqual(['echo', 'search']);
    expect((await alice.run(['agent', 'show', 'search', '--json'])).json().data.agent).toMatchObject({ auth_ref: 'team-token', source: 'local' });
    const group = (await bob.run(['group', 'show', 'workers', '--json'])).json().data;
    expect(group.members.map((m: { agent_alias: string; rank: number }) => [m.agent_alias, m.rank])).toEqual([
      ['echo', 0],
      ['search', 1],
    ]);
    const refs = (await alice.run(['auth', 'list', '--json'])).json().data.auth_refs;
    expect(refs.map((r: { name: string; used_by: string[] }) => [r.name, r.used_by])).toEqual([['team-token', ['search']]]);

    // A rename by one is what the other sees next, and the group follows the agent.
    expect((await bob.run(['agent', 'rename', 'echo', 'echo2'])).code).toBe(0);
    expect(aliases(await alice.run(['agent', 'list', '--json']))).toEqual(['echo2', 'search']);
    expect((await alice.run(['group', 'show', 'workers', '--json'])).json().data.members.map((m: { agent_alias: string }) => m.agent_alias)).toEqual([
      'echo2',
      'search',
    ]);

    for (const box of [alice, bob]) expect(existsSync(sqliteFile(box))).toBe(false);
  });

  it('shows one home the task, artifacts and journal of what the other sent, and never writes a local SQLite file', async () => {
    const agent = await startEmbeddedAgent({ name: 'Tasks', behaviour: 'task' });
    try {
      expect((await alice.run(['agent', 'add', 'tasks', agent.baseUrl])).code).toBe(0);
      const sent = await alice.run(['send', 'tasks', 'summarise this', '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      const task = sent.json().data.task;
      expect(task).toMatchObject({ state: 'completed', artifacts: [{ artifact_id: 'result', version: 1 }] });

      const listed = await bob.run(['task', 'list', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.json().data.tasks).toMatchObject([{ task_id: task.task_id, agent_alias: 'tasks', state: 'completed', context_id: task.context_id }]);
      // What bob's `task get` shows (see the next test), read through the storage interface of a core of his.
      const artifacts = await withStorage(bob, (s) => s.conversation.listArtifactsOfTask(task.task_id));
      expect(artifacts).toMatchObject([{ artifact_id: 'result', name: 'result.txt', kind: 'text', version: 1 }]);

      const events = await bob.run(['events', 'list', '--type', 'a2a.send.completed', '--json']);
      expect(events.code, events.stderr).toBe(0);
      expect(events.json().data.events).toMatchObject([
        {
          type: 'a2a.send.completed',
          agent: 'tasks',
          task_id: task.task_id,
          payload: { response_shape: 'task', task: { task_id: task.task_id, state: 'completed' } },
        },
      ]);
      expect(events.stdout + listed.stdout).not.toContain(new URL(db.url).password);
    } finally {
      await agent.close();
    }
    for (const box of [alice, bob]) expect(existsSync(sqliteFile(box))).toBe(false);
  });

  it("shows one home the other's task with its artifacts in `task get`", async () => {
    const agent = await startEmbeddedAgent({ name: 'Tasks', behaviour: 'task' });
    try {
      expect((await alice.run(['agent', 'add', 'tasks', agent.baseUrl])).code).toBe(0);
      const task = (await alice.run(['send', 'tasks', 'summarise this', '--json'])).json().data.task;
      const got = await bob.run(['task', 'get', task.task_id, '--json']);
      expect(got.code, got.stderr).toBe(0);
      expect(got.json().data).toMatchObject({
        source: 'local',
        task: { task_id: task.task_id, agent_alias: 'tasks', state: 'completed' },
        artifacts: [{ artifact_id: 'result', name: 'result.txt', kind: 'text', version: 1 }],
      });
    } finally {
      await agent.close();
    }
    for (const box of [alice, bob]) expect(existsSync(sqliteFile(box))).toBe(false);
  });

  it('loses no registration when both homes register at the same time', async () => {
    const adds = [alice, bob].flatMap((box, who) =>
      Array.from({ length: 10 }, (_, i) => box.run(['agent', 'add', `a${who}-${i}`, `http://127.0.0.1:${5000 + who * 100 + i}`])),
    );
    const codes = (await Promise.all(adds)).map((r) => r.code);
    expect(codes.every((c) => c === 0)).toBe(true);
    expect(aliases(await bob.run(['agent', 'list', '--json']))).toHaveLength(20);
    // The same alias from both at once: one wins, the other is told it exists.
    const [x, y] = await Promise.all([
      alice.run(['agent', 'add', 'same', 'http://127.0.0.1:6000', '--json']),
      bob.run(['agent', 'add', 'same', 'http://127.0.0.1:6001', '--json']),
    ]);
    expect([x.code, y.code].sort()).toEqual([0, 64]);
    const loser = x.code === 64 ? x : y;
    expect(JSON.parse(loser.stderr).data.code).toBe('missive::validation::duplicate_agent');
  });

  it('keeps profiles apart inside the one database', async () => {
    for (const box of [alice, bob]) writeConfig(box, ['[profiles.alpha]', '[profiles.beta]']);
    expect((await alice.run(['--profile', 'alpha', 'agent', 'add', 'only-alpha', 'http://127.0.0.1:4000'])).code).toBe(0);
    expect((await alice.run(['--profile', 'beta', 'agent', 'add', 'only-beta', 'http://127.0.0.1:4001'])).code).toBe(0);
    expect(aliases(await bob.run(['--profile', 'alpha', 'agent', 'list', '--json']))).toEqual(['only-alpha']);
    expect(aliases(await bob.run(['--profile', 'beta', 'agent', 'list', '--json']))).toEqual(['only-beta']);
    expect(aliases(await bob.run(['agent', 'list', '--json']))).toEqual([]);
  });

  it("keeps the config's own agents with the user who wrote them, and says so", async () => {
    writeConfig(alice, ['[agents.mine]', 'base_url = "http://127.0.0.1:4100"']);
    const list = await alice.run(['agent', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(aliases(list)).toEqual([]);
    expect(list.stderr).toMatch(/seed the local SQLite store only, not the shared PostgreSQL store/);
    expect(aliases(await bob.run(['agent', 'list', '--json']))).toEqual([]);
  });

  it('refuses a command that needs the local SQLite store (exit 78), writing nothing anywhere', async () => {
    expect((await alice.run(['agent', 'add', 'echo', 'http://127.0.0.1:4000'])).code).toBe(0);
    // `demo` stays SQLite-only: its agents live in the one process that runs it.
    const probe = await alice.run(['demo', '--json']);
    expect(probe.code).toBe(78);
    const error = JSON.parse(probe.stderr).data;
    expect(error.code).toBe('missive::config::store_unsupported');
    expect(error.message).toMatch(/the demo does not run on a shared PostgreSQL store/);
    expect(probe.stderr).not.toContain(new URL(db.url).password);
    expect(existsSync(sqliteFile(alice))).toBe(false);
  });

  it('lets a long-running core (the desktop app, the web console) reach the store once it is there, without a restart', async () => {
    const name = `missive_t_${randomBytes(6).toString('hex')}`;
    const url = withUrl(postgresAdminUrl(), { database: name });
    const core = createCore({
      env: { MISSIVE_HOME: alice.home, HOME: alice.home, MISSIVE_STORE_URL: url },
      cwd: alice.home,
      secrets: createMemorySecretStore(),
    });
    try {
      await expect(core.storage()).rejects.toMatchObject({ code: 'missive::storage::store_database_missing' });
      await withAdminClient((c) => c.query(`CREATE DATABASE ${name}`));
      const storage = await core.storage();
      expect(await storage.agents.list()).toEqual([]);
    } finally {
      core.close();
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });
});
