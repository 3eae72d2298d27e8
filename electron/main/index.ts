/**
 * Electron composition root: thin glue only. It composes the same core and handler registry the CLI and the web
 * console use, binds the registry to `ipcMain.handle` for the locked-down window, and runs the tray receiver.
 *   --tray                        start hidden in the tray with the webhook receiver on; closing the window keeps it
 *   --profile=NAME --config=PATH  as the CLI's global flags (`missive --profile work ui` passes them on)
 * Startup either ends with the window shown (or the tray up) and `{"ready":true}` on the control channel, or with an
 * error dialog, `{"error":…}` on the channel, the single-instance lock released and exit code 1 (startup-failure.ts).
 */
import { app, dialog, session, type BrowserWindow } from 'electron';
import { IPC_EVENT } from '../../shared/ipc/contract.js';
import { MissiveError } from '../../shared/errors.js';
import { createCore } from '../core/context.js';
import type { Core } from '../core/handle.js';
import { closeSharedDispatcher } from '../core/a2a/http.js';
import { createRegistry, type Registry } from '../core/ipc/registry.js';
import { sqliteBindingFor } from '../core/store/native-binding.js';
import { appRoot } from './app-files.js';
import { openControlChannel } from './control-channel.js';
import { bindIpc } from './ipc-bridge.js';
import { wireLifecycle } from './lifecycle.js';
import { failStartup, stateError } from './startup-failure.js';
import { createTray, type TrayReceiver } from './tray.js';
import { openMainWindow, present } from './window.js';

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) || undefined;
const args = { tray: process.argv.includes('--tray'), profile: flag('profile'), config: flag('config') };
const control = openControlChannel(process.env);

let core: Core | undefined;
let registry: Registry | undefined;
let win: BrowserWindow | null = null;
let tray: TrayReceiver | undefined;
let started = false;
let showWhenStarted = false;

const refreshTray = () => void tray?.refresh().catch((error: unknown) => console.error(`missive: tray: ${String(error)}`));

const lifecycle = wireLifecycle({
  showWindow,
  hasTray: () => tray !== undefined,
  cleanup: async () => {
    tray?.destroy();
    await registry?.dispose();
    core?.close();
    await closeSharedDispatcher();
  },
});

const openWindow = () => openMainWindow({ hideOnClose: () => tray !== undefined && !lifecycle.quitting() });

/** A second launch, the dock, the tray: show the window (opened again if it was closed, e.g. on macOS). */
function showWindow(): void {
  if (!started) {
    showWhenStarted = true;
    return;
  }
  if (win && !win.isDestroyed()) return present(win);
  openWindow().then(
    (opened) => present((win = opened)),
    (error: unknown) => console.error(`missive: cannot open the window: ${String(error)}`),
  );
}

async function start(): Promise<void> {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  const nativeBinding = sqliteBindingFor({
    versions: process.versions,
    packaged: app.isPackaged,
    root: appRoot(),
    platform: process.platform,
    arch: process.arch,
  });
  core = createCore({
    env: process.env,
    cwd: process.cwd(),
    profile: args.profile,
    configPath: args.config,
    nativeBinding,
    onWarning: (message) => console.warn(`missive: warning: ${message}`),
  });
  const opened = core;
  try {
    // Opens the store the profile selects (the SQLite file, or a PostgreSQL database in team mode) before any window.
    await opened.storage();
  } catch (error) {
    throw stateError(error, opened.paths.state);
  }
  registry = createRegistry({
    core: opened,
    cwd: app.getPath('documents'),
    tailEventsMs: 500,
    emit: (channel, payload) => {
      if (win && !win.isDestroyed()) win.webContents.send(IPC_EVENT, channel, payload);
      if (channel === 'webhook.arrival') tray?.onArrival(payload as { event_type: string; task_id?: string | null });
    },
    chooseDirectory: async (title) => {
      const picked = await dialog.showOpenDialog({ title, properties: ['openDirectory', 'createDirectory'] });
      return picked.canceled ? null : (picked.filePaths[0] ?? null);
    },
  });
  bindIpc({ registry, window: () => win, onWebhookCall: refreshTray });
  win = await openWindow();
  if (args.tray) {
    tray = createTray({ registry, showWindow, quit: () => app.quit() });
    const receiver = await registry.invoke('webhook.start', {});
    if (!receiver.ok) {
      throw new MissiveError('io', 'tray_receiver_failed', `the webhook receiver did not start: ${receiver.error.message}`, {
        exitCode: 69,
        help: receiver.error.help ?? 'Check [webhook] in the config (host, port), or start without --tray.',
      });
    }
    await tray.refresh();
  }
  if (!args.tray || showWhenStarted) present(win);
  started = true;
  control.send({ ready: true, pid: process.pid, tray: args.tray });
}

// Until the window is up, anything thrown anywhere is a startup failure; later, it is logged and the app goes on.
const onStray = (error: unknown) =>
  started ? console.error(`missive: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`) : failStartup(error, control);
process.on('uncaughtException', onStray);
process.on('unhandledRejection', onStray);

if (!app.requestSingleInstanceLock()) {
  // Another instance runs: it got 'second-instance' and shows its window; this process has nothing to do.
  control.send({ ready: true, pid: process.pid, existing: true });
  app.quit();
} else {
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => failStartup(error, control));
}
