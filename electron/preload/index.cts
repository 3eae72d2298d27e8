/**
 * Sandboxed preload (CommonJS: sandboxed preloads cannot load ES modules). Exposes only `window.missive =
 * { invoke, on }`; no ipcRenderer passthrough, no channel names of its own: the renderer names contract channels,
 * and main validates them against the contract.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';

// Transport names, kept equal to IPC_INVOKE / IPC_EVENT in shared/ipc/contract.ts (a unit test checks it).
const INVOKE = 'missive:invoke';
const EVENT = 'missive:event';

contextBridge.exposeInMainWorld(
  'missive',
  Object.freeze({
    invoke: (channel: string, input: unknown) => ipcRenderer.invoke(INVOKE, channel, input),
    on: (channel: string, listener: (payload: unknown) => void) => {
      const handler = (_event: IpcRendererEvent, name: string, payload: unknown) => {
        if (name === channel) listener(payload);
      };
      ipcRenderer.on(EVENT, handler);
      return () => void ipcRenderer.off(EVENT, handler);
    },
  }),
);
