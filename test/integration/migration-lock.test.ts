/**
 * Migrations under a lock: ten `missive agent add` processes (the built CLI, `npm run build` first) started at once
 * on one brand-new store, each adding an agent of its own, all exit 0 and the store then lists all ten. On SQLite a
 * new MISSIVE_HOME (one check-and-apply IMMEDIATE transaction: the others wait on the busy timeout, then find the
 * schema migrated); on PostgreSQL a new, empty schema of a fresh database (the schema's advisory lock). Before the
 * lock, processes that read the ledger at once both applied migrations: "duplicate column name" (exit 70).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { runMissive, spawnMissive, type MissiveProcess } from '../support/missive-process.js';
import { STORES, storeUnderTest } from '../support/stores.js';
import { ignoringIdleErrors } from '../support/postgres.js';

/** The key missive's migrations lock on PostgreSQL for the default profile's schema (store/postgres/migrate.ts). */
const MIGRATION_LOCK = `SELECT hashtextextended('missive.migrate:missive_default', 0) AS key`;

const PROCESSES = 10;
/**
 * Brand-new stores, ten processes each. On SQLite the processes of one round collided in the migrations on about
 * every other round before the lock (the ten startups spread out on two cores): three rounds make a regression show
 * on a run rather than on some runs. On PostgreSQL the test holds the schema's migration lock itself while the ten
 * start, and sees all ten wait on it before it lets go: without the lock they would migrate past it.
 */
const ROUNDS = { sqlite: 3, postgres: 1 } as const;
/** Ten processes on two shared cores: a generous bound on one round, never a timing assertion. */
const ALL_EXITED_MS = 60_000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** Resolves with every process's exit code, or fails naming the ones still running after `ms` (and kills them). */
async function exitsOf(processes: MissiveProcess[], ms: number): Promise<Array<number | null>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const running = processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).length;
      processes.forEach((p) => p.kill());
      reject(new Error(`${running} of ${processes.length} missive processes still ran after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([Promise.all(processes.map((p) => p.exited)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(STORES)('migrations under a lock (%s store)', (kind) => {
  it('ten processes opening one brand-new store at once all succeed, and every write is kept', { timeout: ROUNDS[kind] * ALL_EXITED_MS + 30_000 }, async () => {
    for (let round = 1; round <= ROUNDS[kind]; round++) {
      const store = await storeUnderTest(kind);
      cleanups.push(() => store.release());
      const home = mkdtempSync(join(tmpdir(), 'missive-migrate-'));
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      const env = { HOME: home, MISSIVE_HOME: home, ...store.env };

      // PostgreSQL: the test takes the migration lock first, as a host migrating at that moment would.
      const holder = kind === 'postgres' ? ignoringIdleErrors(new pg.Client({ connectionString: store.env.MISSIVE_STORE_URL })) : undefined;
      if (holder) {
        await holder.connect();
        cleanups.push(() => holder.end());
        await holder.query(`SELECT pg_advisory_lock((${MIGRATION_LOCK}))`);
      }

      const aliases = Array.from({ length: PROCESSES }, (_, i) => `agent-${i + 1}`);
      const processes = aliases.map((alias, i) => spawnMissive(['agent', 'add', alias, `http://127.0.0.1:${9100 + i}/`], env));
      cleanups.push(() => processes.forEach((p) => p.kill()));
      if (holder) {
        // All ten wait on the lock (none migrates past it, none exits), then the lock is let go.
        const waiting = async () => Number((await holder.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows[0].n);
        const end = Date.now() + ALL_EXITED_MS;
        let waiters = await waiting();
        while (waiters < PROCESSES && Date.now() < end && processes.every((p) => p.child.exitCode === null)) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          waiters = await waiting();
        }
        expect(
          processes.map((p) => p.child.exitCode),
          'no process got past the held migration lock',
        ).toEqual(processes.map(() => null));
        expect(waiters, 'processes waiting on the migration lock').toBe(PROCESSES);
        await holder.query(`SELECT pg_advisory_unlock((${MIGRATION_LOCK}))`);
      }
      const codes = await exitsOf(processes, ALL_EXITED_MS);

      const failures = processes.flatMap((p, i) => (codes[i] === 0 ? [] : [`${aliases[i]}: exit ${codes[i]}: ${p.stderr().trim()}`]));
      expect(failures, `round ${round}`).toEqual([]);
      const listed = await runMissive(['agent', 'list', '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      const agents = JSON.parse(listed.stdout).data.agents as Array<{ alias: string }>;
      expect(agents.map((a) => a.alias).sort(), `round ${round}`).toEqual([...aliases].sort());
    }
  });
});
