/**
 * `missive adapter file-drop` against a hostile inbox: file names carrying terminal escapes are shown escaped on
 * stderr; a name too long for the claim rename is answered once with an error file (not warned about every rescan);
 * a claimed file swapped for a symlink or a FIFO before it is read is refused, never read.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, until, type Sandbox } from '../support/cli.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { runFileDropAdapter, type FileDropResult } from '../../electron/core/adapters/file-drop.js';

let box: Sandbox;
let dirs: { inbox: string; outbox: string; processed: string; errors: string };

beforeEach(() => {
  box = sandbox({ NODE_ENV: 'test' });
  dirs = { inbox: join(box.home, 'in'), outbox: join(box.home, 'out'), processed: join(box.home, 'done'), errors: join(box.home, 'failed') };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: 0o700 });
});
afterEach(() => box.dispose());

const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
const reply = (name: string) => JSON.parse(readFileSync(join(dirs.outbox, name), 'utf8'));
const dirArgs = () => ['--inbox', dirs.inbox, '--outbox', dirs.outbox, '--processed', dirs.processed, '--error-dir', dirs.errors];

function drop(stem: string, content: unknown): void {
  const temp = join(dirs.inbox, `.drop.tmp`);
  writeFileSync(temp, typeof content === 'string' ? content : JSON.stringify(content));
  renameSync(temp, join(dirs.inbox, `${stem}.json`));
}

/** Every byte the adapter left in the outbox and the archives; symlinks are reported, never followed. */
function leftBytes(): string {
  let text = '';
  for (const dir of [dirs.outbox, dirs.processed, dirs.errors, dirs.inbox]) {
    for (const name of list(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) text += `\n[symlink ${path}]`;
      else if (stat.isFile()) text += `\n${readFileSync(path, 'utf8')}`;
    }
  }
  return text;
}

