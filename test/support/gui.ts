/**
 * Loads the Vite-built renderer in Debian's Chromium with `window.missive` bound to the real handler registry in
 * this process: a real SQLite file (the sandbox's), real SDK agents, no mocks. The init script plays preload.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { createCore, type Core } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import type { Sandbox } from './cli.js';

export const CHROMIUM = process.env.MISSIVE_CHROMIUM ?? '/usr/bin/chromium';
/** The built renderer; MISSIVE_RENDERER_DIR points elsewhere (a build of one's own, e.g. `vite build --outDir`). */
const RENDERER = process.env.MISSIVE_RENDERER_DIR ?? join(process.cwd(), 'dist/renderer');
export const SCREENSHOTS = join(process.cwd(), 'test/e2e/screenshots');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json', '.svg': 'image/svg+xml' };

function serveRenderer(): Promise<Server> {
  if (!existsSync(join(RENDERER, 'index.html'))) throw new Error('dist/renderer is missing: run `npm run build` first');
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!)).replace(/^(\.\.[/\\])+/, '');
    const file = join(RENDERER, path === '/' ? 'index.html' : path);
    if (!file.startsWith(RENDERER) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export interface Gui {
  page: Page;
  browser: Browser;
  /** Where the renderer is served. */
  url: string;
  core: Core;
  registry: Registry;
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Plays the preload: `window.missive` over two page bindings. */
const BRIDGE = `
  (() => {
    const listeners = new Map();
    window.__missiveDispatch = (channel, payload) => (listeners.get(channel) || []).forEach((l) => l(payload));
    window.missive = Object.freeze({
      invoke: (channel, input) => window.__missiveInvoke(channel, input),
      on: (channel, listener) => {
        listeners.set(channel, [...(listeners.get(channel) || []), listener]);
        return () => listeners.set(channel, (listeners.get(channel) || []).filter((l) => l !== listener));
      },
    });
  })();
`;

export async function startGui(box: Sandbox, options: { chooseDirectory?: () => string; viewport?: { width: number; height: number } } = {}): Promise<Gui> {
  const server = await serveRenderer();
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await browser.newPage({ viewport: options.viewport ?? { width: 1280, height: 900 } });
  const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  const pending: Array<Promise<unknown>> = [];
  const registry = createRegistry({
    core,
    cwd: box.home,
    tailEventsMs: 200,
    chooseDirectory: async () => options.chooseDirectory?.() ?? null,
    emit: (channel, payload) => void pending.push(page.evaluate(([c, p]) => (window as any).__missiveDispatch(c, p), [channel, payload] as const).catch(() => undefined)),
  });
  await page.exposeBinding('__missiveInvoke', (_source, channel: string, input: unknown) => registry.invoke(channel, input));
  await page.addInitScript(BRIDGE);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
  const { port } = server.address() as AddressInfo;
  await page.goto(`http://127.0.0.1:${port}/`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    browser,
    url: `http://127.0.0.1:${port}/`,
    core,
    registry,
    shot: async (name) => void (await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })),
    async close() {
      await Promise.allSettled(pending);
      await browser.close();
      await registry.dispose();
      core.close();
      await new Promise((r) => server.close(r));
      if (errors.length) throw new Error(`the page logged errors:\n${errors.join('\n')}`);
    },
  };
}

/** For `expect.poll`: the element's text, or '' while it is not there yet. */
export const text = (locator: Locator) => () => locator.innerText({ timeout: 250 }).catch(() => '');
export const POLL = { timeout: 15_000, interval: 100 };
