/**
 * The tray receiver (`--tray`): on/off, port, callbacks received, last callback, open the window, quit. The icon is
 * build/icons/tray.png (trayTemplate.png on macOS, tinted by the menu bar; the @2x files are picked up for HiDPI).
 * The menu is rebuilt from `webhook.status` whenever the receiver's state may have changed: after the tray's own
 * toggle, after any `webhook.*` call from the window, after each arrival. Arrivals also raise a desktop notification,
 * at most one per 10 s. Thin glue over the registry's webhook channels.
 */
import { Menu, Notification, Tray, nativeImage } from 'electron';
import { MissiveError } from '../../shared/errors.js';
import type { Registry } from '../core/ipc/registry.js';
import { appRoot, trayIconPath } from './app-files.js';

const NOTIFY_EVERY_MS = 10_000;

export interface TrayOptions {
  registry: Registry;
  showWindow: () => void;
  quit: () => void;
}

export interface TrayReceiver {
  refresh(): Promise<void>;
  onArrival(arrival: { event_type: string; task_id?: string | null }): void;
  destroy(): void;
}

interface ReceiverStatus {
  listening: boolean;
  url?: string | null;
  accepted: number;
  rejected: number;
  last?: { at: string; event_type: string } | null;
}

function loadIcon() {
  const path = trayIconPath();
  const icon = nativeImage.createFromPath(path);
  if (icon.isEmpty()) {
    throw new MissiveError('io', 'tray_icon_missing', `the tray icon ${path} is missing or not an image`, {
      exitCode: 69,
      help: `Restore build/icons in ${appRoot()} (or reinstall the packaged app), or start without --tray.`,
    });
  }
  if (process.platform === 'darwin') icon.setTemplateImage(true);
  return icon;
}

export function createTray({ registry, showWindow, quit }: TrayOptions): TrayReceiver {
  const tray = new Tray(loadIcon());
  tray.setToolTip('missive webhook receiver');
  let lastNotice = 0;
  let destroyed = false;

  const toggle = async (listening: boolean) => {
    await registry.invoke(listening ? 'webhook.stop' : 'webhook.start', {});
    await refresh();
  };
  const refresh = async () => {
    const status = await registry.invoke('webhook.status', {});
    if (destroyed) return;
    const s = status.ok ? (status.data as ReceiverStatus) : null;
    tray.setContextMenu(
      Menu.buildFromTemplate([
        {
          label: s?.listening ? 'Receiver on' : 'Receiver off',
          type: 'checkbox',
          checked: s?.listening === true,
          // Electron ignores what click returns: the toggle runs on its own (registry.invoke answers errors as results).
          click: () => void toggle(s?.listening === true),
        },
        { label: s?.url ? `Listening on ${s.url}` : 'Not listening', enabled: false },
        { label: `Callbacks: ${s?.accepted ?? 0} accepted, ${s?.rejected ?? 0} rejected`, enabled: false },
        { label: s?.last ? `Last: ${s.last.event_type} at ${s.last.at}` : 'No callback yet', enabled: false },
        { type: 'separator' },
        { label: 'Open missive', click: showWindow },
        { label: 'Quit missive', click: quit },
      ]),
    );
  };
  tray.on('click', showWindow);

  return {
    refresh,
    onArrival(a) {
      void refresh();
      const now = Date.now();
      if (now - lastNotice < NOTIFY_EVERY_MS || !Notification.isSupported()) return;
      lastNotice = now;
      new Notification({ title: 'missive: push callback', body: `${a.event_type}${a.task_id ? ` for task ${a.task_id}` : ''}` }).show();
    },
    destroy: () => {
      destroyed = true;
      tray.destroy();
    },
  };
}
