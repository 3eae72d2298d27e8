/**
 * Electron composition root: thin glue only. It composes the same core and handler registry the CLI and the browser
 * tests use, binds the registry to `ipcMain.handle` for the locked-down window, and runs the tray receiver.
 *   --tray  start hidden in the tray with the webhook receiver on; closing the window keeps the tray.
 */
import { app, BrowserWindow, dialog, ipcMain, session, type IpcMainInvokeEvent } from 'electron';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import { IPC_EVENT, IPC_INVOKE } from '../../shared/ipc/contract.js';
import { usageError } from '../../shared/errors.js';
import { createCore, type Core } from '../core/context.js';
import { closeSharedDispatcher } from '../core/a2a/http.js';
import { createRegistry, type Registry } from '../core/ipc/registry.js';
import { createTray } from './tray.js';

const RENDERER = fileURLToPath(new URL('../../renderer/index.html', import.meta.url));
const RENDERER_DIR = pathToFileURL(dirname(RENDERER)).href;
const startInTray = process.argv.includes('--tray');

let core: Core | undefined;
let registry: Registry | undefined;
let win: BrowserWindow | null = null;
let tray: ReturnType<typeof createTray> | undefined;
let quitting = false;

/** Only our own renderer, loaded from disk, may call the registry. */
const trusted = (event: IpcMainInvokeEvent) => {
  const url = event.senderFrame?.url ?? '';
  return url.startsWith(`${RENDERER_DIR}/`) && event.sender === win?.webContents;
};

function createWindow(): BrowserWindow {
  const w = new BrowserWindow({
    width: 1280,
    height: 860,
    show: !startInTray,
    webPreferences: {
      preload: fileURLToPath(new URL('../preload/index.cjs', import.meta.url)),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
    },
  });
  w.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  w.webContents.on('will-navigate', (event) => event.preventDefault());
  w.on('close', (event) => {
    // The tray keeps the receiver running; the window only hides.
    if (!quitting && tray) {
      event.preventDefault();
      w.hide();
    }
  });
  void w.loadFile(RENDERER);
  return w;
}

const showWindow = () => {
  win ??= createWindow();
  win.show();
  win.focus();
};

if (!app.requestSingleInstanceLock()) app.quit();

app.whenReady().then(async () => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  core = createCore({ env: process.env, cwd: process.cwd(), onWarning: (message) => console.warn(`missive: warning: ${message}`) });
  core.store();
  registry = createRegistry({
    core,
    cwd: app.getPath('documents'),
    tailEventsMs: 500,
    emit: (channel, payload) => {
      win?.webContents.send(IPC_EVENT, channel, payload);
      if (channel === 'webhook.arrival') tray?.onArrival(payload as { event_type: string; task_id?: string | null });
    },
    chooseDirectory: async (title) => {
      const picked = await dialog.showOpenDialog({ title, properties: ['openDirectory', 'createDirectory'] });
      return picked.canceled ? null : (picked.filePaths[0] ?? null);
    },
  });
  ipcMain.handle(IPC_INVOKE, (event, channel: unknown, input: unknown) =>
    trusted(event) ? registry!.invoke(String(channel), input) : { ok: false, error: usageError('untrusted_sender', 'IPC from an unexpected frame was refused').toReport() },
  );
  win = createWindow();
  tray = createTray(registry, showWindow);
  if (startInTray) await registry.invoke('webhook.start', {});
  await tray.refresh();
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin' && !tray) app.quit();
});

app.on('before-quit', () => {
  quitting = true;
});

app.on('will-quit', () => {
  void registry?.dispose();
  tray?.destroy();
  core?.close();
  void closeSharedDispatcher();
});
