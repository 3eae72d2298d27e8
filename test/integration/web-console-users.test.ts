/**
 * The web console's token against another local OS user (a throw-away account; root only, skipped otherwise with the
 * reason printed): it is on no command line of `ui --web --open` (the browser gets a redirect file only its owner
 * reads), the printed address is the one bound (nobody listening on [::1] at that port hears from the browser), and a
 * page on another 127.0.0.1 port gets nothing token-like from the console's browser and cannot lock it out with
 * cookies. Real processes: the built CLI, the built renderer in Chromium, the other user's scripts under its uid.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { startWebConsole } from '../../electron/core/web-console/server.js';
import { sandbox, until, type Sandbox } from '../support/cli.js';
import { CHROMIUM, CHROMIUM_ARGS, POLL, RENDERER, text } from '../support/gui.js';
import { spawnMissive, type MissiveProcess } from '../support/missive-process.js';
import { createOtherUser, OTHER_USER_SKIP, runAs, type OtherUser, type UserScript } from '../support/other-user.js';

const ROOT_ONLY = [
  '`ui --web --open` puts no token on any command line another local user can read, and hands the browser a redirect file only its owner can read',
  '`ui --web --host localhost` prints the address it bound: another local user listening on [::1] at that port hears nothing from the browser',
  "a page of another local user on another 127.0.0.1 port gets nothing token-like from the console's browser and cannot lock the console out with cookies",
];
if (OTHER_USER_SKIP) console.warn(`web-console-users: skipped, ${OTHER_USER_SKIP}:\n${ROOT_ONLY.map((name) => `  - ${name}`).join('\n')}`);

/** The other user's view of every process: each command line it can read, and what it gets reading a file:// path named there. */
const SCAN_PROCESSES = `
const fs = require('node:fs');
const cmdlines = [];
for (const pid of fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
  try { cmdlines.push(fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ')); } catch {}
}
const files = [];
for (const line of cmdlines) for (const m of line.matchAll(/file:\\/\\/(\\S+)/g)) {
  const path = decodeURIComponent(m[1]);
  let read;
  try { read = fs.readFileSync(path, 'utf8'); } catch (e) { read = e.code; }
  let listed;
  try { listed = fs.readdirSync(require('node:path').dirname(path)).join(','); } catch (e) { listed = e.code; }
  files.push({ path, read, listed });
}
console.log(JSON.stringify({ uid: process.getuid(), cmdlines, files }));
`;

/**
 * A web server of the other user on argv[1]:argv[2] (port 0: any): prints each request it gets (the fragment too, which
 * its page posts back), and serves a page that tosses cookies of the console's name (argv[3]) for 127.0.0.1, as any
 * page on another port can. Ends itself after two minutes at most.
 */
const LISTEN_AND_RECORD = `
const http = require('node:http');
const [host, port, cookie] = process.argv.slice(1);
const page = '<!doctype html><title>squatter</title><script>' +
  'fetch("/fragment?" + encodeURIComponent(location.hash));' +
  (cookie ? 'document.cookie = ' + JSON.stringify(cookie + '=tossed; path=/api') + '; document.cookie = ' + JSON.stringify(cookie + '=tossed; path=/') + ';' : '') +
  'document.title = "tossed";</script>';
const server = http.createServer((req, res) => {
  console.log(JSON.stringify({ request: { url: req.url, headers: req.headers } }));
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
});
server.on('error', (e) => (console.log(JSON.stringify({ error: e.code })), process.exit(1)));
server.listen(Number(port), host, () => console.log(JSON.stringify({ listening: server.address().port })));
setTimeout(() => process.exit(0), 120000);
`;

let other: OtherUser | undefined;
let box: Sandbox;
let browser: Browser | undefined;
const scripts: UserScript[] = [];
const children: MissiveProcess[] = [];
let scratch: string;

const as = (code: string, args: string[] = []) => {
  const script = runAs(other!, code, args);
  scripts.push(script);
  return script;
};

const runCli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const child = spawnMissive(args, { ...box.env, MISSIVE_RENDERER_DIR: RENDERER, ...env });
  children.push(child);
  return child;
};

/** The address `ui --web` printed for the user. */
const printedUrl = (child: MissiveProcess) => until('the printed URL', () => /missive web console: (\S+)/.exec(child.stdout())?.[1], 20_000);

/** The console answers this page: Settings shows the sandbox's journal (an API call with the token) and no error. */
async function consoleWorks(page: Page) {
  await page.getByTestId('nav-settings').click();
  await expect.poll(text(page.getByTestId('app-info')), POLL).toContain(join(box.home, 'state'));
  expect(await page.getByTestId('error-code').count()).toBe(0);
}

