/** The renderer's only door to the core: `window.missive`, typed by the shared contract. */
import type { Channel, ChannelInput, ChannelOutput, EventChannel, EventPayload, IpcError, MissiveBridge } from '../../shared/ipc/contract';

declare global {
  interface Window {
    missive: MissiveBridge;
  }
}

export class BridgeError extends Error {
  constructor(readonly report: IpcError) {
    super(report.message);
  }
}

export async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const result = await window.missive.invoke(channel, input);
  if (!result.ok) throw new BridgeError(result.error);
  return result.data;
}

export const subscribe = <E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) => window.missive.on(channel, listener);
