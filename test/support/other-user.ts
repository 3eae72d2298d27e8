/**
 * Another local OS user, for the tests of what one user's processes must keep from another's: a throw-away account
 * (useradd, a unique name, no home, no login shell; userdel afterwards) and Node scripts run as it (child_process
 * spawn with its uid and gid: libuv drops root's supplementary groups). Root only: `OTHER_USER_SKIP` says why not.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';

/** Why the two-user tests cannot run here, or undefined when they can. */
export const OTHER_USER_SKIP: string | undefined =
  process.platform !== 'linux'
    ? `they need Linux (this is ${process.platform})`
    : process.getuid?.() !== 0
      ? 'they need root, to create a throw-away account (useradd) and run processes as it'
      : !['/usr/sbin/useradd', '/usr/sbin/userdel'].every((tool) => existsSync(tool))
        ? 'they need useradd and userdel (/usr/sbin)'
        : undefined;

export interface OtherUser {
  name: string;
  uid: number;
  gid: number;
  /** Deletes the account (its processes must have ended). */
  remove(): void;
}

export function createOtherUser(): OtherUser {
  // Lower case, at most 32 characters, unique per run.
  const name = `mssv${process.pid}${randomBytes(3).toString('hex')}`;
  execFileSync('/usr/sbin/useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--user-group', name], {
    stdio: 'pipe',
  });
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return {
    name,
    uid: id('-u'),
    gid: id('-g'),
    remove: () => void execFileSync('/usr/sbin/userdel', [name], { stdio: 'pipe' }),
  };
}

export interface UserScript {
  child: ChildProcess;
  /** The JSON lines the script printed so far. */
  readonly lines: any[];
  stderr(): string;
  /** Resolves with the exit code once its output is read. */
  exited: Promise<number | null>;
  kill(): void;
}

/** Runs `code` (CommonJS, `process.argv[1..]` = args) with Node as `user`; every stdout line is a JSON value. */
export function runAs(user: OtherUser, code: string, args: string[] = []): UserScript {
  const child = spawn(process.execPath, ['-e', code, '--', ...args], {
    uid: user.uid,
    gid: user.gid,
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: any[] = [];
  let pending = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) if (line.trim()) lines.push(JSON.parse(line));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => err,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
