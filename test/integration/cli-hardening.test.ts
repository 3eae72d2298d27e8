/**
 * Bad inputs at the edges of the CLI: integer flags out of range (exit 64), terminal control and bidi characters from
 * agents (escaped in human output, exact in JSON), artifact exports that collide or fail (nothing half-written), and
 * the modes of state and export files (0700 directories, 0600 files).
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNELS } from '../../shared/ipc/contract.js';
import { writePrivateDir } from '../../electron/core/security/private-files.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

/** ESC colour, a right-to-left override, an isolate, BEL, a carriage return and a newline that forges a line. */
const EVIL = 'ok\u001b[31mRED\u202eevil\u2066x\u0007\rover\nmissive: forged';
// eslint-disable-next-line no-control-regex -- the test looks for raw control characters in what a user sees
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let raw: RawServer;
let box: Sandbox;

const task = (id: string, artifacts: unknown[]) => ({
  task: {
    id,
    contextId: `ctx-${id}`,
    status: { state: 'TASK_STATE_COMPLETED', message: { messageId: `m-${id}`, role: 'ROLE_AGENT', parts: [{ text: EVIL }] } },
    artifacts,
  },
});

beforeAll(async () => {
  raw = await startRawServer();
  const agent = (prefix: string, answer: unknown) => {
    raw.route(`/${prefix}/.well-known/agent-card.json`, (_req, res) =>
      json(res, 200, minimalCard(`${raw.url}/${prefix}`, { name: EVIL, description: EVIL, skills: [{ id: 'echo', name: EVIL, tags: [EVIL] }] })),
    );
    raw.route(`/${prefix}/a2a/rest/message:send`, (_req, res) =>
      answer === 'error' ? json(res, 500, { error: { code: 500, message: EVIL } }) : json(res, 200, answer),
    );
  };
  agent('evil', task('evil-1', [{ artifactId: 'a1', name: EVIL, parts: [{ text: EVIL }] }]));
  agent('broken', 'error');
  agent(
    'manifest',
    task('manifest-1', [
      { artifactId: 'fake', name: 'manifest.json', parts: [{ data: { files: 'not yours' } }] },
      { artifactId: 'up', name: '../../../escape.txt', parts: [{ text: 'stay inside' }] },
      { artifactId: 'abs', name: '/etc/passwd', parts: [{ text: 'not root' }] },
      { artifactId: 'twin', name: 'notes.txt', parts: [{ text: 'one' }] },
      { artifactId: 'twin2', name: 'NOTES.txt', parts: [{ text: 'two' }] },
    ]),
  );
});
afterAll(() => raw.close());
beforeEach(async () => {
  box = sandbox();
  for (const name of ['evil', 'broken', 'manifest']) expect((await box.run(['agent', 'add', name, `${raw.url}/${name}`])).code).toBe(0);
});
afterEach(() => box.dispose());

const mode = (path: string) => statSync(path).mode & 0o777;

