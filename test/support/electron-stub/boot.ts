/**
 * Boots the BUILT desktop main process (dist/electron/main/index.js, `npx tsc -p tsconfig.build.json`) under plain
 * Node with the stand-in `electron` module, as `electron <root>` would, and gives the test what a user would see:
 * the stand-in's record of windows, dialogs, tray and exits, the control channel `missive ui` reads, the exit code.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const REGISTER = fileURLToPath(new URL('./register.mjs', import.meta.url));
export const APP_LAUNCHER = fileURLToPath(new URL('./app.mjs', import.meta.url));
export const BUILT_MAIN = join(ROOT, 'dist/electron/main/index.js');

export interface Report {
  event: string;
  [key: string]: any;
}

export interface BootedApp {
  pid: number;
  dir: string;
  /** Everything the stand-in recorded so far, in order. */
  reports(): Report[];
  last(event: string): Report | undefined;
  all(event: string): Report[];
  /** The one control-channel message (the JSON line `missive ui` waits for), once written. */
  control(): any;
  send(command: Record<string, unknown>): void;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  running(): boolean;
  output(): string;
  dispose(): void;
}

export interface BootOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** A shared directory (lock file, MISSIVE_HOME) for two processes standing for two launches. */
  dir?: string;
}

export function bootApp(options: BootOptions = {}): BootedApp {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'missive-desktop-'));
  const reportFile = join(dir, `reports-${Date.now()}-${Math.random().toString(16).slice(2)}.jsonl`);
  const child = spawn(process.execPath, ['--import', REGISTER, APP_LAUNCHER, ROOT, ...(options.args ?? [])], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      MISSIVE_HOME: join(dir, 'home'),
      MISSIVE_ELECTRON_STUB_HOME: dir,
      MISSIVE_ELECTRON_STUB_REPORT: reportFile,
      MISSIVE_ELECTRON_STUB_LOCK: join(dir, 'single-instance.lock'),
      MISSIVE_UI_CONTROL_FD: '3',
      ...options.env,
    },
  }) as ChildProcessWithoutNullStreams;
  let output = '';
  child.stdout.on('data', (d: Buffer) => void (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => void (output += d.toString()));
  let control = '';
  (child.stdio[3] as Readable).on('data', (d: Buffer) => void (control += d.toString()));
  let ended = false;
  // 'close': the process has ended and its pipes (the control channel too) are drained.
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      ended = true;
      resolve(code);
    }),
  );
  const reports = (): Report[] =>
    existsSync(reportFile)
      ? readFileSync(reportFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Report)
      : [];
  return {
    pid: child.pid!,
    dir,
    reports,
    last: (event) =>
      reports()
        .filter((r) => r.event === event)
        .at(-1),
    all: (event) => reports().filter((r) => r.event === event),
    control: () => (control.includes('\n') ? JSON.parse(control.slice(0, control.indexOf('\n'))) : undefined),
    send: (command) => void child.stdin.write(`${JSON.stringify(command)}\n`),
    exited,
    running: () => !ended,
    output: () => output,
    dispose: () => {
      if (!ended) child.kill('SIGKILL');
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
