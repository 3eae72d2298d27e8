/**
 * The web console (`missive ui --web`) against a sandbox and real SDK agents: its security (token 401, Origin and Host
 * 403, nothing served beyond loopback by default, the app's CSP, no path out of the renderer, bounded JSON-only
 * invokes, no cookie), its transport (the contract over POST, events over SSE with ordering and replay), in Chromium
 * (no cookie, another local origin changes nothing) and as the real CLI child stopping cleanly on SIGINT. Against
 * another local OS user: web-console-users.test.ts.
 */
import { spawn } from 'node:child_process';
import { request as httpRequest, createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { startWebConsole, type WebConsole } from '../../electron/core/web-console/server.js';
import { sandbox, until, type Sandbox } from '../support/cli.js';
import { closedPortUrl, startAgents } from '../support/agents.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/gui.js';

const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";
const SECRET_FILE_TEXT = 'outside the renderer: never served';

/** A renderer build in miniature: index.html with the app's CSP meta tag, one script, and a file beside the directory. */
function fakeRenderer(): { dir: string; parent: string } {
  const parent = mkdtempSync(join(tmpdir(), 'missive-web-console-'));
  const dir = join(parent, 'renderer');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}" /><title>missive</title><script type="module" src="./assets/app.js"></script></head><body><div id="root">console</div></body></html>`,
  );
  writeFileSync(join(dir, 'assets/app.js'), 'document.body.dataset.loaded = "yes";\n');
  writeFileSync(join(parent, 'secret.txt'), SECRET_FILE_TEXT);
  return { dir, parent };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json(): any;
}

/** One raw HTTP exchange: the path goes out exactly as written, headers as given (`host: null` sends none). */
function raw(port: number, path: string, options: { method?: string; headers?: Record<string, string | null>; body?: string | Buffer } = {}): Promise<Answer> {
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([, v]) => v !== null)) as Record<string, string>;
  const setHost = options.headers?.host !== null;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers, setHost }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

interface Frame {
  id: string | undefined;
  event: string | undefined;
  data: any;
}