describe('integer flags', () => {
  it('refuses values out of range with exit 64 naming the flag and its range', async () => {
    const huge = await box.run(['events', 'list', '--limit', '99999999999999999999']);
    expect(huge.code).toBe(64);
    expect(huge.stderr).toContain('--limit must be an integer from 1 to 1000000');
    expect(huge.stderr).not.toContain('datatype mismatch');
    expect((await box.run(['events', 'list', '--limit', '0'])).code).toBe(64);
    expect((await box.run(['events', 'list', '--limit', '1000000', '--json'])).code).toBe(0);

    const port = await box.run(['webhook', 'run', '--port', '65536', '--json']);
    expect(port.code).toBe(64);
    expect(JSON.parse(port.stderr).data).toMatchObject({
      code: 'missive::validation::invalid_arguments',
      message: expect.stringContaining('--port must be an integer from 0 to 65535'),
    });
    expect((await box.run(['bcast', 'g', 'hi', '--max-concurrency', '0'])).stderr).toContain('--max-concurrency must be an integer from 1 to 10000');
    expect((await box.run(['task', 'get', 'evil-1', '--agent', 'evil', '--history-length', '99999999999999999999'])).code).toBe(64);
    expect((await box.run(['events', 'tail', '--poll-interval', 'often'])).stderr).toContain('--poll-interval must be an integer from 50 to 3600000');
    const rank = await box.run(['group', 'create', 'g', '--member', 'evil@99999999999999999999']);
    expect(rank.code).toBe(64);
    expect(rank.stderr).toContain('rank an integer from 0 to 1000000');
  });

  it('bounds the same integers on the IPC contract', () => {
    expect(CHANNELS['collectives.barrier'].input.safeParse({ group: 'g', contextId: 'c', required: 20_000 }).success).toBe(false);
    expect(CHANNELS['collectives.barrier'].input.safeParse({ group: 'g', contextId: 'c', required: 3 }).success).toBe(true);
    expect(CHANNELS['events.query'].input.safeParse({ afterSequence: 2 ** 60 }).success).toBe(false);
  });
});

describe('terminal text', () => {
  it('shows control and bidi characters from an agent as visible escapes in human output', async () => {
    const inspect = await box.run(['agent', 'inspect', 'evil']);
    expect(inspect.code).toBe(0);
    const sent = await box.run(['send', 'evil', 'hi']);
    expect(sent.code).toBe(0);
    const list = await box.run(['task', 'artifact', 'list', 'evil-1']);
    const show = await box.run(['task', 'artifact', 'show', 'evil-1', 'a1']);
    const failed = await box.run(['send', 'broken', 'hi']);
    expect(failed.code).not.toBe(0);
    for (const out of [inspect.stdout, sent.stdout, list.stdout, show.stdout, failed.stderr]) {
      expect(out).not.toMatch(RAW_CONTROL);
      expect(out).not.toMatch(/\r(?!\n)/);
    }
    // Single-line fields (a key/value, a table cell) show the newline too, so no line is forged.
    expect(inspect.stdout).toContain('ok\\x1b[31mRED\\u202eevil\\u2066x\\x07\\rover\\nmissive: forged');
    expect(list.stdout).toContain('ok\\x1b[31mRED\\u202eevil');
    expect(`${inspect.stdout}${list.stdout}`).not.toMatch(/^missive: forged/m);
    // An answer is a block: its line breaks stay, the rest is escaped.
    expect(sent.stdout).toContain('ok\\x1b[31mRED\\u202eevil\\u2066x\\x07\\rover\nmissive: forged');
    expect(failed.stderr).toContain('\\u202eevil');
    expect(
      failed.stderr
        .trimEnd()
        .split('\n')
        .every((line) => line.startsWith('missive: ') || line.startsWith('  help: ')),
    ).toBe(true);
  });

  it('keeps JSON output exact', async () => {
    const res = await box.run(['send', 'evil', 'hi', '--json']);
    expect(res.code).toBe(0);
    expect(res.json().data.response.task.status.message.parts[0].text).toBe(EVIL);
  });
});

