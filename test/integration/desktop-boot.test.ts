/**
 * The desktop app's glue, run for real: the BUILT main process (dist/electron/main, as `npm run build` or
 * `npx tsc -p tsconfig.build.json` leaves it) boots under Node with a stand-in for the `electron` module
 * (test/support/electron-stub), which records what main asks of Electron and plays the user's part (second launch,
 * closing the window, the tray menu, a page calling IPC). The Electron binary itself cannot be downloaded here.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_MAIN, ROOT, bootApp, type BootedApp } from '../support/electron-stub/boot.js';
import { freshPostgresUrl } from '../support/postgres.js';

const booted: BootedApp[] = [];
const boot = (...args: Parameters<typeof bootApp>) => {
  const app = bootApp(...args);
  booted.push(app);
  return app;
};
afterEach(() => {
  for (const app of booted.splice(0)) app.dispose();
});

beforeAll(() => {
  expect(existsSync(BUILT_MAIN), 'build first: npx tsc -p tsconfig.build.json (npm test does)').toBe(true);
});

/** Waits for the app's one control message (what `missive ui` waits for). */
const controlOf = async (app: BootedApp) => {
  await expect.poll(() => app.control() !== undefined || !app.running(), { timeout: 20_000 }).toBe(true);
  expect(app.control(), `no control message; the app printed:\n${app.output()}`).toBeDefined();
  return app.control();
};

let ref = 0;
/** Calls IPC as a page would (`frame`: our own page, a foreign iframe, another webContents, a navigated frame). */
async function invoke(app: BootedApp, channel: string, input: unknown = {}, frame = 'own') {
  const id = ++ref;
  app.send({ cmd: 'invoke', ref: id, frame, channel, input });
  await expect.poll(() => app.all('invoke-result').find((r) => r.ref === id), { timeout: 10_000 }).toBeDefined();
  return app.all('invoke-result').find((r) => r.ref === id)!.result;
}

/** The exit code, once the process ended (bounded: a process that stays is the failure). */
async function exitCode(app: BootedApp) {
  await expect.poll(() => app.running(), { timeout: 15_000 }).toBe(false);
  return app.exited;
}

const menuLabels = (app: BootedApp) => (app.last('tray-menu')?.items ?? []).map((i: { label?: string }) => i.label ?? '');

