/** The renderer's only door to the core: the page's transport (transport/), typed by the shared contract. */
import type { Channel, ChannelInput, ChannelOutput, EventChannel, EventPayload, IpcError } from '../../shared/ipc/contract';
import { transport } from './transport';

export class BridgeError extends Error {
  constructor(readonly report: IpcError) {
    super(report.message);
  }
}

export async function call<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const result = await transport().invoke(channel, input);
  if (!result.ok) throw new BridgeError(result.error);
  return result.data;
}

export const subscribe = <E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) => transport().on(channel, listener);
