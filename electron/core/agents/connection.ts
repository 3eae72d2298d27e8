/** One agent, ready to call: its card, the negotiated interface, outbound auth and the binding call options. */
import type { Core } from '../context.js';
import type { Binding } from '../config/schema.js';
import type { BindingCall } from '../a2a/bindings.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import { loadCard, selectInterface, type CardResult } from './discovery.js';
import { outboundFor, type Outbound } from './outbound.js';

export interface Connection {
  alias: string;
  card: CardResult;
  iface: SelectedInterface;
  outbound: Outbound;
  call: BindingCall;
}

export const bindingCall = (core: Core, iface: SelectedInterface, outbound: Outbound): BindingCall => ({
  iface,
  headers: outbound.headers,
  timeoutMs: core.timeoutMs,
  protocolVersion: core.serviceParameters.version,
  dispatcher: core.dispatcher,
  secrets: outbound.secrets,
});

/** Loads the (cached) card, checks it with `checkCard`, negotiates the interface and resolves auth. */
export async function connect(core: Core, alias: string, options: { binding?: Binding; checkCard?: (card: CardResult) => void } = {}): Promise<Connection> {
  const card = await loadCard(core, alias);
  options.checkCard?.(card);
  const iface = selectInterface(card, options.binding);
  const outbound = await outboundFor(core, card.agent);
  return { alias: card.agent.alias, card, iface, outbound, call: bindingCall(core, iface, outbound) };
}
