/**
 * Loads the Vite-built renderer in Debian's Chromium through the web console (`missive ui --web`'s server, with its
 * real transport: the token in the URL's fragment, then `Authorization: Bearer` on fetch for invokes and on a streamed
 * fetch for events) in front of the real handler registry in this process: a real SQLite file (the sandbox's), real SDK
 * agents, no mocks.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import type { Registry } from '../../electron/core/ipc/registry.js';
import { startWebConsole } from '../../electron/core/web-console/server.js';
import type { Sandbox } from './cli.js';

export const CHROMIUM = process.env.MISSIVE_CHROMIUM ?? '/usr/bin/chromium';
/** The built renderer; MISSIVE_RENDERER_DIR points elsewhere (a build of one's own, e.g. `vite build --outDir`). */
export const RENDERER = process.env.MISSIVE_RENDERER_DIR ?? join(process.cwd(), 'dist/renderer');
export const SCREENSHOTS = join(process.cwd(), 'test/e2e/screenshots');
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export interface Gui {
  page: Page;
  browser: Browser;
  /** Where the renderer is served: the console's origin and `/`, the token gone from it. */
  url: string;
  core: Core;
  registry: Registry;
  /**
   * Saves a screenshot under test/e2e/screenshots: the whole of the view (the window never scrolls, its content pane
   * does: for the shot it is let grow to its full height), or with `{ window: true }` just what the window shows.
   */
  shot(name: string, options?: { window?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function startGui(box: Sandbox, options: { chooseDirectory?: () => string; viewport?: { width: number; height: number } } = {}): Promise<Gui> {
  if (!existsSync(join(RENDERER, 'index.html')))
    throw new Error(`${RENDERER} holds no built renderer: run \`npm run build\` first (or set MISSIVE_RENDERER_DIR)`);
  const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  const webConsole = await startWebConsole({
    core,
    cwd: box.home,
    rendererDir: RENDERER,
    host: '127.0.0.1',
    port: 0,
    tailEventsMs: 200,
    chooseDirectory: async () => options.chooseDirectory?.() ?? null,
  });
  let browser: Browser | undefined;
  const errors: string[] = [];
  const url = `${webConsole.origin}/`;
  let page: Page;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
    await page.goto(webConsole.url);
    // The page took the token from the fragment into its session storage: the token is not left in the address bar.
    await page.waitForURL(url, { timeout: 15_000 }).catch(() => {
      throw new Error(`the web console left ${page.url()} in the address bar, expected ${url}`);
    });
  } catch (error) {
    await browser?.close();
    await webConsole.close();
    core.close();
    throw error;
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    browser: browser!,
    url,
    core,
    registry: webConsole.registry,
    shot: async (name, shotOptions = {}) => {
      const path = join(SCREENSHOTS, `${name}.png`);
      if (shotOptions.window) return void (await page.screenshot({ path }));
      // Through the CSSOM: the page's CSP allows no injected <style>.
      const grow = (on: boolean) =>
        page.evaluate((grown) => {
          const app = document.querySelector<HTMLElement>('.app');
          const content = document.querySelector<HTMLElement>('.content');
          if (grown) {
            app?.style.setProperty('height', 'auto');
            app?.style.setProperty('min-height', '100vh');
            content?.style.setProperty('overflow', 'visible');
          } else {
            app?.style.removeProperty('height');
            app?.style.removeProperty('min-height');
            content?.style.removeProperty('overflow');
          }
        }, on);
      await grow(true);
      try {
        await page.screenshot({ path, fullPage: true });
      } finally {
        await grow(false);
      }
    },
    async close() {
      await browser!.close();
      await webConsole.close();
      core.close();
      if (errors.length) throw new Error(`the page logged errors:\n${errors.join('\n')}`);
    },
  };
}

/** For `expect.poll`: the element's text, or '' while it is not there yet. */
export const text = (locator: Locator) => () => locator.innerText({ timeout: 250 }).catch(() => '');
export const POLL = { timeout: 15_000, interval: 100 };
/**
 * For a one-shot read after a poll (or an action) brought the element: its text, waiting as long as a poll for it
 * to be in the page. Not `text(…)()`: on a loaded machine its 250 ms can pass before the page answers, and the
 * assertion then sees '' (a negative one passes on it).
 */
export const readText = (locator: Locator) => locator.innerText({ timeout: POLL.timeout });