// Terminal controls other than the line feed ending each line: C0, DEL, C1.
// eslint-disable-next-line no-control-regex -- the test looks for raw control characters in what a user sees
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('adapter file-drop: hostile names', () => {
  it('a file name with terminal escapes is shown escaped on stderr', async () => {
    const stem = 'evil\u001b]0;pwned\u0007\u009b2J';
    // A reply already in the outbox: the adapter warns about the input by name and archives it without running.
    writeFileSync(join(dirs.outbox, `${stem}.result.json`), '{"id":"old","ok":true,"value":{}}');
    drop(stem, { id: 'x', channel: 'app.info', input: {} });
    const run = await box.run(['adapter', 'file-drop', ...dirArgs()]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('already has a reply');
    expect(run.stderr).toContain('evil\\x1b]0;pwned\\x07\\x9b2J');
    expect(run.stderr).not.toMatch(CONTROLS);
    expect(run.stdout).toBe('');
  });

  it('watch: a name too long for the claim rename gets one error reply, and no warning every rescan', async () => {
    const long = `${'x'.repeat(200)}\u001b]0;long\u0007${'y'.repeat(36)}`;
    expect(Buffer.byteLength(`${long}.json`)).toBeLessThanOrEqual(255);
    const run = launch(['--mode', 'watch']);
    drop(long, { id: 'long', channel: 'app.info', input: {} });
    const answer = await until('the long name answered', () => list(dirs.outbox).find((n) => n.endsWith('.error.json')));
    expect(answer.startsWith('x'.repeat(64))).toBe(true);
    expect(Buffer.byteLength(answer)).toBeLessThan(128);
    expect(reply(answer)).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::file_name_too_long', exit_code: 64 } });
    // Three more drops, each waited for: each starts at least one more scan of the inbox.
    for (const stem of ['n1', 'n2', 'n3']) {
      drop(stem, { id: stem, channel: 'app.info', input: {} });
      await until(`${stem} answered`, () => existsSync(join(dirs.outbox, `${stem}.result.json`)));
    }
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    // No warning at all, once or per rescan: the summary is the only line.
    expect(run.stderr()).toBe('file-drop: 3 result(s), 1 error(s), 0 recovered, 0 already answered, 0 failed\n');
    expect(list(dirs.inbox)).toEqual([]);
    expect(list(dirs.errors)).toHaveLength(1);
    expect(list(dirs.outbox).filter((n) => n.endsWith('.error.json'))).toEqual([answer]);
    expect(list(dirs.errors)[0]).toBe(answer.replace(/\.error\.json$/, '.json'));
  }, 30_000);
});

interface Run {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | string>;
}

function launch(args: string[]): Run {
  const child = spawn(process.execPath, ['bin/missive.js', 'adapter', 'file-drop', ...dirArgs(), ...args], { cwd: process.cwd(), env: box.env });
  let stderr = '';
  child.stderr!.on('data', (d) => void (stderr += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stderr: () => stderr, exited };
}

describe('adapter file-drop: a claimed file that is not a regular file', () => {
  const SECRET = 'sk-file-drop-secret-0123456789';
  let core: Core;
  let secretPath: string;
  let warnings: string[];

  beforeEach(() => {
    core = createCore({ env: { MISSIVE_HOME: box.home, HOME: box.home, PATH: process.env.PATH }, cwd: box.home, secrets: createMemorySecretStore() });
    // A secret the operator can read that is itself a valid frame: read as the input, its id would be echoed.
    secretPath = join(box.home, 'secret.json');
    writeFileSync(secretPath, JSON.stringify({ id: SECRET, channel: 'app.info', input: {} }), { mode: 0o600 });
    warnings = [];
  });

  const adapt = (afterClaim?: (path: string) => void): Promise<FileDropResult> =>
    runFileDropAdapter({ ...dirs, errorDir: dirs.errors, core, cwd: box.home, mode: 'once', warn: (line) => void warnings.push(line), afterClaim });

  it('a claim swapped for a symlink to a secret is refused, not read', async () => {
    drop('swap', { id: 'swap', channel: 'app.info', input: {} });
    const result = await adapt((claim) => {
      rmSync(claim);
      symlinkSync(secretPath, claim);
    });
    expect(result).toMatchObject({ results: 0, errors: 1, failed: 0, exitCode: 0 });
    expect(list(dirs.outbox)).toEqual(['swap.error.json']);
    const refused = reply('swap.error.json');
    expect(refused).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::not_a_regular_file', exit_code: 64 } });
    expect(refused.error.message).toContain('symbolic link');
    expect(leftBytes()).not.toContain(SECRET);
    expect(warnings.join('\n')).not.toContain(SECRET);
    // The link is removed, never archived; what it pointed at is untouched.
    expect(list(dirs.inbox)).toEqual([]);
    expect(list(dirs.errors)).toEqual([]);
    expect(readFileSync(secretPath, 'utf8')).toContain(SECRET);
  });

  it('a stale claim that is a symlink to a secret is refused at recovery, not read', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    symlinkSync(secretPath, join(dirs.inbox, `.stale.claimed-${dead}-00aa11bb22cc`));
    const result = await adapt();
    expect(result).toMatchObject({ recovered: 1, errors: 1, failed: 0 });
    expect(reply('stale.error.json')).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::not_a_regular_file' } });
    expect(leftBytes()).not.toContain(SECRET);
    expect(list(dirs.inbox)).toEqual([]);
  });

  it('a stale claim of a too-long name is answered file_name_too_long at recovery, never read', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const short = `${'z'.repeat(64)}~0123456789abcdef`;
    writeFileSync(join(dirs.inbox, `.${short}.toolong-${dead}-00aa11bb22cc`), JSON.stringify({ id: SECRET, channel: 'app.info', input: {} }));
    const result = await adapt();
    expect(result).toMatchObject({ recovered: 1, errors: 1, results: 0, failed: 0 });
    expect(reply(`${short}.error.json`)).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::file_name_too_long' } });
    expect(
      list(dirs.outbox)
        .map((n) => readFileSync(join(dirs.outbox, n), 'utf8'))
        .join(''),
    ).not.toContain(SECRET);
    expect(list(dirs.errors)).toEqual([`${short}.json`]);
    expect(list(dirs.inbox)).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('a claim swapped for a FIFO is refused without blocking on it', async () => {
    drop('fifo', { id: 'fifo', channel: 'app.info', input: {} });
    let fifo = '';
    const running = adapt((claim) => {
      rmSync(claim);
      expect(spawnSync('mkfifo', [claim]).status).toBe(0);
      fifo = claim;
    });
    try {
      await until('the FIFO answered', () => existsSync(join(dirs.outbox, 'fifo.error.json')), 5_000);
    } finally {
      // Were the adapter blocked opening the FIFO, a writer coming and going ends that read (so the worker can exit).
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader waiting (or no FIFO left): nothing to release.
      }
    }
    const result = await running;
    expect(result).toMatchObject({ errors: 1, failed: 0 });
    const refused = reply('fifo.error.json');
    expect(refused).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::not_a_regular_file' } });
    expect(refused.error.message).toContain('FIFO');
    expect(list(dirs.inbox)).toEqual([]);
  });
});
