/**
 * `missive ui --web` on a shared PostgreSQL store, as a user runs it (the built `bin/missive.js`, spawned): it starts,
 * prints its URL and serves the contract on the shared store. Its app.info names the store without the password and
 * says it is shared, so the views leave out the demo agents, which `demo.start` refuses. A second user's console (another
 * home) sees what the first registered, and neither home gets a SQLite file. The desktop app on the same store:
 * desktop-boot.test.ts; two consoles in Chromium: test/e2e/team-store.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/cli.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';

const ROOT = join(import.meta.dirname, '../..');
const RENDERER = join(ROOT, 'dist/renderer');

interface Console {
  child: ChildProcess;
  home: string;
  output: () => { stdout: string; stderr: string };
  exited: Promise<number | null>;
  invoke(channel: string, input?: object): Promise<any>;
}

const consoles: Console[] = [];
let db: FreshDatabase | undefined;

beforeAll(() => {
  expect(existsSync(join(RENDERER, 'index.html')), 'build first: npm run build (npm test does)').toBe(true);
});
afterEach(async () => {
  for (const c of consoles.splice(0)) {
    c.child.kill('SIGKILL');
    await c.exited;
    rmSync(c.home, { recursive: true, force: true });
  }
  await db?.drop();
  db = undefined;
});

function post(port: number, token: string, body: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/invoke',
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `missive ui --web --port 0` of a new home on `storeUrl`, once it printed its URL. */
async function webConsole(storeUrl: string): Promise<Console> {
  const home = mkdtempSync(join(tmpdir(), 'missive-ui-team-'));
  const env = { PATH: process.env.PATH, HOME: home, MISSIVE_HOME: home, MISSIVE_STORE_URL: storeUrl, MISSIVE_RENDERER_DIR: RENDERER };
  const child = spawn(process.execPath, [join(ROOT, 'bin/missive.js'), 'ui', '--web', '--port', '0'], { cwd: home, env });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const console: Console = {
    child,
    home,
    output: () => ({ stdout, stderr }),
    exited,
    invoke: async () => undefined,
  };
  consoles.push(console);
  const url = await Promise.race([
    until('the printed URL', () => /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(stdout)?.[0], 20_000),
    exited.then((code) => {
      throw new Error(`missive ui --web exited ${code} before printing its URL: ${stderr}`);
    }),
  ]);
  const { port, hash } = new URL(url);
  const token = new URLSearchParams(hash.slice(1)).get('token')!;
  console.invoke = (channel, input = {}) => post(Number(port), token, JSON.stringify({ channel, input }));
  return console;
}

describe('missive ui --web on a shared PostgreSQL store', () => {
  it('starts, names the store without its password, serves the shared registry to a second user, offers no demo, and writes no SQLite file', async () => {
    db = await freshPostgresUrl();
    const password = decodeURIComponent(new URL(db.url).password);
    expect(password.length).toBeGreaterThan(0);
    const alice = await webConsole(db.url);
    const bob = await webConsole(db.url);

    const info = await alice.invoke('app.info');
    expect(info).toMatchObject({ ok: true, data: { sharedStore: true } });
    expect(info.data.database).toBe(`postgres://postgres:***@${new URL(db.url).host}/${db.name} (schema missive_default)`);

    expect(await alice.invoke('agents.add', { alias: 'team-echo', baseUrl: 'http://127.0.0.1:4000' })).toMatchObject({ ok: true });
    const listed = await bob.invoke('agents.list');
    expect(listed.data.agents.map((a: { alias: string }) => a.alias)).toEqual(['team-echo']);
    expect(await bob.invoke('demo.start')).toMatchObject({ ok: false, error: { code: 'missive::config::store_unsupported' } });

    for (const c of [alice, bob]) {
      const { stdout, stderr } = c.output();
      expect(`${stdout}${stderr}`).not.toContain(password);
      expect(existsSync(join(c.home, 'state/profiles/default/missive.sqlite3'))).toBe(false);
    }
    alice.child.kill('SIGINT');
    expect(await alice.exited, alice.output().stderr).toBe(0);
  });
});
