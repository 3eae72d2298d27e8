/**
 * How the app lives and ends, as a desktop app should: a second launch brings the running window back (the second
 * process quits at once, see index.ts); closing the last window quits on Linux and Windows unless the tray keeps the
 * app (macOS keeps it in the dock, and a click on the dock icon shows the window again); quitting cleans up (the
 * receiver, the store) before the process exits, bounded in time.
 */
import { app } from 'electron';

const CLEANUP_MS = 3000;

export interface LifecycleOptions {
  showWindow: () => void;
  /** True while the tray is up: then closing the window only hides it. */
  hasTray: () => boolean;
  cleanup: () => Promise<void>;
}

export interface Lifecycle {
  /** True once a quit has begun (the window then closes for real, even with the tray). */
  quitting(): boolean;
}

export function wireLifecycle({ showWindow, hasTray, cleanup }: LifecycleOptions): Lifecycle {
  let quitting = false;
  let cleaned = false;
  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin' && !hasTray()) app.quit();
  });
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    if (cleaned) return;
    cleaned = true;
    event.preventDefault();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, CLEANUP_MS).unref());
    void Promise.race([cleanup().catch((error: unknown) => console.error(`missive: cleanup failed: ${String(error)}`)), deadline]).finally(() => app.exit(0));
  });
  return { quitting: () => quitting };
}