describe('the desktop main process, booted from dist/ with a stand-in electron module', () => {
  it('opens one locked-down window on the built renderer page with the built preload, then reports ready', async () => {
    const app = boot();
    expect(await controlOf(app)).toEqual({ ready: true, pid: app.pid, tray: false });

    const [window] = app.all('window');
    expect(window!.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
    });
    expect(window!.webPreferences.preload).toBe(join(ROOT, 'dist/electron/preload/index.cjs'));
    expect(window!.preloadExists).toBe(true);
    const load = app.last('load')!;
    expect(load.file).toBe(join(ROOT, 'dist/renderer/index.html'));
    expect(load.exists).toBe(true);
    expect(readFileSync(load.file, 'utf8')).toContain('Content-Security-Policy');
    // Shown only after the page loaded, and the user sees it in front.
    const events = app.reports().map((r) => r.event);
    expect(events.indexOf('show')).toBeGreaterThan(events.indexOf('load'));
    expect(events).toContain('focus');

    // The page can neither open windows nor navigate away, and every permission request is denied.
    app.send({ cmd: 'window-open', url: 'https://example.com/' });
    app.send({ cmd: 'navigate', url: 'https://example.com/' });
    app.send({ cmd: 'permission', permission: 'media' });
    await expect.poll(() => app.last('permission')).toEqual({ event: 'permission', permission: 'media', granted: false });
    expect(app.last('window-open')!.result).toEqual({ action: 'deny' });
    expect(app.last('navigate')!.prevented).toBe(true);
  });

  it("answers IPC from the app's own page and refuses every other frame without running the handler", async () => {
    const app = boot();
    await controlOf(app);
    const info = await invoke(app, 'app.info');
    expect(info.ok).toBe(true);
    expect(info.data.state).toBe(join(app.dir, 'home/state/profiles/default'));

    for (const frame of ['foreign-iframe', 'own-file-subframe', 'navigated', 'other-contents']) {
      const refused = await invoke(app, 'webhook.start', {}, frame);
      expect(refused, frame).toMatchObject({ ok: false, error: { code: 'missive::validation::untrusted_sender' } });
    }
    // The refused webhook.start calls did not start anything.
    expect((await invoke(app, 'webhook.status')).data.listening).toBe(false);
  });

  it('brings the running window back on a second launch, restored if minimized; the second process quits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'missive-desktop-'));
    try {
      const first = boot({ dir });
      await controlOf(first);
      first.send({ cmd: 'minimize' });
      await expect.poll(() => first.last('minimize')).toBeDefined();

      // A real second process: it cannot take the lock, tells `missive ui` so, and quits at once.
      const second = boot({ dir });
      expect(await controlOf(second)).toEqual({ ready: true, pid: second.pid, existing: true });
      expect(await exitCode(second)).toBe(0);
      expect(second.all('window')).toEqual([]);

      // Electron then tells the first instance; it restores, shows and focuses its window.
      const before = first.reports().length;
      first.send({ cmd: 'second-instance' });
      await expect
        .poll(() =>
          first
            .reports()
            .slice(before)
            .map((r) => r.event),
        )
        .toEqual(['restore', 'show', 'focus']);
      expect(first.running()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('quits when the last window is closed without --tray (exit 0, lock freed)', async () => {
    const app = boot();
    await controlOf(app);
    app.send({ cmd: 'close-window' });
    expect(await exitCode(app)).toBe(0);
    expect(app.last('window-closed')).toBeDefined();
    expect(existsSync(join(app.dir, 'single-instance.lock'))).toBe(false);
  });

  it('with --tray starts hidden with the receiver on and a visible icon; closing hides to the tray, whose Quit quits', async () => {
    const app = boot({ args: ['--tray'] });
    expect(await controlOf(app)).toEqual({ ready: true, pid: app.pid, tray: true });
    expect(app.all('window')[0]!.show).toBe(false);
    expect(app.all('show')).toEqual([]);

    // The icon main loads is a real PNG with visible pixels, at a tray size.
    const tray = app.last('tray')!;
    expect(tray.image).toBe(join(ROOT, 'build/icons', process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png'));
    expect(tray.empty).toBe(false);
    const png = PNG.sync.read(readFileSync(tray.image));
    expect([16, 32]).toContain(png.width);
    let visible = 0;
    for (let i = 3; i < png.data.length; i += 4) if (png.data[i]! >= 128) visible++;
    expect(visible / (png.width * png.height)).toBeGreaterThan(0.1);

    await expect.poll(() => menuLabels(app)[0]).toBe('Receiver on');
    expect(menuLabels(app)[1]).toMatch(/^Listening on http:\/\/127\.0\.0\.1:\d+\//);

    app.send({ cmd: 'tray-click', label: 'Open missive' });
    await expect.poll(() => app.all('show').length).toBe(1);
    app.send({ cmd: 'close-window' });
    await expect.poll(() => app.all('hide').length).toBe(1);
    // A click on the icon brings it back too; closing again hides it again.
    app.send({ cmd: 'tray-icon-click' });
    await expect.poll(() => app.all('show').length).toBe(2);
    app.send({ cmd: 'close-window' });
    await expect.poll(() => app.all('hide').length).toBe(2);
    expect(app.last('close-prevented')).toBeDefined();
    // Still running and answering after the window closed.
    expect((await invoke(app, 'app.info')).ok).toBe(true);
    expect(app.running()).toBe(true);

    app.send({ cmd: 'tray-click', label: 'Quit missive' });
    expect(await exitCode(app)).toBe(0);
    expect(app.last('tray-destroyed')).toBeDefined();
  });

  it('keeps the tray menu in step with the receiver: tray toggle, IPC from Settings, arrivals', async () => {
    const app = boot({ args: ['--tray'] });
    await controlOf(app);
    await expect.poll(() => menuLabels(app)[0]).toBe('Receiver on');

    app.send({ cmd: 'tray-click', label: 'Receiver on' });
    await expect.poll(() => menuLabels(app)[0]).toBe('Receiver off');

    // Settings starts it through IPC: the tray follows.
    app.send({ cmd: 'tray-click', label: 'Open missive' });
    const started = await invoke(app, 'webhook.start', {});
    expect(started.ok).toBe(true);
    await expect.poll(() => menuLabels(app)[0]).toBe('Receiver on');

    // A callback arrives (a malformed one, rejected): counts and notification follow.
    const response = await fetch(started.data.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(400);
    await expect.poll(() => menuLabels(app)[2]).toBe('Callbacks: 0 accepted, 1 rejected');
    expect(app.last('notification')?.title).toBe('missive: push callback');

    expect((await invoke(app, 'webhook.stop', {})).ok).toBe(true);
    await expect.poll(() => menuLabels(app)[0]).toBe('Receiver off');
  });

  it('fails loudly when the state directory cannot be created: dialog, error to missive ui, lock released, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'missive-desktop-'));
    try {
      const blocker = join(dir, 'not-a-directory');
      writeFileSync(blocker, 'a file where MISSIVE_HOME should be');
      const app = boot({ dir, env: { MISSIVE_HOME: blocker } });
      const control = await controlOf(app);
      expect(control.error.code).toBe('missive::io::state_unwritable');
      expect(control.error.message).toContain(join(blocker, 'state/profiles/default'));
      expect(control.error.help).toContain('MISSIVE_HOME');
      expect(await exitCode(app)).toBe(1);

      const dialog = app.last('dialog')!;
      expect(dialog.title).toBe('missive could not start');
      expect(dialog.content).toContain(blocker);
      expect(dialog.content).toContain('What to do: ');
      const events = app.reports().map((r) => r.event);
      expect(events.indexOf('lock-released')).toBeGreaterThan(-1);
      expect(events.indexOf('lock-released')).toBeLessThan(events.indexOf('exit'));
      expect(app.last('exit')).toMatchObject({ code: 1, lockHeld: false });
      expect(app.all('show')).toEqual([]);

      // The lock is free: the next launch starts.
      const next = boot({ dir });
      expect(await controlOf(next)).toMatchObject({ ready: true, tray: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in Electron from a checkout, a missing Electron build of better-sqlite3 is a startup failure naming npm run native:electron', async () => {
    // process.versions.electron set, as in the real runtime; no build exists for this runtime's ABI.
    const app = boot({ env: { MISSIVE_ELECTRON_STUB_VERSION: '40.10.2' } });
    const control = await controlOf(app);
    expect(control.error.code).toBe('missive::io::native_build_missing');
    expect(control.error.message).toContain(join(ROOT, 'native', `electron-${process.versions.modules}-${process.platform}-${process.arch}`));
    expect(await exitCode(app)).toBe(1);
    expect(app.last('dialog')!.content).toContain('npm run native:electron');
    expect(existsSync(join(app.dir, 'home/state/profiles/default/missive.sqlite3'))).toBe(false);
  });

  it('starts on a shared PostgreSQL store: the registry is shared between two apps, the unported views say so', async () => {
    const db = await freshPostgresUrl();
    try {
      const first = boot({ env: { MISSIVE_STORE_URL: db.url } });
      expect(await controlOf(first)).toMatchObject({ ready: true });
      expect((await invoke(first, 'agents.add', { alias: 'shared', baseUrl: 'http://127.0.0.1:4000' })).ok).toBe(true);
      const second = boot({ env: { MISSIVE_STORE_URL: db.url } });
      expect(await controlOf(second)).toMatchObject({ ready: true });
      // The Settings view names the shared store, without its password, where it names the SQLite file otherwise.
      const info = (await invoke(second, 'app.info')).data;
      expect(info.database).toBe(`postgres://postgres:***@${new URL(db.url).host}/${db.name} (schema missive_default)`);
      const listed = await invoke(second, 'agents.list');
      expect(listed.data.agents.map((a: { alias: string }) => a.alias)).toEqual(['shared']);
      expect(await invoke(second, 'tasks.list', {})).toMatchObject({ ok: true, data: { tasks: [] } });
      expect(await invoke(second, 'demo.start', {})).toMatchObject({ ok: false, error: { code: 'missive::config::store_unsupported' } });
      for (const app of [first, second]) expect(existsSync(join(app.dir, 'home/state/profiles/default/missive.sqlite3'))).toBe(false);
    } finally {
      for (const app of booted.splice(0)) app.dispose();
      await db.drop();
    }
  });
});
