/**
 * `missive mock serve` / `mock record` as child processes of the built CLI (run `npm run build` first), as a CI script
 * would launch them: the one --json document printed once it listens, read from stdout; SIGTERM to stop.
 */
import type { Sandbox } from './cli.js';
import { firstJsonDocument, jsonDocuments, spawnMissive, type MissiveProcess, type NdjsonLine } from './missive-process.js';

export interface MockProcess<T> {
  process: MissiveProcess;
  data: T;
  /** SIGTERM, then the exit code and the documents printed after the first (the shutdown report), parsed. */
  stop(): Promise<{ code: number | null; after: NdjsonLine[]; stderr: string }>;
}

export interface MockServeData {
  url: string;
  port: number;
  card_url: string;
  grpc_target: string | null;
  bindings: string[];
  versions: string[];
  agent: string;
  exchanges: number;
}

export async function spawnMock<T = MockServeData>(box: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): Promise<MockProcess<T>> {
  const child = spawnMissive([...args, '--json'], { ...box.env, ...env });
  const first = await firstJsonDocument(child, args.join(' '));
  return {
    process: child,
    data: first.data as T,
    async stop() {
      child.child.kill('SIGTERM');
      const code = await child.exited;
      return { code, after: jsonDocuments(child.stdout()).slice(1), stderr: child.stderr() };
    },
  };
}
