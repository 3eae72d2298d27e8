/**
 * `missive mock serve` / `mock record` as child processes of the built CLI (run `npm run build` first), as a CI script
 * would launch them: the one --json document printed once it listens, read from stdout; SIGTERM to stop.
 */
import { until, type Sandbox } from './cli.js';
import { spawnMissive, type MissiveProcess } from './missive-process.js';

export interface MockProcess<T> {
  process: MissiveProcess;
  data: T;
  /** SIGTERM, then the exit code and the documents printed after the first (the shutdown report), parsed. */
  stop(): Promise<{ code: number | null; after: Array<{ kind: string; ok: boolean; data: Record<string, any> }>; stderr: string }>;
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

/** The JSON documents of a --json stdout (pretty, one after the other). */
export function jsonDocuments(stdout: string): Array<{ kind: string; ok: boolean; data: Record<string, any> }> {
  return stdout
    .split(/\n(?=\{)/)
    .filter((s) => s.trim())
    .map((s) => JSON.parse(s) as { kind: string; ok: boolean; data: Record<string, any> });
}

export async function spawnMock<T = MockServeData>(box: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): Promise<MockProcess<T>> {
  const child = spawnMissive([...args, '--json'], { ...box.env, ...env });
  let exited = false;
  void child.exited.then(() => void (exited = true));
  const first = await until(
    `${args.slice(0, 2).join(' ')} to listen`,
    () => {
      if (exited) throw new Error(`${args.join(' ')} exited early: ${child.stderr()}`);
      try {
        return jsonDocuments(child.stdout())[0];
      } catch {
        return undefined;
      }
    },
    20_000,
  ).catch((error: unknown) => {
    child.kill();
    throw error;
  });
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
