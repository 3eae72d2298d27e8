/**
 * The PostgreSQL store underneath the storage interface: its schema (SQLite's v12, table for table), its migrations
 * (ledger, checksums, two hosts at once, a newer or edited schema refused), and the Storage contract run against both
 * engines — the same expectations on the embedded SQLite store and on PostgreSQL — plus what only PostgreSQL has:
 * profiles as schemas of one database, and errors that name no connection detail.
 *
 * PostgreSQL is the test server of test/support/postgres.ts (vitest's globalSetup: a throw-away cluster, or the
 * server MISSIVE_TEST_PG_URL names); each describe block makes its own database and drops it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/core/store/db.js';
import { withEventSource } from '../../electron/core/store/event-source.js';
import { migratePostgres, postgresChecksum, postgresSchemaStatus, POSTGRES_SCHEMA_VERSION } from '../../electron/core/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../electron/core/store/postgres/migrations/index.js';
import { postgresStorage } from '../../electron/core/store/postgres/storage.js';
import { sqliteStorage } from '../../electron/core/store/sqlite/storage.js';
import type { Storage } from '../../electron/core/store/storage.js';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { freshPostgresUrl, ignoringIdleErrors, postgresAdminUrl, withAdminClient, withUrl, type FreshDatabase } from '../support/postgres.js';
import { postgresStoragesOfBlock } from '../support/stores.js';
import { MAX_SUMMED_COUNT } from '../../electron/core/store/statements/common.js';

/**
 * A pool as postgres/connect.ts makes one: its connections' search_path is the profile's schema. With an 'error'
 * listener, as connect.ts's has: a database dropped WITH (FORCE) while the pool holds idle connections ends them
 * (57P01), and an unheard 'error' would fail the run with every test green.
 */
const poolFor = (url: string, schema: string) => ignoringIdleErrors(new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 }));

const tmpDirs: string[] = [];
afterAll(() => tmpDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tmpDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'missive-pg-store-'));
  tmpDirs.push(dir);
  return dir;
};

/**
 * A fresh database whose default collation is ICU's en-US (not byte order: `a` < `B` < `b_1` < `b-2`), so the
 * contract's ordering expectations hold because the schema collates "C", not because the server happens to.
 */
