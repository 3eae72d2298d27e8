/** Sandboxed preload: exposes a frozen, read-only description of the host; no ipcRenderer passthrough. */
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('missiveHost', Object.freeze({ platform: process.platform, versions: { ...process.versions } }));