/** An SSE reader of /api/events: every frame as it comes, until close(). */
function events(port: number, token: string, path = '/api/events'): Promise<{ frames: Frame[]; ended: () => boolean; close(): void }> {
  return new Promise((resolve, reject) => {
    const frames: Frame[] = [];
    let ended = false;
    const parser = createParser({ onEvent: (e) => frames.push({ id: e.id, event: e.event, data: JSON.parse(e.data) }) });
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`event stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('end', () => (ended = true));
      res.on('close', () => (ended = true));
      resolve({ frames, ended: () => ended, close: () => req.destroy() });
    });
    req.on('error', (error) => (frames.length ? undefined : reject(error)));
    req.end();
  });
}

const portRefused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });

let box: Sandbox;
let core: Core;
let renderer: { dir: string; parent: string };
let web: WebConsole;
let fleet: Awaited<ReturnType<typeof startAgents>>;

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' }, chunks: { behaviour: 'chunks', chunks: 3 } });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox();
  renderer = fakeRenderer();
  core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  web = await startWebConsole({ core, cwd: box.home, rendererDir: renderer.dir, tailEventsMs: 100 });
});
afterEach(async () => {
  await web.close();
  core.close();
  box.dispose();
  rmSync(renderer.parent, { recursive: true, force: true });
});

const bearer = () => ({ authorization: `Bearer ${web.token}` });
const invoke = (channel: string, input: unknown, headers: Record<string, string | null> = bearer()) =>
  raw(web.port, '/api/invoke', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ channel, input }) });

describe('web console security', () => {
  it('answers 401 to an API request without the token or with a wrong one (a cookie is none), and serves the renderer, which holds none', async () => {
    const wrong = web.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${wrong}` },
      { cookie: `missive_console_${web.port}=${web.token}` },
      { cookie: `missive_console_${web.port}=${wrong}` },
    ];
    for (const headers of attempts) {
      expect((await invoke('agents.add', { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl }, headers)).status, JSON.stringify(headers)).toBe(401);
      expect((await raw(web.port, '/api/events', { headers })).status, JSON.stringify(headers)).toBe(401);
    }
    // The page and its files are the same for everyone: no token needed, none in them, no cookie set.
    for (const headers of [{}, bearer()]) {
      const page = await raw(web.port, '/', { headers });
      expect(page.status).toBe(200);
      expect(page.body).toContain('console</div>');
      expect(page.body).not.toContain(web.token);
      expect(page.headers['set-cookie']).toBeUndefined();
    }
    // Nothing of the refused requests happened.
    expect((await invoke('agents.list', {})).json().data.agents).toEqual([]);
  });

  it('prints the address it bound with the token in the fragment, which no request carries, and sets no cookie', async () => {
    expect(web.url).toBe(`http://127.0.0.1:${web.port}/#token=${web.token}`);
    expect(web.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // What a browser asks for at that URL: the path alone. A token in the query (the old URL) is nothing either.
    for (const path of [new URL(web.url).pathname, `/?token=${web.token}`]) {
      const answer = await raw(web.port, path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['set-cookie'], path).toBeUndefined();
    }
    // A name is never printed: localhost binds 127.0.0.1 and says so; ::1 is printed as bound.
    for (const [host, printed] of [
      ['localhost', '127.0.0.1'],
      ['::1', '[::1]'],
    ] as const) {
      const other = await startWebConsole({ core, cwd: box.home, rendererDir: renderer.dir, host });
      try {
        expect(other.url).toBe(`http://${printed}:${other.port}/#token=${other.token}`);
        expect(other.origin).toBe(`http://${printed}:${other.port}`);
        expect(other.host).toBe(printed.replace(/[[\]]/g, ''));
      } finally {
        await other.close();
      }
    }
  });

  it('refuses a foreign Origin and a rebinding Host with 403, even with the token', async () => {
    const own = { ...bearer(), origin: `http://127.0.0.1:${web.port}` };
    expect((await invoke('app.info', {}, own)).status).toBe(200);
    expect((await invoke('app.info', {}, { ...bearer(), host: `localhost:${web.port}`, origin: `http://localhost:${web.port}` })).status).toBe(200);
    for (const origin of ['http://evil.example', `http://127.0.0.1:${web.port + 1}`, 'null', `https://127.0.0.1:${web.port}`]) {
      const answer = await invoke('agents.add', { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl }, { ...bearer(), origin });
      expect(answer.status, origin).toBe(403);
    }
    // DNS rebinding: evil.example now resolves to 127.0.0.1, and the browser sends its own name.
    for (const host of [`evil.example:${web.port}`, `127.0.0.1:${web.port + 1}`, 'evil.example']) {
      expect((await raw(web.port, '/', { headers: { ...bearer(), host } })).status, host).toBe(403);
      expect((await invoke('agents.add', { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl }, { ...bearer(), host })).status, host).toBe(403);
    }
    // No Host at all: node:http itself answers 400 (HTTP/1.1 requires one).
    expect((await invoke('agents.add', { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl }, { ...bearer(), host: null })).status).toBe(400);
    expect((await raw(web.port, '/', { headers: { host: `evil.example:${web.port}` } })).status).toBe(403);
    // Another local port is the same site (cookies go there) but not the same origin: the fetch metadata says so.
    expect((await invoke('app.info', {}, { ...bearer(), 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await invoke('agents.list', {})).json().data.agents).toEqual([]);
  });

  it('serves nothing on a non-loopback address by default (exit 64, no listener)', async () => {
    const port = Number(new URL(await closedPortUrl()).port);
    for (const host of ['0.0.0.0', '::']) {
      const refused = await startWebConsole({ core, cwd: box.home, rendererDir: renderer.dir, host, port }).then(
        () => null,
        (e) => e,
      );
      expect(refused).toMatchObject({ code: 'missive::validation::remote_bind', exitCode: 64 });
      expect(refused.message).toContain(`refusing to serve the web console on ${host}`);
      expect(refused.help).toContain('--allow-remote');
      expect(await portRefused(port)).toBe(true);
    }
    const cli = await box.run(['ui', '--web', '--host', '0.0.0.0', '--port', String(port)], { env: { MISSIVE_RENDERER_DIR: renderer.dir } });
    expect(cli.code).toBe(64);
    expect(cli.stderr).toContain('refusing to serve the web console on 0.0.0.0');
    expect(cli.stdout).not.toContain('http://');
    expect(await portRefused(port)).toBe(true);
  });

  it("sends the app's CSP with connect-src 'self' and the hardening headers on every answer", async () => {
    const answers = [
      await raw(web.port, '/'),
      await invoke('app.info', {}, {}),
      await raw(web.port, '/', { headers: { host: 'evil.example' } }),
      await raw(web.port, '/nothing'),
      await invoke('app.info', {}),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 403, 404, 200]);
    for (const answer of answers) {
      const csp = String(answer.headers['content-security-policy']);
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ])
        expect(csp).toContain(directive);
      expect(csp).not.toContain("connect-src 'none'");
      expect(answer.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
      });
    }
    // The page's own meta policy says the same, or it would block the page's fetch and EventSource.
    expect(answers[0]!.body).toContain("connect-src 'self'");
    expect(answers[0]!.body).not.toContain("connect-src 'none'");
  });

  it('serves no path outside the renderer directory', async () => {
    const script = await raw(web.port, '/assets/app.js', { headers: bearer() });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/assets/..%00/../secret.txt',
      '/%252e%252e/secret.txt',
    ]) {
      const answer = await raw(web.port, path, { headers: bearer() });
      expect([400, 404], path).toContain(answer.status);
      expect(answer.body, path).not.toContain(SECRET_FILE_TEXT);
    }
  });

  it('takes invokes only as POST with a JSON body of bounded size', async () => {
    const add = JSON.stringify({ channel: 'agents.add', input: { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl } });
    expect((await raw(web.port, '/api/invoke', { headers: bearer() })).status).toBe(405);
    expect((await raw(web.port, '/api/invoke', { method: 'POST', headers: { ...bearer(), 'content-type': 'text/plain' }, body: add })).status).toBe(415);
    expect((await raw(web.port, '/api/invoke', { method: 'POST', headers: bearer(), body: add })).status).toBe(415);
    expect(
      (await raw(web.port, '/api/invoke', { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{"channel":' })).status,
    ).toBe(400);
    const big = JSON.stringify({ channel: 'agents.add', input: { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl, pad: 'x'.repeat(33 * 1024 * 1024) } });
    const tooLarge = await raw(web.port, '/api/invoke', { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: big });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json().error.code).toBe('missive::validation::body_too_large');
    expect((await invoke('agents.list', {})).json().data.agents).toEqual([]);
  });
});

describe('web console transport', () => {
  it('answers the contract: app.info, agents.add then agents.list, and errors as reports', async () => {
    const info = await invoke('app.info', {});
    expect(info.status).toBe(200);
    expect(info.json()).toMatchObject({ ok: true, data: { profile: 'default', state: core.paths.state, database: core.paths.database } });
    expect((await invoke('agents.add', { alias: 'echo', baseUrl: fleet.agents.echo!.baseUrl })).json()).toMatchObject({ ok: true, data: { alias: 'echo' } });
    expect((await invoke('agents.list', {})).json().data.agents.map((a: any) => [a.alias, a.base_url])).toEqual([['echo', fleet.agents.echo!.baseUrl]]);
    const sent = (await invoke('messages.send', { agent: 'echo', inputs: { text: 'hello over http' } })).json();
    expect(sent).toMatchObject({ ok: true, data: { response_shape: 'message' } });
    expect(JSON.stringify(sent.data)).toContain('hello over http');
    expect((await invoke('no.such.channel', {})).json()).toMatchObject({ ok: false, error: { code: 'missive::validation::unknown_channel', exit_code: 64 } });
    expect((await invoke('agents.add', { alias: 'x' })).json()).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_input' } });
  });

  it('pushes events over SSE: the journal rows an invoke wrote, webhook arrivals, and stream events before the reply', async () => {
    const stream = await events(web.port, web.token);
    await until('the ready event', () => stream.frames.find((f) => f.event === 'ready'));
    await invoke('agents.add', { alias: 'chunks', baseUrl: fleet.agents.chunks!.baseUrl });
    const appended = await until('events.appended', () =>
      stream.frames.find((f) => f.data.channel === 'events.appended' && f.data.payload.events.some((e: any) => e.type === 'missive.agent.added')),
    );
    expect(Number(appended.id)).toBeGreaterThan(0);

    const webhook = (await invoke('webhook.start', { port: 0 })).json().data;
    expect((await fetch(webhook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"not":"a stream response"}' })).status).toBe(
      400,
    );
    await until('webhook.arrival', () => stream.frames.find((f) => f.data.channel === 'webhook.arrival' && f.data.payload.status === 400));
    await invoke('webhook.stop', {});

    // Order: every stream event of the call is numbered at or below the event id its reply names.
    const streamed = await invoke('messages.stream', { agent: 'chunks', inputs: { text: 'three chunks' } });
    expect(streamed.json()).toMatchObject({ ok: true });
    const replyAfter = Number(streamed.headers['x-missive-event-id']);
    const ids = stream.frames.filter((f) => f.data.channel === 'messages.stream.event').map((f) => Number(f.id));
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...ids)).toBeLessThanOrEqual(replyAfter);

    // A page that reconnects names the last event it saw and gets the rest replayed, in order.
    const again = await events(web.port, web.token, `/api/events?since=${ids[0]}`);
    const replayed = await until('the replay', () => (again.frames.some((f) => f.event === 'ready') ? again.frames : null));
    expect(replayed.filter((f) => f.data.channel === 'messages.stream.event').map((f) => Number(f.id))).toEqual(ids.slice(1));
    again.close();
    stream.close();
  });

  it('close() ends the event streams and stops listening', async () => {
    const stream = await events(web.port, web.token);
    await until('the ready event', () => stream.frames.find((f) => f.event === 'ready'));
    await web.close();
    await until('the stream to end', () => stream.ended());
    expect(await portRefused(web.port)).toBe(true);
  });
});