async function freshLocaleDatabase(): Promise<FreshDatabase> {
  const name = `missive_t_${randomBytes(6).toString('hex')}_icu`;
  await withAdminClient((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`));
  return {
    name,
    url: withUrl(postgresAdminUrl(), { database: name }),
    drop: () => withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(() => undefined),
  };
}

let schemas = 0;
const newSchema = () => `missive_t${++schemas}`;

describe('PostgreSQL schema migrations', () => {
  let db: FreshDatabase;
  const pools: pg.Pool[] = [];
  const pool = (schema: string) => {
    const p = poolFor(db.url, schema);
    pools.push(p);
    return p;
  };
  beforeAll(async () => void (db = await freshPostgresUrl()));
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await db.drop();
  });

  const ledger = async (p: pg.Pool, schema: string) =>
    (await p.query(`SELECT version, name, checksum FROM "${schema}".schema_migrations ORDER BY version`)).rows as Array<{
      version: number;
      name: string;
      checksum: string;
    }>;

  it('creates the schema on a fresh database, with its ledger; the doctor’s status changes nothing', async () => {
    const schema = newSchema();
    const p = pool(schema);
    // Before: nothing there, and reading the status creates nothing.
    expect(await postgresSchemaStatus(p, schema)).toEqual({ version: 0, expected: POSTGRES_SCHEMA_VERSION, problem: null });
    expect((await p.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema])).rowCount).toBe(0);

    await migratePostgres(p, schema);
    expect(await ledger(p, schema)).toEqual(POSTGRES_MIGRATIONS.map((m) => ({ version: m.version, name: m.name, checksum: postgresChecksum(m) })));
    expect(await postgresSchemaStatus(p, schema)).toEqual({ version: POSTGRES_SCHEMA_VERSION, expected: POSTGRES_SCHEMA_VERSION, problem: null });
    // Nothing landed in public.
    expect((await p.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows).toEqual([]);
    // Migrating again is a no-op.
    await migratePostgres(p, schema);
    expect(await ledger(p, schema)).toHaveLength(POSTGRES_MIGRATIONS.length);
  });

  it('mirrors SQLite’s schema: every table, its columns in order, its foreign keys and its indexes', async () => {
    const schema = newSchema();
    const p = pool(schema);
    await migratePostgres(p, schema);
    const sqlite = openDatabase(join(tmpDir(), 'missive.sqlite'));
    try {
      const tables = (
        sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as Array<{ name: string }>
      ).map((t) => t.name);
      const pgTables = (await p.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema])).rows.map(
        (r) => r.table_name,
      );
      // PostgreSQL's own tables: the pool of gateways sharing the profile's job queue (v3).
      const pgOnlyTables = ['gateway_pool'];
      expect(pgTables.filter((t) => !pgOnlyTables.includes(t))).toEqual(tables);
      expect(pgTables).toEqual(expect.arrayContaining(pgOnlyTables));

      // PostgreSQL's own columns: SQLite's implicit rowid (history orders by it), the journal readers' transaction id.
      const pgOnly: Record<string, string[]> = { messages: ['rowid'], artifacts: ['rowid'], events: ['xact_id'] };
      for (const table of tables) {
        const columns = (sqlite.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).all(table) as Array<{ name: string }>).map((c) => c.name);
        const pgColumns = (
          await p.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [
            schema,
            table,
          ])
        ).rows.map((r) => r.column_name);
        expect(
          pgColumns.filter((c) => !pgOnly[table]?.includes(c)),
          table,
        ).toEqual(columns);
      }

      const action = { 'NO ACTION': 'a', RESTRICT: 'r', CASCADE: 'c', 'SET NULL': 'n', 'SET DEFAULT': 'd' } as Record<string, string>;
      const sqliteKeys = tables
        .flatMap((table) =>
          (
            sqlite.prepare(`SELECT * FROM pragma_foreign_key_list(?)`).all(table) as Array<{
              table: string;
              from: string;
              to: string;
              on_update: string;
              on_delete: string;
            }>
          ).map((fk) => `${table}.${fk.from} -> ${fk.table}.${fk.to} ${action[fk.on_update]}${action[fk.on_delete]}`),
        )
        .sort();
      const pgKeys = (
        await p.query(
          `SELECT c.conrelid::regclass::text AS tbl, a.attname AS col, c.confrelid::regclass::text AS ref, r.attname AS ref_col, c.confupdtype AS upd, c.confdeltype AS del
             FROM pg_constraint c
             CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k(col, ref_col)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.col
             JOIN pg_attribute r ON r.attrelid = c.confrelid AND r.attnum = k.ref_col
            WHERE c.contype = 'f' AND c.connamespace = $1::regnamespace`,
          [schema],
        )
      ).rows
        .map((k) => `${k.tbl}.${k.col} -> ${k.ref}.${k.ref_col} ${k.upd}${k.del}`)
        .sort();
      expect(pgKeys).toEqual(sqliteKeys);

      const indexes = (
        sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as Array<{ name: string }>
      ).map((i) => i.name);
      const pgIndexes = (await p.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1`, [schema])).rows.map((r) => r.indexname);
      expect(pgIndexes).toEqual(expect.arrayContaining(indexes));
    } finally {
      sqlite.close();
    }
  });

  it('two hosts starting at once migrate once: one ledger row per version', async () => {
    const schema = newSchema();
    const hosts = [pool(schema), pool(schema), pool(schema)];
    await Promise.all(hosts.map((p) => migratePostgres(p, schema)));
    expect((await ledger(hosts[0]!, schema)).map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
  });

  it('refuses a migration edited after it was applied (storage, exit 75), and the doctor says why', async () => {
    const schema = newSchema();
    const p = pool(schema);
    await migratePostgres(p, schema);
    await p.query(`UPDATE "${schema}".schema_migrations SET checksum = 'edited' WHERE version = 1`);
    const error = await migratePostgres(p, schema).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'missive::storage::migration_checksum', exitCode: 75 });
    expect((await postgresSchemaStatus(p, schema)).problem).toMatch(/migration 1 \(init\) .* was changed after it was applied/);
  });

  it('refuses a schema newer than it knows (storage::schema_too_new, exit 75), changing nothing', async () => {
    const schema = newSchema();
    const p = pool(schema);
    await migratePostgres(p, schema);
    const future = POSTGRES_SCHEMA_VERSION + 1;
    await p.query(`INSERT INTO "${schema}".schema_migrations (version, name, checksum) VALUES ($1, 'from_the_future', 'x')`, [future]);
    const error = await migratePostgres(p, schema).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'missive::storage::schema_too_new', exitCode: 75 });
    expect(String((error as Error).message)).toContain(`version ${future}`);
    expect(await postgresSchemaStatus(p, schema)).toEqual({
      version: future,
      expected: POSTGRES_SCHEMA_VERSION,
      problem: expect.stringContaining('newer than this missive understands'),
    });
    expect(await ledger(p, schema)).toHaveLength(POSTGRES_MIGRATIONS.length + 1);
  });
});

