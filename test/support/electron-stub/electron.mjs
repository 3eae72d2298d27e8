/**
 * A stand-in for the `electron` module, so the BUILT main process (dist/electron/main/index.js) boots under plain
 * Node in tests. It does what the glue relies on, the way Electron documents it (window close → 'close' can be
 * prevented → 'closed' → 'window-all-closed' or quit; app.quit() → 'before-quit', windows closed, 'will-quit' can be
 * prevented; app.exit() ends at once), and it records what main asks of it.
 *
 * Reports: one JSON line per call, appended to the file named by MISSIVE_ELECTRON_STUB_REPORT (synchronously, so
 * nothing is lost on exit). Commands: JSON lines on stdin, `{"cmd": …}` (see `commands` below).
 * Other env: MISSIVE_ELECTRON_STUB_LOCK (a file standing for the single-instance lock, so two processes can compete),
 * MISSIVE_ELECTRON_STUB_HOME (app.getPath), MISSIVE_ELECTRON_STUB_VERSION (sets process.versions.electron, as in a
 * real Electron, to exercise the desktop app's native-module check).
 */
import { EventEmitter } from 'node:events';
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';

const env = process.env;
if (env.MISSIVE_ELECTRON_STUB_VERSION) Object.defineProperty(process.versions, 'electron', { value: env.MISSIVE_ELECTRON_STUB_VERSION, enumerable: true });

export function report(event, data = {}) {
  const line = `${JSON.stringify({ event, ...data })}\n`;
  if (env.MISSIVE_ELECTRON_STUB_REPORT) appendFileSync(env.MISSIVE_ELECTRON_STUB_REPORT, line);
  else process.stdout.write(line);
}

// The real app runs until it quits; so does this process (the handle is dropped by process.exit only).
const keepAlive = setInterval(() => undefined, 1 << 30);

