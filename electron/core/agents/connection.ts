/**
 * One agent, ready to call: its card, the negotiated interface and dialect, outbound auth pinned to the agent's
 * origin, and the binding call options. Every command that talks to an agent comes through `connect`.
 */
import type { Core } from '../context.js';
import type { Binding } from '../config/schema.js';
import type { BindingCall } from '../a2a/bindings.js';
import type { SelectedInterface } from '../a2a/interfaces.js';
import type { WireCapture } from '../a2a/wire.js';
import { serviceParameterMetadata } from '../a2a/service-params.js';
import { decidePin, plaintextWarning, type PinDecision } from '../auth/origin-pin.js';
import { loadCard, selectInterface, type CardResult } from './discovery.js';
import { outboundFor, pinInputFor, withoutCredentials, type Outbound } from './outbound.js';

export interface Connection {
  alias: string;
  card: CardResult;
  iface: SelectedInterface;
  outbound: Outbound;
  call: BindingCall;
  /** Whether the credentials go to the interface, and why. */
  pin: PinDecision;
  /** Service-parameter metadata recorded beside what this connection writes (the version actually spoken). */
  meta: Record<string, unknown>;
}

/** The A2A-Version a call speaks: the explicit --protocol-version, else 0.3 on the v0.3 dialect, else the configured one. */
function spokenVersion(core: Core, iface: SelectedInterface): string {
  if (core.options.protocolVersion) return core.options.protocolVersion;
  return iface.dialect === '0.3' ? '0.3' : core.serviceParameters.version;
}

/** Request headers for the dialect: v0.3 names its extensions header `X-A2A-Extensions`. */
function dialectHeaders(headers: Record<string, string>, iface: SelectedInterface, version: string): Record<string, string> {
  const out: Record<string, string> = { ...headers, 'A2A-Version': version };
  if (iface.dialect === '0.3' && out['A2A-Extensions'] !== undefined) {
    out['X-A2A-Extensions'] = out['A2A-Extensions'];
    delete out['A2A-Extensions'];
  }
  return out;
}

export const bindingCall = (core: Core, iface: SelectedInterface, outbound: Outbound, alias?: string, wire?: WireCapture): BindingCall => {
  const version = spokenVersion(core, iface);
  return {
    iface,
    headers: dialectHeaders(outbound.headers, iface, version),
    timeoutMs: core.timeoutMs,
    protocolVersion: version,
    dispatcher: core.dispatcher,
    secrets: outbound.secrets,
    alias,
    wire,
  };
};

export interface ConnectOptions {
  binding?: Binding;
  checkCard?: (card: CardResult) => void;
  /** Secrets this request hands the agent in its body (push token, callback credentials), by name: pinned too. */
  bodySecrets?: string[];
  /** Records every exchange of the calls made through this connection (the wire view). */
  wire?: WireCapture;
}

/** Loads the (cached) card, checks it with `checkCard`, negotiates the interface, resolves auth and pins it. */
export async function connect(core: Core, alias: string, options: ConnectOptions = {}): Promise<Connection> {
  const card = await loadCard(core, alias);
  options.checkCard?.(card);
  const iface = selectInterface(core, card, options.binding);
  const agent = card.agent;
  const resolved = await outboundFor(core, agent);
  const pin = decidePin(pinInputFor(core, agent, iface.url, resolved.credentialSources, options.bodySecrets));
  const outbound = pin.outcome === 'withheld' ? withoutCredentials(resolved) : resolved;
  if (pin.outcome === 'sent') {
    const warning = plaintextWarning(iface.url, `the credentials of "${agent.alias}"`);
    if (warning) core.warn(warning);
  }
  const call = bindingCall(core, iface, outbound, agent.alias, options.wire);
  const meta = serviceParameterMetadata({ ...core.serviceParameters, version: call.protocolVersion });
  return { alias: agent.alias, card, iface, outbound, call, pin, meta };
}
