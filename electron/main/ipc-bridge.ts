/**
 * Binds the handler registry to `ipcMain.handle`: only our own page may call it, i.e. the top frame of our window's
 * webContents showing a file of our renderer. Any other sender (another frame, another webContents, a page that
 * navigated elsewhere) gets an error result, never a handler call.
 */
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { IPC_INVOKE } from '../../shared/ipc/contract.js';
import { usageError } from '../../shared/errors.js';
import type { Registry } from '../core/ipc/registry.js';
import { RENDERER_URL_PREFIX } from './app-files.js';

export function isOwnPage(event: IpcMainInvokeEvent, win: BrowserWindow | null): boolean {
  if (!win || win.isDestroyed() || event.sender !== win.webContents) return false;
  const frame = event.senderFrame;
  return !!frame && frame.parent === null && frame.url.startsWith(RENDERER_URL_PREFIX);
}

export interface IpcBridgeOptions {
  registry: Registry;
  window: () => BrowserWindow | null;
  /** Called after a `webhook.*` channel ran: the receiver's state may have changed (the tray menu follows it). */
  onWebhookCall: () => void;
}

export function bindIpc({ registry, window, onWebhookCall }: IpcBridgeOptions): void {
  ipcMain.handle(IPC_INVOKE, async (event, channel: unknown, input: unknown) => {
    if (!isOwnPage(event, window())) {
      return { ok: false, error: usageError('untrusted_sender', 'IPC from an unexpected frame was refused').toReport() };
    }
    const name = String(channel);
    try {
      return await registry.invoke(name, input);
    } finally {
      if (name.startsWith('webhook.')) onWebhookCall();
    }
  });
}