/** One engine under the contract: a fresh, empty store per test, and its raw rows for what the interface does not show. */
interface Engine {
  storage: Storage;
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  dispose(): Promise<void>;
}

const ENGINES: Record<'sqlite' | 'postgres', { setup?(): Promise<void>; teardown?(): Promise<void>; open(): Promise<Engine> }> = (() => {
  let db: FreshDatabase | undefined;
  return {
    sqlite: {
      async open() {
        const store: Store = openStore(join(tmpDir(), 'missive.sqlite'));
        return {
          storage: sqliteStorage(store),
          rows: async (sql) => store.db.prepare(sql).all() as Array<Record<string, unknown>>,
          dispose: async () => store.close(),
        };
      },
    },
    postgres: {
      setup: async () => void (db = await freshLocaleDatabase()),
      teardown: async () => db?.drop(),
      async open() {
        const schema = newSchema();
        const pool = poolFor(db!.url, schema);
        await migratePostgres(pool, schema);
        const storage = postgresStorage(pool, schema, `postgres://127.0.0.1/${db!.name} (schema ${schema})`);
        return { storage, rows: async (sql) => (await pool.query(sql)).rows, dispose: () => storage.close() };
      },
    },
  };
})();

describe.each(['sqlite', 'postgres'] as const)('the Storage contract on %s', (kind) => {
  const engine = ENGINES[kind];
  let e: Engine;
  let s: Storage;
  beforeAll(async () => engine.setup?.());
  afterAll(async () => engine.teardown?.());
  beforeEach(async () => {
    e = await engine.open();
    s = e.storage;
  });
  afterEach(async () => e.dispose());

  const agent = (alias: string, more: Partial<Parameters<Storage['agents']['insert']>[0]> = {}) => ({
    alias,
    source: 'local' as const,
    baseUrl: `http://127.0.0.1:9/${alias}`,
    ...more,
  });

  it('agents: insert, get, list in alias (byte) order, rename, remove', async () => {
    expect(s.kind).toBe(kind);
    for (const alias of ['b_1', 'a', 'B', 'b-2'])
      await s.agents.insert(agent(alias, { tags: ['t'], metadata: { k: 1 }, trustedOrigins: ['https://x.example'] }));
    const a = await s.agents.get('a');
    expect(a).toMatchObject({
      alias: 'a',
      source: 'local',
      baseUrl: 'http://127.0.0.1:9/a',
      tags: ['t'],
      metadata: { k: 1 },
      trustedOrigins: ['https://x.example'],
      allowCrossOriginAuth: false,
      readOnly: false,
      card: null,
      clientTls: null,
      cardKeys: null,
    });
    expect(a!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // SQLite compares bytes: upper case first, '-' before '_'.
    expect((await s.agents.list()).map((r) => r.alias)).toEqual(['B', 'a', 'b-2', 'b_1']);
    expect(await s.agents.source('a')).toBe('local');
    expect(await s.agents.source('nobody')).toBeUndefined();
    expect(await s.agents.get('nobody')).toBeUndefined();

    await s.agents.rename('a', 'z');
    expect(await s.agents.get('a')).toBeUndefined();
    expect(await s.agents.get('z')).toMatchObject({ alias: 'z', tags: ['t'] });
    expect(await s.agents.remove('z')).toBe(true);
    expect(await s.agents.remove('z')).toBe(false);
    expect((await s.agents.list()).map((r) => r.alias)).toEqual(['B', 'b-2', 'b_1']);
    expect(await s.agents.countTasks('B')).toBe(0);
  });

  it('agents: a seeded update keeps the cached card only while the base URL is unchanged; release makes it local', async () => {
    await s.agents.insert(agent('seed', { source: 'config_seed', readOnly: true }));
    await s.agents.storeCard('seed', { json: { name: 'card' }, url: 'http://127.0.0.1:9/seed/.well-known/agent-card.json', etag: '"e1"', lastModified: null });
    expect((await s.agents.get('seed'))!.card).toMatchObject({ json: { name: 'card' }, etag: '"e1"' });
    await s.agents.markCardValidated('seed');

    await s.agents.updateSeeded(agent('seed', { source: 'config_seed', notes: 'same URL' }));
    expect(await s.agents.get('seed')).toMatchObject({
      notes: 'same URL',
      readOnly: true,
      source: 'config_seed',
      card: { json: { name: 'card' }, etag: '"e1"' },
    });

    await s.agents.updateSeeded({ ...agent('seed', { source: 'config_seed' }), baseUrl: 'http://127.0.0.1:9/moved' });
    expect(await s.agents.get('seed')).toMatchObject({ baseUrl: 'http://127.0.0.1:9/moved', card: null });
    expect(await s.agents.seededAliases()).toEqual(['seed']);

    await s.agents.releaseSeeded('seed');
    expect(await s.agents.get('seed')).toMatchObject({ source: 'local', readOnly: false });
    expect(await s.agents.seededAliases()).toEqual([]);
  });

  it('agents: auth ref, client TLS and card keys settings; aliases by auth ref', async () => {
    await s.authRefs.upsert({
      name: 'tok',
      kind: 'env',
      source: 'local',
      headerName: 'Authorization',
      scheme: 'Bearer',
      envVar: 'TOK',
      keyringService: null,
      keyringAccount: null,
      flow: { type: 'header' },
    });
    for (const alias of ['two', 'one', 'none']) await s.agents.insert(agent(alias));
    await s.agents.setAuthRef('two', 'tok');
    await s.agents.setAuthRef('one', 'tok');
    expect(await s.agents.aliasesByAuthRef()).toEqual(new Map([['tok', ['one', 'two']]]));
    await s.agents.setClientTls('one', { certFile: '/c.pem', keyFile: '/k.pem' });
    await s.agents.setCardKeys('one', { jwksUrl: 'https://keys.example/jwks.json' });
    expect(await s.agents.get('one')).toMatchObject({
      authRefName: 'tok',
      clientTls: { certFile: '/c.pem', keyFile: '/k.pem' },
      cardKeys: { jwksUrl: 'https://keys.example/jwks.json' },
    });
    await s.agents.setClientTls('one', null);
    await s.agents.setCardKeys('one', null);
    await s.agents.setAuthRef('two', null);
    expect(await s.agents.get('one')).toMatchObject({ clientTls: null, cardKeys: null });
    expect(await s.agents.aliasesByAuthRef()).toEqual(new Map([['tok', ['one']]]));
  });

  it('auth refs: upsert, list in name order, remove (its agents keep no dangling name)', async () => {
    const ref = (name: string, envVar: string) => ({
      name,
      kind: 'env' as const,
      source: 'local' as const,
      headerName: 'Authorization',
      scheme: 'Bearer',
      envVar,
      keyringService: null,
      keyringAccount: null,
      flow: { type: 'header' as const },
    });
    await s.authRefs.upsert(ref('zed', 'ZED'));
    await s.authRefs.upsert(ref('alpha', 'ALPHA'));
    await s.authRefs.upsert({ ...ref('alpha', 'ALPHA_2'), kind: 'keyring', envVar: null, keyringService: 'missive', keyringAccount: 'alpha' });
    expect(await s.authRefs.get('alpha')).toEqual({ ...ref('alpha', 'x'), kind: 'keyring', envVar: null, keyringService: 'missive', keyringAccount: 'alpha' });
    expect((await s.authRefs.list()).map((r) => r.name)).toEqual(['alpha', 'zed']);
    await s.agents.insert(agent('user', { authRefName: 'zed' }));
    expect(await s.authRefs.remove('zed')).toBe(true);
    expect(await s.authRefs.remove('zed')).toBe(false);
    expect(await s.authRefs.get('zed')).toBeUndefined();
    expect((await s.agents.get('user'))!.authRefName).toBeNull();
  });

  it('groups: members in rank order, counts, moves, settings, removal', async () => {
    for (const alias of ['m1', 'm2', 'm3']) await s.agents.insert(agent(alias));
    await s.groups.insert({ name: 'team', routingPolicy: 'direct', notes: null, metadata: { a: 1 } });
    await s.groups.insert({ name: 'empty', routingPolicy: 'direct', notes: 'n', metadata: {} });
    await s.groups.upsertMember({ group: 'team', alias: 'm1', rank: 2 });
    await s.groups.upsertMember({ group: 'team', alias: 'm2', rank: 0, tags: ['lead'], weight: 2.5 });
    await s.groups.upsertMember({ group: 'team', alias: 'm3', rank: 1 });
    expect(await s.groups.members('team')).toEqual([
      { group_name: 'team', agent_alias: 'm2', rank: 0, tags: ['lead'], weight: 2.5 },
      { group_name: 'team', agent_alias: 'm3', rank: 1, tags: [], weight: 1 },
      { group_name: 'team', agent_alias: 'm1', rank: 2, tags: [], weight: 1 },
    ]);
    await s.groups.upsertMember({ group: 'team', alias: 'm1', rank: 5 });
    expect((await s.groups.members('team')).map((m) => [m.agent_alias, m.rank])).toEqual([
      ['m2', 0],
      ['m3', 1],
      ['m1', 5],
    ]);
    expect((await s.groups.list()).map((g) => [g.group_name, g.members])).toEqual([
      ['empty', 0],
      ['team', 3],
    ]);

    await s.groups.updateSettings('team', { routingPolicy: 'round_robin', notes: 'rotating' });
    await s.groups.updateMetadata('team', { b: 2 });
    expect(await s.groups.get('team')).toMatchObject({ group_name: 'team', routing_policy: 'round_robin', notes: 'rotating', metadata: { b: 2 } });

    expect(await s.groups.removeMember('team', 'm3')).toBe(true);
    expect(await s.groups.removeMember('team', 'm3')).toBe(false);
    await s.agents.remove('m2');
    expect((await s.groups.members('team')).map((m) => m.agent_alias)).toEqual(['m1']);
    expect(await s.groups.remove('team')).toBe(true);
    expect(await s.groups.get('team')).toBeUndefined();
    expect(await s.groups.members('team')).toEqual([]);
  });

  it('journal: an appended event is redacted in the stored row, sequenced, and sourced', async () => {
    const secret = 'sk-live-6f1d2c0a9b';
    const first = await s.journal.append(
      {
        type: 'test.secret',
        agentAlias: 'someone',
        payload: { text: `the key is ${secret}`, token: 'plain-token-value', nested: { authorization: 'Bearer abc.def' } },
        metadata: { note: `copy ${secret}` },
      },
      [secret],
    );
    expect(first).toEqual({ sequence: expect.any(Number), eventId: expect.any(String) });
    const second = await withEventSource('gui', () => s.journal.append({ type: 'test.second' }));
    expect(second!.sequence).toBeGreaterThan(first!.sequence);

    const rows = await e.rows(`SELECT * FROM events ORDER BY sequence`);
    expect(rows.map((r) => [Number(r.sequence), r.event_id, r.event_type, r.source])).toEqual([
      [first!.sequence, first!.eventId, 'test.secret', 'cli'],
      [second!.sequence, second!.eventId, 'test.second', 'gui'],
    ]);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('plain-token-value');
    expect(stored).not.toContain('abc.def');
    expect(JSON.parse(rows[0]!.payload_json as string)).toEqual({
      text: 'the key is [REDACTED]',
      token: '[REDACTED]',
      nested: { authorization: 'Bearer [REDACTED]' },
    });
    expect(JSON.parse(rows[0]!.metadata_json as string)).toEqual({ note: 'copy [REDACTED]' });
  });

  it('journal: a dedupe key seen before appends nothing and answers null', async () => {
    expect(await s.journal.append({ type: 'test.once', dedupeKey: 'k1' })).not.toBeNull();
    expect(await s.journal.append({ type: 'test.once', dedupeKey: 'k1', payload: { again: true } })).toBeNull();
    expect(await e.rows(`SELECT event_type, payload_json FROM events`)).toEqual([{ event_type: 'test.once', payload_json: '{}' }]);
  });

  it('journal: runs forged in the store (counts past any integer, negative) leave the context list answering, within bounds', async () => {
    await s.conversation.ensureContext('ctx-forged', null);
    await s.journal.append({ type: 'test.kept', contextId: 'ctx-forged' });
    for (const [last, count] of [
      [1_000_001, 2_147_483_647],
      [1_000_002, 2_147_483_647],
      [1_000_003, -5],
    ])
      await e.rows(
        `INSERT INTO journal_runs (last_sequence, first_sequence, agent_alias, context_id, types, update_count) VALUES (${last}, 1, NULL, 'ctx-forged', 1, ${count}) RETURNING last_sequence`,
      );
    const [listed] = await s.history.listContexts(10);
    expect(listed).toMatchObject({ context_id: 'ctx-forged', events: 1 + MAX_SUMMED_COUNT, messages: MAX_SUMMED_COUNT });
  });

  it('artifacts: chunk rows forged with counts past any integer leave the task’s artifacts and its context’s thread listing', async () => {
    await s.agents.insert(agent('peer'));
    await s.conversation.ensureContext('ctx-a', 'peer');
    await s.conversation.upsertTask({
      taskId: 't-a',
      agentAlias: 'peer',
      contextId: 'ctx-a',
      state: 'working',
      remoteState: null,
      protocolVersion: '1.0',
      remoteJson: {},
      lastMessageId: null,
    });
    await s.conversation.writeArtifact({
      taskId: 't-a',
      artifactId: 'a',
      contextId: 'ctx-a',
      name: null,
      mimeType: 'text/plain',
      kind: 'text',
      content: { artifactId: 'a', parts: [{ text: 'x' }] },
    });
    for (const index of [1, 2])
      await e.rows(
        `INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json, pieces) VALUES ('t-a', 'a', ${index}, '[]', 2147483647) RETURNING chunk_index`,
      );
    expect(await s.conversation.listArtifactsOfTask('t-a')).toMatchObject([{ artifact_id: 'a', chunks: MAX_SUMMED_COUNT }]);
    expect(await s.history.artifactsOfContext('ctx-a')).toMatchObject([{ artifact_id: 'a', chunks: MAX_SUMMED_COUNT }]);
  });

  it('transaction: commits together; a failure inside leaves nothing of it', async () => {
    const value = await s.transaction(async (tx) => {
      await tx.agents.insert(agent('kept'));
      await tx.journal.append({ type: 'test.kept', agentAlias: 'kept' });
      return 'done';
    });
    expect(value).toBe('done');

    const boom = new Error('boom');
    await expect(
      s.transaction(async (tx) => {
        await tx.agents.insert(agent('gone'));
        await tx.groups.insert({ name: 'gone', routingPolicy: 'direct', notes: null, metadata: {} });
        await tx.journal.append({ type: 'test.gone', agentAlias: 'gone' });
        expect(await tx.agents.get('gone')).toBeDefined();
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect((await s.agents.list()).map((a) => a.alias)).toEqual(['kept']);
    expect(await s.groups.list()).toEqual([]);
    expect((await e.rows(`SELECT event_type FROM events`)).map((r) => r.event_type)).toEqual(['test.kept']);
  });
});

describe('PostgreSQL only', () => {
  const { db, open } = postgresStoragesOfBlock();

  it('two profiles (two schemas) in one database do not see each other’s rows', async () => {
    const work = (await open('missive_work')).storage;
    const home = (await open('missive_home')).storage;
    await work.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/work' });
    await work.journal.append({ type: 'test.work' });
    expect(await home.agents.list()).toEqual([]);
    expect(await home.agents.get('echo')).toBeUndefined();
    // The same alias in the other profile is another agent.
    await home.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/home' });
    expect((await work.agents.get('echo'))!.baseUrl).toBe('http://127.0.0.1:9/work');
    expect((await home.agents.get('echo'))!.baseUrl).toBe('http://127.0.0.1:9/home');
    expect(await home.journalReads.list({})).toEqual([]);
  });

  it('a duplicate alias written by another host is the registry’s duplicate_agent, not an internal error', async () => {
    const { storage } = await open(newSchema());
    await storage.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/a' });
    await expect(storage.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/b' })).rejects.toMatchObject({
      code: 'missive::validation::duplicate_agent',
      exitCode: 64,
    });
    await storage.agents.insert({ alias: 'other', source: 'local', baseUrl: 'http://127.0.0.1:9/c' });
    await expect(storage.agents.rename('other', 'echo')).rejects.toMatchObject({ code: 'missive::validation::duplicate_agent' });
    await storage.groups.insert({ name: 'g', routingPolicy: 'direct', notes: null, metadata: {} });
    await expect(storage.groups.insert({ name: 'g', routingPolicy: 'direct', notes: null, metadata: {} })).rejects.toMatchObject({
      code: 'missive::validation::group_exists',
    });
    await storage.groups.upsertMember({ group: 'g', alias: 'echo', rank: 0 });
    await expect(storage.groups.upsertMember({ group: 'g', alias: 'other', rank: 0 })).rejects.toMatchObject({ code: 'missive::validation::rank_taken' });
  });

  it('a statement that failed inside a transaction, its error caught, rolls the whole transaction back, and says so', async () => {
    const { storage } = await open(newSchema());
    await storage.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/a' });
    await expect(
      storage.transaction(async (tx) => {
        await tx.agents.insert({ alias: 'fresh', source: 'local', baseUrl: 'http://127.0.0.1:9/f' });
        await tx.agents.insert({ alias: 'echo', source: 'local', baseUrl: 'http://127.0.0.1:9/b' }).catch(() => undefined);
      }),
    ).rejects.toMatchObject({ code: 'missive::storage::transaction_aborted', exitCode: 75 });
    expect((await storage.agents.list()).map((a) => a.alias)).toEqual(['echo']);
  });

  it('a transaction’s repositories refuse calls once it has ended (its connection is back in the pool)', async () => {
    const { storage } = await open(newSchema());
    let leaked: Parameters<Parameters<Storage['transaction']>[0]>[0] | undefined;
    await storage.transaction(async (tx) => void (leaked = tx));
    await expect(leaked!.agents.list()).rejects.toMatchObject({ code: 'missive::internal::transaction_closed' });
  });

  it('the journal is append-only: UPDATE, DELETE and TRUNCATE of events are refused; a removed context leaves its events as written', async () => {
    const schema = newSchema();
    const { storage, pool } = await open(schema);
    await pool.query(`INSERT INTO contexts (context_id) VALUES ('ctx-1')`);
    await storage.journal.append({ type: 'test.kept', contextId: 'ctx-1', payload: { n: 1 } });
    for (const sql of [`UPDATE events SET payload_json = '{}'`, `DELETE FROM events`, `TRUNCATE events`]) {
      await expect(pool.query(sql), sql).rejects.toThrow(/the event journal is append-only/);
    }
    // Since v5 (SQLite's v14) the journal names the context it was written under, as it names the agent: no foreign key.
    await pool.query(`DELETE FROM contexts WHERE context_id = 'ctx-1'`);
    expect((await pool.query(`SELECT event_type, context_id, payload_json FROM events`)).rows).toEqual([
      { event_type: 'test.kept', context_id: 'ctx-1', payload_json: '{"n":1}' },
    ]);
  });

  it('an event whose payload holds \\u0000 or a lone surrogate is stored and found by its request’s message id', async () => {
    const { storage, pool } = await open(newSchema());
    const appended = await storage.journal.append({ type: 'a2a.send.completed', payload: { message_id: 'm-1', answer: 'nul \u0000 and lone \ud800 here' } });
    expect(appended).not.toBeNull();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const lookup = `SELECT sequence FROM events WHERE event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed') AND json_text_field(payload_json, 'message_id') = $1`;
      expect((await client.query(lookup, ['m-1'])).rows.map((r) => Number(r.sequence))).toEqual([appended!.sequence]);
      const plan = (await client.query(`EXPLAIN ${lookup}`, ['m-1'])).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('idx_events_request_message');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await storage.journalReads.list({})).map((ev) => ev.payload)).toEqual([{ message_id: 'm-1', answer: 'nul \u0000 and lone \ud800 here' }]);
  });

  it('an unreachable store is a storage error that names no host, port, user or password', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const url = withUrl(db().url, { user: 'team-user', password: 'pw-3xq-secret', port });
    const pool = poolFor(url, 'missive_default');
    const storage = postgresStorage(pool, 'missive_default', 'postgres://team-user@127.0.0.1 (schema missive_default)');
    try {
      for (const call of [
        () => storage.agents.list(),
        () => storage.journal.append({ type: 'test.x' }),
        () => storage.transaction(async () => 1),
        () => migratePostgres(pool, 'missive_default'),
      ]) {
        const error = (await call().catch((e: unknown) => e)) as { code: string; exitCode: number; message: string; help?: string };
        expect(error).toMatchObject({ code: 'missive::storage::store_unreachable', exitCode: 75 });
        const said = `${error.message} ${error.help ?? ''}`;
        for (const detail of ['pw-3xq-secret', 'team-user', String(port), '127.0.0.1']) expect(said).not.toContain(detail);
      }
    } finally {
      await storage.close();
    }
  });
});