describe('artifact export', () => {
  it('never lets an artifact take the name of the manifest, nor a path outside the directory', async () => {
    expect((await box.run(['send', 'manifest', 'hi'])).code).toBe(0);
    const res = await box.run(['task', 'artifact', 'export', 'manifest-1', '--output-dir', 'out', '--json']);
    expect(res.code).toBe(0);
    const dir = join(box.home, 'out');
    expect(readdirSync(dir).sort()).toEqual(['NOTES-2.txt', 'escape.txt', 'manifest-2.json', 'manifest.json', 'notes.txt', 'passwd.txt']);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.files.find((f: any) => f.artifact_id === 'fake').file).toBe('manifest-2.json');
    expect(JSON.parse(readFileSync(join(dir, 'manifest-2.json'), 'utf8'))).toEqual({ files: 'not yours' });
    expect(existsSync(join(box.home, 'escape.txt'))).toBe(false);
  });

  it('leaves an existing directory as it was when the export cannot complete', async () => {
    expect((await box.run(['send', 'manifest', 'hi'])).code).toBe(0);
    const dir = join(box.home, 'out');
    mkdirSync(join(dir, 'passwd.txt'), { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const res = await box.run(['task', 'artifact', 'export', 'manifest-1', '--output-dir', 'out', '--force']);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain('is not a regular file; nothing was written');
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'passwd.txt']);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('removes its staging when a write fails, creating no directory', () => {
    const target = join(box.home, 'new', 'out');
    expect(() =>
      writePrivateDir(target, [
        { name: 'a.txt', data: 'a' },
        { name: 'no/such/dir.txt', data: 'b' },
      ]),
    ).toThrow(/cannot write .*; nothing was written/);
    expect(readdirSync(box.home).filter((f) => f !== 'state' && f !== 'config')).toEqual([]);
  });
});

describe('file modes', () => {
  it('creates the state directory 0700, the database and exports 0600', async () => {
    expect((await box.run(['send', 'manifest', 'hi'])).code).toBe(0);
    const state = join(box.home, 'state');
    for (const dir of [state, join(state, 'profiles'), join(state, 'profiles', 'default')]) expect(mode(dir), dir).toBe(0o700);
    const db = join(state, 'profiles', 'default', 'missive.sqlite3');
    expect(mode(db)).toBe(0o600);
    // -wal and -shm exist while a connection is open (the last one to close removes them).
    const open = new Database(db);
    open.prepare('SELECT count(*) FROM events').get();
    try {
      expect((await box.run(['send', 'evil', 'hi'])).code).toBe(0);
      for (const file of [`${db}-wal`, `${db}-shm`]) expect(mode(file), file).toBe(0o600);
    } finally {
      open.close();
    }

    expect((await box.run(['task', 'artifact', 'export', 'manifest-1', '--output-dir', 'out'])).code).toBe(0);
    expect(mode(join(box.home, 'out'))).toBe(0o700);
    for (const f of readdirSync(join(box.home, 'out'))) expect(mode(join(box.home, 'out', f)), f).toBe(0o600);
    expect((await box.run(['task', 'artifact', 'save', 'manifest-1', 'twin', '--output', 'one.txt'])).code).toBe(0);
    expect((await box.run(['events', 'export', '--output', 'events.ndjson'])).code).toBe(0);
    expect((await box.run(['context', 'export', 'ctx-manifest-1', '--output', 'context.json'])).code).toBe(0);
    for (const f of ['one.txt', 'events.ndjson', 'context.json']) expect(mode(join(box.home, f)), f).toBe(0o600);
    expect(readdirSync(box.home).filter((f) => f.includes('.missive-'))).toEqual([]);
  });

  it('tightens state left open by an older version', async () => {
    const other = sandbox();
    try {
      const dir = join(other.home, 'state', 'profiles', 'default');
      expect((await other.run(['agent', 'add', 'evil', `${raw.url}/evil`])).code).toBe(0);
      for (const d of [join(other.home, 'state'), join(other.home, 'state', 'profiles'), dir]) chmodSync(d, 0o755);
      const db = join(dir, 'missive.sqlite3');
      for (const f of [db, `${db}-wal`, `${db}-shm`].filter(existsSync)) chmodSync(f, 0o644);
      expect((await other.run(['agent', 'list'])).code).toBe(0);
      for (const d of [join(other.home, 'state'), join(other.home, 'state', 'profiles'), dir]) expect(mode(d), d).toBe(0o700);
      for (const f of [db, `${db}-wal`, `${db}-shm`].filter(existsSync)) expect(mode(f), f).toBe(0o600);
    } finally {
      other.dispose();
    }
  });
});
