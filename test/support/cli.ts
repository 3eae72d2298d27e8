/** Runs the real CLI in-process against an isolated MISSIVE_HOME and captures what a user would see. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
