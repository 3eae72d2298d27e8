/**
 * The one app window: locked down (context isolation, sandbox, no Node, web security, no new windows, no
 * navigation away from our page), shown only once its page has loaded. With the tray, closing hides it instead.
 */
import { BrowserWindow } from 'electron';
import { PRELOAD, RENDERER_INDEX, requireAppFiles } from './app-files.js';

export interface WindowOptions {
  /** Asked on 'close': true hides the window instead (tray mode, unless the app is quitting). */
  hideOnClose: () => boolean;
}

/** Opens the window hidden and resolves once our page has loaded (rejects when it cannot load). */
export async function openMainWindow(options: WindowOptions): Promise<BrowserWindow> {
  requireAppFiles();
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'missive',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
    },
  });
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  win.on('close', (event) => {
    if (!options.hideOnClose()) return;
    event.preventDefault();
    win.hide();
  });
  try {
    await win.loadFile(RENDERER_INDEX);
  } catch (error) {
    win.destroy();
    throw error;
  }
  return win;
}

/** Brings a window back: restored if minimized, shown, focused. */
export function present(win: BrowserWindow): void {
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}