const prevented = () => {
  const event = {
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
};

class Frame {
  constructor(url, parent = null) {
    this.url = url;
    this.parent = parent;
  }
}

class WebContents extends EventEmitter {
  static #next = 1;
  constructor() {
    super();
    this.id = WebContents.#next++;
    this.mainFrame = new Frame('about:blank');
    this.windowOpenHandler = undefined;
    this.sent = 0;
  }
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
  send() {
    this.sent++;
  }
  getURL() {
    return this.mainFrame.url;
  }
}

const windows = [];
let quitting = false;

export class BrowserWindow extends EventEmitter {
  static #next = 1;
  static getAllWindows() {
    return windows.filter((w) => !w.destroyed);
  }
  constructor(options = {}) {
    super();
    this.id = BrowserWindow.#next++;
    this.options = options;
    this.visible = options.show !== false;
    this.minimized = false;
    this.destroyed = false;
    this.webContents = new WebContents();
    windows.push(this);
    const preload = options.webPreferences?.preload;
    report('window', { id: this.id, show: this.visible, webPreferences: options.webPreferences ?? {}, preloadExists: !!preload && existsSync(preload) });
  }
  async loadFile(file) {
    const exists = existsSync(file);
    report('load', { id: this.id, file, exists });
    if (!exists) throw new Error(`ERR_FILE_NOT_FOUND (-6) loading '${pathToFileURL(file).href}'`);
    this.webContents.mainFrame.url = pathToFileURL(file).href;
    this.webContents.emit('did-finish-load');
  }
  isDestroyed() {
    return this.destroyed;
  }
  isVisible() {
    return this.visible && !this.destroyed;
  }
  isMinimized() {
    return this.minimized;
  }
  minimize() {
    this.minimized = true;
    report('minimize', { id: this.id });
  }
  restore() {
    this.minimized = false;
    report('restore', { id: this.id });
  }
  show() {
    this.visible = true;
    report('show', { id: this.id });
  }
  hide() {
    this.visible = false;
    report('hide', { id: this.id });
  }
  focus() {
    report('focus', { id: this.id });
  }
  close() {
    if (this.destroyed) return;
    const event = prevented();
    this.emit('close', event);
    if (event.defaultPrevented) return report('close-prevented', { id: this.id });
    this.destroy();
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    report('window-closed', { id: this.id });
    this.emit('closed');
    if (BrowserWindow.getAllWindows().length === 0 && !quitting) {
      if (app.listenerCount('window-all-closed') > 0) app.emit('window-all-closed');
      else app.quit();
    }
  }
}

let lockHeld = false;

class App extends EventEmitter {
  isPackaged = false;
  #whenReady = new Promise((resolve) => {
    setImmediate(() => {
      report('ready');
      this.emit('ready');
      resolve();
    });
  });
  whenReady() {
    return this.#whenReady;
  }
  getPath(name) {
    return join(env.MISSIVE_ELECTRON_STUB_HOME ?? tmpdir(), name);
  }
  requestSingleInstanceLock() {
    let granted = true;
    if (env.MISSIVE_ELECTRON_STUB_LOCK) {
      try {
        closeSync(openSync(env.MISSIVE_ELECTRON_STUB_LOCK, 'wx'));
      } catch {
        granted = false;
      }
    }
    lockHeld = granted;
    report('lock', { granted });
    return granted;
  }
  releaseSingleInstanceLock() {
    report('lock-released', { held: lockHeld });
    if (lockHeld && env.MISSIVE_ELECTRON_STUB_LOCK) unlinkSync(env.MISSIVE_ELECTRON_STUB_LOCK);
    lockHeld = false;
  }
  quit() {
    report('quit-requested');
    const before = prevented();
    this.emit('before-quit', before);
    if (before.defaultPrevented) return;
    quitting = true;
    for (const w of BrowserWindow.getAllWindows()) w.close();
    if (BrowserWindow.getAllWindows().length > 0) {
      quitting = false;
      return report('quit-cancelled');
    }
    const will = prevented();
    this.emit('will-quit', will);
    if (will.defaultPrevented) return;
    this.emit('quit');
    this.exit(0);
  }
  exit(code = 0) {
    // Electron frees the lock when the process ends; the report tells whether main released it itself first.
    report('exit', { code, lockHeld });
    if (lockHeld && env.MISSIVE_ELECTRON_STUB_LOCK) unlinkSync(env.MISSIVE_ELECTRON_STUB_LOCK);
    clearInterval(keepAlive);
    process.exit(code);
  }
}

export const app = new App();

const handlers = new Map();
export const ipcMain = {
  handle(channel, handler) {
    handlers.set(channel, handler);
    report('ipc-handle', { channel });
  },
};

let permissionHandler;
export const session = {
  defaultSession: {
    setPermissionRequestHandler(handler) {
      permissionHandler = handler;
    },
  },
};

export const dialog = {
  showErrorBox(title, content) {
    report('dialog', { kind: 'error', title, content });
  },
  async showOpenDialog() {
    return { canceled: true, filePaths: [] };
  },
};

export const Menu = {
  buildFromTemplate(template) {
    return { items: template };
  },
};

const menuView = (menu) => menu.items.map(({ label, type, checked, enabled }) => ({ label, type, checked, enabled }));

class NativeImage {
  constructor(path) {
    this.path = path;
    this.template = false;
    try {
      const png = PNG.sync.read(readFileSync(path));
      this.size = { width: png.width, height: png.height };
    } catch {
      this.size = { width: 0, height: 0 };
    }
  }
  isEmpty() {
    return this.size.width === 0;
  }
  getSize() {
    return this.size;
  }
  setTemplateImage(on) {
    this.template = on;
  }
  isTemplateImage() {
    return this.template;
  }
}

export const nativeImage = {
  createFromPath: (path) => new NativeImage(path),
};

