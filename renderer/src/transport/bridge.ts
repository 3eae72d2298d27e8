/** The transport inside the Electron window: the preload's `window.missive` (contextBridge over IPC). */
import type { MissiveBridge } from '../../../shared/ipc/contract';
import type { Transport } from './types';

export const bridgeTransport = (bridge: MissiveBridge): Transport => ({
  invoke: (channel, input) => bridge.invoke(channel, input),
  on: (channel, listener) => bridge.on(channel, listener),
});