describe('web console in Chromium and as the CLI', () => {
  let foreign: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve())));

  it('sets no cookie in the browser, and a page of another local origin gets nothing done', async () => {
    // A page of another local server: same site as the console (cookies go along), another origin.
    const attack = `fetch(${JSON.stringify(`${web.origin}/api/invoke`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify({ channel: 'agents.add', input: { alias: 'sneaky', baseUrl: fleet.agents.echo!.baseUrl } }))} }).finally(() => (document.title = 'sent'));`;
    foreign = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>evil</title><script>${attack}</script>`),
    );
    await new Promise<void>((resolve) => foreign!.listen(0, '127.0.0.1', resolve));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(web.url);
      await expect.poll(() => page.evaluate(() => document.body.dataset.loaded ?? '')).toBe('yes');
      expect(await page.context().cookies()).toEqual([]);
      // Being on the console's origin is no authority: a call needs the token in its header.
      const status = (headers: Record<string, string>) =>
        page.evaluate(
          async (h) =>
            (
              await fetch('/api/invoke', {
                method: 'POST',
                headers: { ...h, 'content-type': 'application/json' },
                body: JSON.stringify({ channel: 'app.info', input: {} }),
              })
            ).status,
          headers,
        );
      expect(await status({})).toBe(401);
      expect(await status(bearer())).toBe(200);
      const evil = await browser.newPage();
      await evil.goto(`http://127.0.0.1:${(foreign.address() as { port: number }).port}/`);
      await expect.poll(() => evil.title()).toBe('sent');
      expect((await invoke('agents.list', {})).json().data.agents).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('runs as `missive ui --web --open`, prints the URL, opens $BROWSER on a redirect file to it and stops cleanly on SIGINT, the file removed', async () => {
    // A "browser" that writes down what it was given.
    const opened = join(renderer.parent, 'opened.txt');
    const browserScript = join(renderer.parent, 'browser.cjs');
    writeFileSync(browserScript, `require('node:fs').writeFileSync(${JSON.stringify(opened)}, process.argv.slice(2).join(' '));\n`);
    const env = { ...box.env, PATH: process.env.PATH, MISSIVE_RENDERER_DIR: renderer.dir, BROWSER: `${process.execPath} ${browserScript}` };
    const child = spawn(process.execPath, ['bin/missive.js', 'ui', '--web', '--port', '0', '--open'], { cwd: process.cwd(), env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const url = await until('the printed URL', () => /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(stdout)?.[0], 20_000);
      const { port, hash } = new URL(url);
      const token = new URLSearchParams(hash.slice(1)).get('token')!;
      const call = (headers: Record<string, string>) =>
        raw(Number(port), '/api/invoke', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ channel: 'app.info', input: {} }),
        });
      expect((await call({})).status).toBe(401);
      expect((await call({ authorization: `Bearer ${token}` })).json()).toMatchObject({ ok: true, data: { state: core.paths.state } });
      // The browser got a file, not the URL: a page that sends it on to the URL.
      const given = await until('the browser to be opened', () => existsSync(opened) && readFileSync(opened, 'utf8'));
      expect(given).toMatch(/^file:\/\/\S+\.html$/);
      expect(given).not.toContain(token);
      const file = fileURLToPath(given);
      expect(readFileSync(file, 'utf8')).toContain(`location.replace(${JSON.stringify(url)})`);
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(0);
      expect(stdout).toContain('stopped');
      expect(await portRefused(Number(port))).toBe(true);
      expect(existsSync(dirname(file))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('`ui --web --open` says once that no browser was opened: a browser command that is missing, or one that fails', async () => {
    const cases: Array<[browser: string, said: string]> = [
      [`missive-no-such-browser-${process.pid}`, 'ENOENT'],
      [`${process.execPath} -e process.exit(3)`, 'exited with 3'],
    ];
    for (const [browser, said] of cases) {
      const cli = await box.run(['ui', '--web', '--port', '0', '--open', '--timeout', '3s'], { env: { MISSIVE_RENDERER_DIR: renderer.dir, BROWSER: browser } });
      expect(cli.code, cli.stderr).toBe(0);
      const warnings = cli.stderr.split('\n').filter((line) => line.includes('warning'));
      expect(warnings, `${browser}: ${cli.stderr}`).toHaveLength(1);
      expect(warnings[0]).toContain(said);
      expect(warnings[0]).toContain('open the URL above yourself');
    }
  });

  it('names the build step when the renderer is missing (exit 69)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'missive-no-renderer-'));
    try {
      await expect(startWebConsole({ core, cwd: box.home, rendererDir: empty })).rejects.toMatchObject({ code: 'missive::io::renderer_missing', exitCode: 69 });
      const cli = await box.run(['ui', '--web'], { env: { MISSIVE_RENDERER_DIR: empty } });
      expect(cli.code).toBe(69);
      expect(cli.stderr).toContain('npm run build');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
