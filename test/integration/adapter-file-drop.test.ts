/**
 * `missive adapter file-drop` as a producer sees it: `node bin/missive.js adapter file-drop` as a child process over
 * real directories, against a real SDK agent on 127.0.0.1. Once mode answers every frame with one reply file and
 * archives the inputs; an adapter SIGKILLed between claim and reply is recovered at restart without running anything
 * twice (a read frame is re-run, a send is answered `file_drop_interrupted`, a claim whose reply exists is only
 * archived); watch mode picks up a file renamed into the inbox and exits 0 on SIGTERM; two adapters on one inbox never
 * both answer a file.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { MAX_FRAME_BYTES } from '../../electron/core/adapters/frames.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let dirs: { inbox: string; outbox: string; processed: string; errors: string };

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' } });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox({ NODE_ENV: 'test' });
  await register(box, fleet.agents);
  dirs = { inbox: join(box.home, 'in'), outbox: join(box.home, 'out'), processed: join(box.home, 'done'), errors: join(box.home, 'failed') };
});
afterEach(() => box.dispose());

interface Run {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | string>;
}

function launch(args: string[] = [], env: NodeJS.ProcessEnv = {}): Run {
  const child = spawn(
    process.execPath,
    [
      'bin/missive.js',
      'adapter',
      'file-drop',
      '--inbox',
      dirs.inbox,
      '--outbox',
      dirs.outbox,
      '--processed',
      dirs.processed,
      '--error-dir',
      dirs.errors,
      ...args,
    ],
    { cwd: process.cwd(), env: { ...box.env, ...env } },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => void (stderr += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stderr: () => stderr, exited };
}

/** A producer's atomic drop: a temp file (a dotfile the adapter ignores), then a rename to `<stem>.json`. */
function drop(stem: string, content: unknown): void {
  mkdirSync(dirs.inbox, { recursive: true });
  const temp = join(dirs.inbox, `.${stem}.json.tmp`);
  writeFileSync(temp, typeof content === 'string' ? content : JSON.stringify(content));
  renameSync(temp, join(dirs.inbox, `${stem}.json`));
}

const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);
const reply = (name: string) => JSON.parse(readFileSync(join(dirs.outbox, name), 'utf8'));
const claims = () => list(dirs.inbox).filter((n) => n.includes('.claimed-'));
const sentRequests = () => readDb(box, (db) => (db.prepare(`SELECT COUNT(*) AS n FROM messages WHERE direction = 'request'`).get() as { n: number }).n);

