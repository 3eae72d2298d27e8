/** Runs the real CLI in-process against an isolated MISSIVE_HOME and captures what a user would see. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from '../../electron/cli/program.js';
import { createMemorySecretStore, type SecretStore } from '../../electron/core/auth/secret-store.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json(): any;
}

export interface Sandbox {
  home: string;
  env: NodeJS.ProcessEnv;
  secrets: SecretStore;
  run(args: string[], extra?: { env?: NodeJS.ProcessEnv; stdin?: string; tty?: boolean }): Promise<CliResult>;
  dispose(): void;
}

export function sandbox(env: NodeJS.ProcessEnv = {}, secrets: SecretStore = createMemorySecretStore()): Sandbox {
  const home = mkdtempSync(join(tmpdir(), 'missive-test-'));
  const baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, MISSIVE_HOME: home, ...env };
  return {
    home,
    env: baseEnv,
    secrets,
    async run(args, extra = {}) {
      let stdout = '';
      let stderr = '';
      const code = await runCli(args, {
        env: { ...baseEnv, ...extra.env },
        cwd: home,
        io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: extra.tty === true },
        secrets,
        stdin: async () => extra.stdin ?? '',
      });
      return {
        code,
        stdout,
        stderr,
        json: () => JSON.parse(stdout),
      };
    },
    dispose: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** Reads the sandbox profile's SQLite file (read-only), as a user inspecting their journal would. */
export function readDb<T>(box: Pick<Sandbox, 'home'>, fn: (db: import('better-sqlite3').Database) => T): T {
  const db = new Database(join(box.home, 'state/profiles/default/missive.sqlite3'), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Polls `probe` until it returns something truthy, or fails after `ms` naming what it waited for. */
export async function until<T>(what: string, probe: () => T | undefined | null | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** The raw bytes of the profile's SQLite files (database, -wal, -shm) as text: a secret must not be found in them. */
export function stateBytes(home: string): string {
  const dir = join(home, 'state/profiles/default');
  return readdirSync(dir)
    .filter((f) => f.startsWith('missive.sqlite3'))
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('');
}
