/**
 * Electron composition root: thin glue only. It composes the same core the CLI uses (config, store, keyring,
 * transport) and opens a locked-down window. The typed IPC bridge and the React views arrive with the GUI issue.
 */
import { app, BrowserWindow, session } from 'electron';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from '../core/context.js';
import { closeSharedDispatcher } from '../core/a2a/http.js';

let core: Core | undefined;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    show: !process.argv.includes('--tray'),
    webPreferences: {
      preload: fileURLToPath(new URL('../preload/index.js', import.meta.url)),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
    },
  });
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  void win.loadFile(fileURLToPath(new URL('../../../renderer/index.html', import.meta.url)));
  return win;
}

if (!app.requestSingleInstanceLock()) app.quit();

app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': ["default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"],
      },
    });
  });
  core = createCore({ env: process.env, cwd: process.cwd() });
  core.store();
  createWindow();
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', () => {
  core?.close();
  void closeSharedDispatcher();
});