describe.skipIf(OTHER_USER_SKIP)('the web console token and another local user', () => {
  beforeAll(async () => {
    expect(existsSync(join(RENDERER, 'index.html')), `${RENDERER} holds no built renderer: run \`npm run build\``).toBe(true);
    other = createOtherUser();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    other?.remove();
  });
  beforeEach(() => {
    box = sandbox();
    scratch = mkdtempSync(join(tmpdir(), 'missive-users-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill();
    // Every process of the other user ends before its account is removed.
    for (const script of scripts.splice(0)) {
      script.kill();
      await script.exited;
    }
    box.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it(ROOT_ONLY[0]!, async () => {
    // A stand-in browser: writes down its pid and what it was given, and stays alive (a minute at most) as a browser does.
    const opened = join(scratch, 'opened.json');
    const standIn = join(scratch, 'browser.cjs');
    writeFileSync(
      standIn,
      `require('node:fs').writeFileSync(${JSON.stringify(opened)}, JSON.stringify({ pid: process.pid, args: process.argv.slice(2) }));\nsetTimeout(() => {}, 60000);\n`,
    );
    const cli = runCli(['ui', '--web', '--open'], { BROWSER: `${process.execPath} ${standIn}` });
    const url = await printedUrl(cli);
    const token = /token=([\w-]+)/.exec(url)?.[1];
    expect(token, url).toMatch(/^[\w-]{43}$/);
    const browserRun = await until(
      'the browser to be opened',
      () => existsSync(opened) && (JSON.parse(readFileSync(opened, 'utf8')) as { pid: number; args: string[] }),
      20_000,
    );
    try {
      const scan = as(SCAN_PROCESSES);
      expect(await scan.exited, scan.stderr()).toBe(0);
      const seen = scan.lines[0] as { uid: number; cmdlines: string[]; files: Array<{ path: string; read: string; listed: string }> };
      expect(seen.uid).toBe(other!.uid);
      // The scan does read other users' command lines: the stand-in browser's, and the console's own.
      const browserLine = seen.cmdlines.find((line) => line.includes(standIn));
      expect(browserLine, 'the stand-in browser is among the command lines read').toBeDefined();
      expect(seen.cmdlines.some((line) => line.includes('bin/missive.js ui --web --open'))).toBe(true);
      for (const line of seen.cmdlines) expect(line).not.toContain(token);
      // The browser was given a file, which the other user can neither read nor find in its directory.
      expect(browserRun.args).toHaveLength(1);
      const fileUrl = browserRun.args[0]!;
      expect(fileUrl).toMatch(/^file:\/\//);
      const file = fileURLToPath(fileUrl);
      expect(seen.files).toEqual([{ path: file, read: 'EACCES', listed: 'EACCES' }]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
      // Its owner's browser follows it to the console, and the token leaves the address bar.
      const page = await browser!.newPage();
      try {
        await page.goto(fileUrl);
        await page.waitForURL(`${new URL(url).origin}/`, POLL);
        await consoleWorks(page);
      } finally {
        await page.close();
      }
      // Stopping the console removes the file and its directory.
      cli.child.kill('SIGINT');
      expect(await cli.exited, cli.stderr()).toBe(0);
      expect(existsSync(dirname(file))).toBe(false);
    } finally {
      try {
        process.kill(browserRun.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });

  it(ROOT_ONLY[1]!, async () => {
    const cli = runCli(['ui', '--web', '--host', 'localhost']);
    const url = await printedUrl(cli);
    const { hostname, port } = new URL(url);
    expect(hostname).toBe('127.0.0.1');
    // The other user takes the same port on the IPv6 loopback, where a browser given "localhost" tries first.
    const squatter = as(LISTEN_AND_RECORD, ['::1', port]);
    await until('the squatter to listen', () => squatter.lines.find((l) => 'listening' in l || 'error' in l), 10_000);
    expect(squatter.lines[0], "the other user could not listen on [::1] at the console's port").toEqual({ listening: Number(port) });
    const page = await browser!.newPage();
    try {
      await page.goto(url);
      await page.waitForURL(`http://127.0.0.1:${port}/`, POLL);
      await consoleWorks(page);
    } finally {
      await page.close();
    }
    expect(squatter.lines.filter((l) => 'request' in l)).toEqual([]);
  });

  it(ROOT_ONLY[2]!, async () => {
    const core: Core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    const web = await startWebConsole({ core, cwd: box.home, rendererDir: RENDERER, tailEventsMs: 200 });
    const context = await browser!.newContext();
    try {
      const neighbour = as(LISTEN_AND_RECORD, ['127.0.0.1', '0', `missive_console_${web.port}`]);
      const neighbourPort = (await until('the neighbour to listen', () => neighbour.lines.find((l) => 'listening' in l), 10_000)).listening as number;
      const page = await context.newPage();
      await page.goto(web.url);
      await page.waitForURL(`${web.origin}/`, POLL);
      await consoleWorks(page);
      // The user types the other port's address into the same tab: its page runs, tosses its cookies and is done.
      await page.goto(`http://127.0.0.1:${neighbourPort}/`);
      await expect.poll(() => page.title(), POLL).toBe('tossed');
      await until('the neighbour page to report', () => neighbour.lines.some((l) => l.request?.url.startsWith('/fragment')));
      expect(
        (await context.cookies())
          .filter((c) => c.name === `missive_console_${web.port}` && c.domain === '127.0.0.1')
          .map((c) => [c.value, c.path])
          .sort(),
      ).toEqual([
        ['tossed', '/'],
        ['tossed', '/api'],
      ]);
      // Back to the console by its address, no token in it: it still works, whatever cookies 127.0.0.1 now holds.
      await page.goto(`${web.origin}/`);
      await consoleWorks(page);
      const received = JSON.stringify(neighbour.lines);
      expect(received).not.toContain(web.token);
      expect(received).not.toMatch(/missive_console_\d+=(?!tossed)/);
    } finally {
      await context.close();
      await web.close();
      core.close();
    }
  });
});