describe('adapter file-drop', () => {
  it('once: answers every frame with one reply file, archives inputs, leaves producers’ temp files alone', async () => {
    drop('a-list', { id: 'a', channel: 'agents.list', input: {} });
    drop('b-send', { id: 'b', channel: 'messages.send', input: { agent: 'echo', inputs: { text: 'hello from a file' } } });
    drop('c-bad', '{"id": "c", "channel": ');
    drop('d-unknown', { id: 'd', channel: 'no.such.channel', input: {} });
    writeFileSync(join(dirs.inbox, '.e-writing.json.tmp'), '{"id":"e"');
    writeFileSync(join(dirs.inbox, 'notes.txt'), 'not a frame');

    const run = launch();
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain('2 result(s), 2 error(s)');

    expect(list(dirs.outbox)).toEqual(['a-list.result.json', 'b-send.result.json', 'c-bad.error.json', 'd-unknown.error.json']);
    const listed = reply('a-list.result.json');
    expect(listed).toMatchObject({ id: 'a', ok: true, events: [] });
    expect(listed.value.agents.map((a: any) => a.alias)).toEqual(['echo']);
    expect(reply('b-send.result.json')).toMatchObject({ id: 'b', ok: true, value: { response_shape: 'message' } });
    expect(reply('c-bad.error.json')).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::invalid_json', exit_code: 64 } });
    expect(reply('d-unknown.error.json')).toMatchObject({ id: 'd', ok: false, error: { category: 'validation' } });
    expect(reply('d-unknown.error.json').error.message).toContain('no.such.channel');

    expect(list(dirs.inbox)).toEqual(['.e-writing.json.tmp', 'notes.txt']);
    expect(list(dirs.processed)).toEqual(['a-list.json', 'b-send.json']);
    expect(list(dirs.errors)).toEqual(['c-bad.json', 'd-unknown.json']);
    expect(sentRequests()).toBe(1);

    // Running again answers nothing twice.
    const again = launch();
    expect(await again.exited).toBe(0);
    expect(list(dirs.outbox)).toHaveLength(4);
    expect(sentRequests()).toBe(1);
  }, 30_000);

  it('deletes an input that holds a secret once answered, instead of archiving it', async () => {
    drop('secret', { id: 'k', channel: 'auth.setSecret', input: { name: 'Not A Valid Name!', secret: 'sk-file-drop-0123456789' } });
    const run = launch();
    expect(await run.exited).toBe(0);
    expect(reply('secret.error.json')).toMatchObject({ id: 'k', ok: false, error: { category: 'validation' } });
    expect(JSON.stringify(reply('secret.error.json'))).not.toContain('sk-file-drop-0123456789');
    expect(list(dirs.errors)).toEqual([]);
    expect(list(dirs.processed)).toEqual([]);
    expect(list(dirs.inbox)).toEqual([]);
  }, 30_000);

  it('a stream frame’s reply file carries the events it caused; an oversized file gets an error unread', async () => {
    drop('s', { id: 's', channel: 'messages.stream', input: { agent: 'echo', inputs: { text: 'stream to a file' } } });
    writeFileSync(join(dirs.inbox, 'huge.json'), '');
    truncateSync(join(dirs.inbox, 'huge.json'), MAX_FRAME_BYTES + 1);
    const run = launch();
    expect(await run.exited).toBe(0);
    const streamed = reply('s.result.json');
    expect(streamed).toMatchObject({ id: 's', ok: true });
    expect(streamed.events.length).toBeGreaterThan(0);
    expect(streamed.events.length).toBe(streamed.value.events);
    expect(new Set(streamed.events.map((e: any) => e.event))).toEqual(new Set(['messages.stream.event']));
    expect(reply('huge.error.json')).toMatchObject({ id: null, ok: false, error: { code: 'missive::validation::frame_too_large' } });
    expect(list(dirs.errors)).toEqual(['huge.json']);
  }, 30_000);

  it('usage errors: a missing --outbox, the same directory twice (exit 64)', async () => {
    const missing = await box.run(['adapter', 'file-drop', '--inbox', dirs.inbox]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('--outbox');
    const same = await box.run(['adapter', 'file-drop', '--inbox', dirs.inbox, '--outbox', dirs.inbox]);
    expect(same.code).toBe(64);
    expect(same.stderr).toContain('same directory');
  });

  it('killed between claim and reply: a restart answers each input exactly once and never re-sends', async () => {
    const postsBefore = fleet.agents.echo!.requests.filter((r) => r.method === 'POST').length;
    drop('1-list', { id: 1, channel: 'agents.list', input: {} });
    drop('2-send', { id: 2, channel: 'messages.send', input: { agent: 'echo', inputs: { text: 'at most once' } } });
    // A claim of a dead adapter that had already published its reply (killed between reply and archive).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    mkdirSync(dirs.outbox, { recursive: true });
    writeFileSync(
      join(dirs.inbox, `.0-done.claimed-${dead}-00aa11bb22cc`),
      JSON.stringify({ id: 0, channel: 'messages.send', input: { agent: 'echo', inputs: { text: 'sent before' } } }),
    );
    writeFileSync(join(dirs.outbox, '0-done.result.json'), JSON.stringify({ id: 0, ok: true, value: {} }));

    const first = launch([], { MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS: '60000' });
    await until('both files claimed', () => claims().filter((n) => n.startsWith('.1-list.') || n.startsWith('.2-send.')).length === 2);
    // Recovery ran first: the claim whose reply existed is archived, not run again.
    await until('the stale claim archived', () => list(dirs.errors).includes('0-done.json'));
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(list(dirs.outbox)).toEqual(['0-done.result.json']);

    const second = launch();
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toContain('1 result(s), 1 error(s), 2 recovered');
    expect(list(dirs.outbox)).toEqual(['0-done.result.json', '1-list.result.json', '2-send.error.json']);
    expect(reply('1-list.result.json')).toMatchObject({ id: 1, ok: true, value: { agents: [{ alias: 'echo' }] } });
    const interrupted = reply('2-send.error.json');
    expect(interrupted).toMatchObject({ id: 2, ok: false, error: { code: 'missive::orchestration::file_drop_interrupted', category: 'orchestration' } });
    expect(interrupted.error.help).toContain('missive history');
    expect(reply('0-done.result.json')).toEqual({ id: 0, ok: true, value: {} });
    expect(claims()).toEqual([]);
    expect(list(dirs.inbox)).toEqual([]);
    expect(list(dirs.processed)).toEqual(['1-list.json']);
    expect(list(dirs.errors)).toEqual(['0-done.json', '2-send.json']);
    expect(sentRequests()).toBe(0);
    expect(fleet.agents.echo!.requests.filter((r) => r.method === 'POST')).toHaveLength(postsBefore);
    expect(list(dirs.outbox).filter((n) => n.startsWith('.'))).toEqual([]);
  }, 30_000);

  it('watch: answers a file dropped after start, exits 0 on SIGTERM', async () => {
    mkdirSync(dirs.inbox, { recursive: true });
    const run = launch(['--mode', 'watch']);
    drop('late', { id: 'late', channel: 'app.info', input: {} });
    await until('the reply', () => existsSync(join(dirs.outbox, 'late.result.json')));
    expect(reply('late.result.json')).toMatchObject({ id: 'late', ok: true });
    drop('later', { id: 'later', channel: 'groups.list', input: {} });
    await until('the second reply', () => existsSync(join(dirs.outbox, 'later.result.json')));
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain('2 result(s), 0 error(s)');
    expect(list(dirs.processed)).toEqual(['late.json', 'later.json']);
  }, 30_000);

  it('watch: SIGTERM while a file is in flight still answers it, then exits 0', async () => {
    mkdirSync(dirs.inbox, { recursive: true });
    const run = launch(['--mode', 'watch'], { MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS: '1500' });
    drop('inflight', { id: 7, channel: 'app.info', input: {} });
    await until('the claim', () => claims().length === 1);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(reply('inflight.result.json')).toMatchObject({ id: 7, ok: true });
    expect(list(dirs.inbox)).toEqual([]);
    expect(list(dirs.processed)).toEqual(['inflight.json']);
  }, 30_000);

  it('two adapters on one inbox never both answer a file', async () => {
    const stems = Array.from({ length: 24 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    for (const stem of stems) drop(stem, { id: stem, channel: 'agents.list', input: {} });
    const [a, b] = [launch(), launch()];
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const counts = [a, b].map((r) => Number(/(\d+) result\(s\)/.exec(r.stderr())![1]));
    expect(counts[0]! + counts[1]!).toBe(stems.length);
    expect(list(dirs.outbox)).toEqual(stems.map((s) => `${s}.result.json`));
    expect(list(dirs.processed)).toEqual(stems.map((s) => `${s}.json`));
    expect(run_warnings(a) + run_warnings(b)).toBe(0);
  }, 30_000);
});

const run_warnings = (r: Run) => (r.stderr().match(/already has a reply|appeared while it ran/g) ?? []).length;
