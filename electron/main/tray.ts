/**
 * The tray webhook receiver: on/off, port, callbacks received, last callback, open window. Arrivals raise a desktop
 * notification, at most one per 10 s. Thin glue over the registry's webhook channels.
 */
import { Menu, Notification, Tray, nativeImage } from 'electron';
import type { Registry } from '../core/ipc/registry.js';

const ICON = nativeImage.createFromDataURL(
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAQ0lEQVR42mNgGAWjYBSMglEwCkbBKBgFo2AUjIJRMApGwSgYBaNgFIyCUTAKRsEoGAWjYBSMglEwCkbBKBgFo2AUAACjMwAB0k8uVQAAAABJRU5ErkJggg==',
);
const NOTIFY_EVERY_MS = 10_000;

export function createTray(registry: Registry, showWindow: () => void): { refresh(): Promise<void>; onArrival(a: { event_type: string; task_id?: string | null }): void; destroy(): void } {
  const tray = new Tray(ICON);
  tray.setToolTip('missive webhook receiver');
  let lastNotice = 0;

  const refresh = async () => {
    const status = await registry.invoke('webhook.status', {});
    const s = status.ok ? (status.data as { listening: boolean; url: string | null; accepted: number; rejected: number; last?: { at: string; event_type: string } | null }) : null;
    tray.setContextMenu(
      Menu.buildFromTemplate([
        {
          label: s?.listening ? 'Receiver on' : 'Receiver off',
          type: 'checkbox',
          checked: s?.listening === true,
          click: async () => {
            await registry.invoke(s?.listening ? 'webhook.stop' : 'webhook.start', {});
            await refresh();
          },
        },
        { label: s?.url ? `Listening on ${s.url}` : 'Not listening', enabled: false },
        { label: `Callbacks: ${s?.accepted ?? 0} accepted, ${s?.rejected ?? 0} rejected`, enabled: false },
        { label: s?.last ? `Last: ${s.last.event_type} at ${s.last.at}` : 'No callback yet', enabled: false },
        { type: 'separator' },
        { label: 'Open missive', click: showWindow },
        { role: 'quit' },
      ]),
    );
  };

  return {
    refresh,
    onArrival(a) {
      void refresh();
      const now = Date.now();
      if (now - lastNotice < NOTIFY_EVERY_MS || !Notification.isSupported()) return;
      lastNotice = now;
      new Notification({ title: 'missive: push callback', body: `${a.event_type}${a.task_id ? ` for task ${a.task_id}` : ''}` }).show();
    },
    destroy: () => tray.destroy(),
  };
}