const trays = [];
export class Tray extends EventEmitter {
  constructor(image) {
    super();
    this.image = image;
    this.menu = undefined;
    this.destroyed = false;
    trays.push(this);
    report('tray', { image: image.path, empty: image.isEmpty(), template: image.isTemplateImage() });
  }
  setToolTip(text) {
    this.tooltip = text;
  }
  setContextMenu(menu) {
    this.menu = menu;
    report('tray-menu', { items: menuView(menu) });
  }
  destroy() {
    this.destroyed = true;
    report('tray-destroyed');
  }
  isDestroyed() {
    return this.destroyed;
  }
}

export class Notification {
  static isSupported() {
    return true;
  }
  constructor(options) {
    this.options = options;
  }
  show() {
    report('notification', { title: this.options.title, body: this.options.body });
  }
}

/** Commands from the test, one JSON line each on stdin. */
const commands = {
  'second-instance': () => app.emit('second-instance', prevented(), [process.execPath], process.cwd(), {}),
  minimize: () => BrowserWindow.getAllWindows()[0]?.minimize(),
  'close-window': () => BrowserWindow.getAllWindows()[0]?.close(),
  quit: () => app.quit(),
  /**
   * An IPC call as a page would make it: from our window's top frame ('own'), an https iframe in it, an iframe showing
   * our own page, the top frame after navigating away, or another webContents showing our page.
   */
  invoke: async ({ ref, frame = 'own', channel, input = {} }) => {
    const handler = handlers.get('missive:invoke');
    const win = BrowserWindow.getAllWindows()[0];
    if (!handler || !win) return report('invoke-result', { ref, error: 'no handler or window' });
    const contents = win.webContents;
    const event =
      frame === 'own'
        ? { sender: contents, senderFrame: contents.mainFrame }
        : frame === 'foreign-iframe'
          ? { sender: contents, senderFrame: new Frame('https://attacker.example/frame.html', contents.mainFrame) }
          : frame === 'own-file-subframe'
            ? { sender: contents, senderFrame: new Frame(contents.mainFrame.url, contents.mainFrame) }
            : frame === 'navigated'
              ? { sender: contents, senderFrame: new Frame('https://attacker.example/') }
              : { sender: new WebContents(), senderFrame: new Frame(contents.mainFrame.url) };
    report('invoke-result', { ref, result: await handler(event, channel, input) });
  },
  'tray-click': ({ label }) => {
    const tray = trays.filter((t) => !t.destroyed).at(-1);
    const item = tray?.menu?.items.find((i) => typeof i.label === 'string' && i.label.startsWith(label));
    if (!item?.click) return report('tray-click-missed', { label });
    report('tray-clicked', { label: item.label });
    void item.click(item, undefined, {});
  },
  'tray-icon-click': () =>
    trays
      .filter((t) => !t.destroyed)
      .at(-1)
      ?.emit('click'),
  permission: ({ permission }) => {
    const win = BrowserWindow.getAllWindows()[0];
    permissionHandler?.(win?.webContents, permission, (granted) => report('permission', { permission, granted }));
  },
  'window-open': ({ url }) => {
    const contents = BrowserWindow.getAllWindows()[0]?.webContents;
    report('window-open', { url, result: contents?.windowOpenHandler?.({ url }) ?? null });
  },
  navigate: ({ url }) => {
    const contents = BrowserWindow.getAllWindows()[0]?.webContents;
    const event = prevented();
    contents?.emit('will-navigate', event, url);
    report('navigate', { url, prevented: event.defaultPrevented });
  },
};

if (!process.stdin.isTTY) {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    let command;
    try {
      command = JSON.parse(line);
    } catch {
      return report('stub-error', { message: `not JSON: ${line}` });
    }
    const run = commands[command.cmd];
    if (!run) return report('stub-error', { message: `unknown command ${command.cmd}` });
    Promise.resolve()
      .then(() => run(command))
      .catch((error) => report('stub-error', { message: String(error?.stack ?? error) }));
  });
  // stdin closing (no commands, e.g. under `missive ui`) must not end the app.
  lines.on('close', () => undefined);
}

export default { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, Notification, session, Tray };
