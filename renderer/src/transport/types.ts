/**
 * The renderer's one door to the core: invoke a contract channel, listen to an event channel. Two implementations:
 * the preload bridge in the Electron window (bridge.ts) and the web console's HTTP client in a browser (web.ts).
 */
import type { Channel, ChannelInput, EventChannel, EventPayload, IpcResult, MissiveBridge } from '../../../shared/ipc/contract';

export interface Transport {
  invoke<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<IpcResult<C>>;
  /** Returns the unsubscribe function. */
  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
}

declare global {
  interface Window {
    /** Set by the Electron preload; absent in a browser. */
    missive?: MissiveBridge;
  }
}
