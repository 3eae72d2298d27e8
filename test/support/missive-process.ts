/**
 * The built CLI (`node bin/missive.js`, run `npm run build` first) as a child process with a sandbox's environment:
 * what it printed (stdout NDJSON lines parsed as they arrive), and its exit. For the commands a test must run as a
 * process of their own: a gateway to SIGKILL, or one that must see only the environment it is given.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { until } from './cli.js';

export interface NdjsonLine {
  kind: string;
  ok: boolean;
  data: Record<string, any>;
}

export interface MissiveProcess {
  child: ChildProcess;
  /** The NDJSON lines printed so far on stdout (machine output: `--ndjson`). */
  readonly lines: NdjsonLine[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal), once its output is all read. */
  exited: Promise<number | null>;
  /** The lines of `kind`. */
  of(kind: string): NdjsonLine[];
  /** SIGKILL if it still runs (cleanup). */
  kill(): void;
}

export function spawnMissive(args: string[], env: NodeJS.ProcessEnv): MissiveProcess {
  const child = spawn(process.execPath, ['bin/missive.js', ...args], {
    cwd: process.cwd(),
    env: { ...env, PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: NdjsonLine[] = [];
  let out = '';
  let err = '';
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    pending += chunk;
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) {
      if (!line.trim()) continue;
      try {
        lines.push(JSON.parse(line) as NdjsonLine);
      } catch {
        // Not a machine line (a human warning): kept in stdout() only.
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (err += chunk));
  // 'close' comes after the pipes are drained ('exit' may come before the last lines are read).
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    lines,
    stdout: () => out,
    stderr: () => err,
    exited,
    of: (kind) => lines.filter((l) => l.kind === kind),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The JSON documents of a --json stdout (pretty, one after the other). */
export function jsonDocuments(stdout: string): NdjsonLine[] {
  return stdout
    .split(/\n(?=\{)/)
    .filter((s) => s.trim())
    .map((s) => JSON.parse(s) as NdjsonLine);
}

/**
 * The first --json document a long-running command prints (once it serves), waited for up to 20 s; an early exit
 * fails with its stderr, and a child that never prints is killed.
 */
export async function firstJsonDocument(child: MissiveProcess, what: string): Promise<NdjsonLine> {
  let exited = false;
  void child.exited.then(() => void (exited = true));
  return until(
    `${what} to print its --json document`,
    () => {
      if (exited) throw new Error(`${what} exited early: ${child.stderr()}`);
      try {
        return jsonDocuments(child.stdout())[0];
      } catch {
        return undefined; // not all of it yet
      }
    },
    20_000,
  ).catch((error: unknown) => {
    child.kill();
    throw error;
  });
}

/** Runs a command to its end: its exit code and output. */
export async function runMissive(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; lines: NdjsonLine[] }> {
  const p = spawnMissive(args, env);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr(), lines: p.lines };
}
